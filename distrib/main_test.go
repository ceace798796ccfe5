package distrib

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"policyevolve/envs"
	"policyevolve/evolve/episode"
	"policyevolve/internal/storetest"
	"policyevolve/sandbox"
	"policyevolve/store"
)

// Environment of a worker process: this test binary, run again.
const (
	envWorkerURL   = "DISTRIB_TEST_WORKER"       // the server's URL
	envWorkerName  = "DISTRIB_TEST_WORKER_NAME"  // its name
	envWorkerCache = "DISTRIB_TEST_WORKER_CACHE" // the sandbox's cache of native workers
	envWorkerCrash = "DISTRIB_TEST_CRASH_SEED"   // die on an episode of this seed
	envWorkerSlots = "DISTRIB_TEST_WORKER_SLOTS" // concurrency
	envWorkerSlow  = "DISTRIB_TEST_SLOW_SEED"    // hold an episode of this seed for slowFor first
	envWorkerHold  = "DISTRIB_TEST_HOLD"         // hold every episode this long first (a duration)
)

// slowFor is how long a worker holds an episode of the seed envWorkerSlow
// names before it plays it: three AckWaits of patientQueue, whatever the
// machine's speed.
const slowFor = 9 * time.Second

// patientQueue is testQueue with an AckWait long enough that a worker
// process starved of CPU for a moment on a busy machine still tells the
// server in time that it holds its job.
var patientQueue = QueueConfig{AckWait: 3 * time.Second, MaxDeliver: 2}

// testCache holds the native policy workers built by this test run, shared
// by the coordinators and the worker processes.
var testCache string

func TestMain(m *testing.M) {
	if u := os.Getenv(envWorkerURL); u != "" {
		os.Exit(workerMain(u))
	}
	dir, err := os.MkdirTemp("", "policyevolve-distrib-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	testCache = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// workerMain is a worker process as "policyevolve worker" runs one, with
// quick heartbeats and polls; SIGTERM drains it. With envWorkerCrash, the
// process dies (exit 3) when it is given an episode of that seed: a job
// that kills every worker.
func workerMain(u string) int {
	nc, err := Connect(u, "test worker", Auth{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer nc.Close()
	slots, _ := strconv.Atoi(os.Getenv(envWorkerSlots))
	w, err := NewWorker(nc, WorkerConfig{Name: os.Getenv(envWorkerName), Backend: sandbox.Native, Concurrency: slots,
		Sandbox: sandbox.Config{CacheDir: os.Getenv(envWorkerCache)}, Poll: 500 * time.Millisecond,
		Heartbeat: 100 * time.Millisecond, Log: func(f string, a ...any) { fmt.Fprintf(os.Stderr, f+"\n", a...) }})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if s := os.Getenv(envWorkerCrash); s != "" {
		seed, _ := strconv.ParseUint(s, 10, 64)
		w.cfg.Executor = func(l episode.Limits) (episode.Executor, error) {
			ex, err := w.local(l)
			return crashOn{ex, seed}, err
		}
	}
	if s := os.Getenv(envWorkerSlow); s != "" {
		seed, _ := strconv.ParseUint(s, 10, 64)
		w.cfg.Executor = func(l episode.Limits) (episode.Executor, error) {
			ex, err := w.local(l)
			return slowOn{ex: ex, seed: seed, hold: slowFor}, err
		}
	}
	if s := os.Getenv(envWorkerHold); s != "" {
		hold, err := time.ParseDuration(s)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		w.cfg.Executor = func(l episode.Limits) (episode.Executor, error) {
			ex, err := w.local(l)
			return slowOn{ex: ex, all: true, hold: hold}, err
		}
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM)
	go func() {
		<-sigs
		w.Drain()
	}()
	if err := w.Run(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// crashOn kills its process on an episode of one seed.
type crashOn struct {
	ex   episode.Executor
	seed uint64
}

func (c crashOn) Play(ctx context.Context, ep *episode.Episode) (*envs.Result, error) {
	if ep.Seed == c.seed {
		os.Exit(3)
	}
	return c.ex.Play(ctx, ep)
}

// slowOn holds an episode of one seed (or every episode) before playing
// it: jobs long by construction.
type slowOn struct {
	ex   episode.Executor
	seed uint64
	all  bool
	hold time.Duration
}

func (s slowOn) Play(ctx context.Context, ep *episode.Episode) (*envs.Result, error) {
	if s.all || ep.Seed == s.seed {
		select {
		case <-time.After(s.hold):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return s.ex.Play(ctx, ep)
}

// testServer is a NATS server in the test process, on a loopback port, with
// its streams in a directory of the test: it can be stopped and started
// again with its state.
type testServer struct {
	t    testing.TB
	dir  string
	port int
	e    *Embedded
}

func startServer(t testing.TB) *testServer {
	t.Helper()
	s := &testServer{t: t, dir: t.TempDir(), port: -1}
	s.start()
	t.Cleanup(s.stop)
	return s
}

func (s *testServer) start() {
	s.t.Helper()
	e, err := StartEmbedded(EmbeddedConfig{Port: s.port, StoreDir: s.dir})
	if err != nil {
		s.t.Fatal(err)
	}
	s.e = e
	u, err := url.Parse(e.URL())
	if err != nil {
		s.t.Fatal(err)
	}
	s.port, _ = strconv.Atoi(u.Port())
}

func (s *testServer) stop() {
	if s.e != nil {
		s.e.Close()
		s.e = nil
	}
}

func (s *testServer) url() string { return fmt.Sprintf("nats://127.0.0.1:%d", s.port) }

// worker is a worker process.
type worker struct {
	cmd    *exec.Cmd
	mu     sync.Mutex
	stderr bytes.Buffer
	exited chan struct{} // closed when the process has ended
}

func (w *worker) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.stderr.Write(p)
}

func (w *worker) log() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.stderr.String()
}

// startWorker starts a worker process on the server at u; env adds to its
// environment. It is killed when the test ends.
func startWorker(t testing.TB, u, name string, slots int, env ...string) *worker {
	t.Helper()
	w := &worker{cmd: exec.Command(os.Args[0]), exited: make(chan struct{})}
	w.cmd.Env = append(os.Environ(), envWorkerURL+"="+u, envWorkerName+"="+name, envWorkerCache+"="+testCache,
		envWorkerSlots+"="+strconv.Itoa(slots))
	w.cmd.Env = append(w.cmd.Env, env...)
	w.cmd.Stderr = w
	if err := w.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		w.cmd.Wait()
		close(w.exited)
	}()
	t.Cleanup(func() {
		w.cmd.Process.Kill()
		<-w.exited
		if t.Failed() {
			t.Logf("worker %s:\n%s", name, w.log())
		}
	})
	return w
}

// newSandbox is a native sandbox on the test's cache, with adjustments.
func newSandbox(t testing.TB, adjust ...func(*sandbox.Config)) *sandbox.Sandbox {
	t.Helper()
	cfg := sandbox.Config{Backend: sandbox.Native, CacheDir: testCache}
	for _, f := range adjust {
		f(&cfg)
	}
	sb, err := sandbox.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return sb
}

// openStore is a fresh store, checked when the test ends.
func openStore(t *testing.T) *store.Store {
	t.Helper()
	return storetest.Open(t, filepath.Join(t.TempDir(), "test.db"))
}

// testQueue redelivers quickly: a dead worker's job goes to another after
// a second, a job fails after two deliveries.
var testQueue = QueueConfig{AckWait: time.Second, MaxDeliver: 2}

// trusting is the verification of the tests of the queue's mechanics:
// none (the tests of verification set their own).
var trusting = VerifyConfig{TrustWorkers: true}

// newRemote is a coordinator's executor on the server at u, trusting its
// workers.
func newRemote(t testing.TB, u string) *Remote {
	t.Helper()
	nc, err := Connect(u, "test coordinator", Auth{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewRemote(context.Background(), nc, RemoteConfig{Queue: testQueue, Recheck: time.Second, Verify: trusting,
		Log: func(f string, a ...any) { t.Logf(f, a...) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		r.Close()
		nc.Close()
	})
	return r
}

// waitFor polls cond until it holds; a bound of minutes tells a hang from
// a slow machine.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for start := time.Now(); !cond(); time.Sleep(50 * time.Millisecond) {
		if time.Since(start) > 5*time.Minute {
			t.Fatalf("waited 5 minutes for %s", what)
		}
	}
}

// stats returns the statistics of the named worker, from the bucket.
func stats(t *testing.T, r *Remote, name string) (WorkerStats, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ws, err := ListWorkers(ctx, r.nc)
	if err != nil {
		return WorkerStats{}, false
	}
	for _, w := range ws {
		if w.Name == name {
			return w, true
		}
	}
	return WorkerStats{}, false
}
