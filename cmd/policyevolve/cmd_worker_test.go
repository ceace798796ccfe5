package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"policyevolve/distrib"
)

// envTestMain makes this test binary run as policyevolve (see TestMain).
const envTestMain = "POLICYEVOLVE_TEST_MAIN"

// syncBuffer is a buffer a process writes while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// cliProcess is this test binary run as "policyevolve args…" in a process
// of its own.
type cliProcess struct {
	cmd            *exec.Cmd
	stdout, stderr syncBuffer
	exited         chan struct{}
}

func startCLI(t *testing.T, args ...string) *cliProcess {
	t.Helper()
	p := &cliProcess{cmd: exec.Command(os.Args[0], args...), exited: make(chan struct{})}
	p.cmd.Env = append(os.Environ(), envTestMain+"=1")
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		p.cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		<-p.exited
		if t.Failed() {
			t.Logf("policyevolve %s:\n%s%s", strings.Join(args, " "), p.stdout.String(), p.stderr.String())
		}
	})
	return p
}

// freePort is a loopback port free a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// summary is the end of an evolve run's output: the champion and its
// metrics per seed.
func summary(t *testing.T, out string) string {
	t.Helper()
	i, j := strings.Index(out, "champion "), strings.Index(out, "look further")
	if i < 0 || j < i {
		t.Fatalf("no champion in the output:\n%s", out)
	}
	return out[i:j]
}

// TestEvolveOnNATSWorkers: "evolve --nats embedded:PORT" plays its
// episodes on a worker process that joined with a token, and ends with
// the champion of the same run played locally; the token appears in no
// output and not in the store; SIGTERM stops the worker cleanly.
func TestEvolveOnNATSWorkers(t *testing.T) {
	const token = "tok-5f3a9e"
	t.Setenv(envNATSToken, token)
	dir := t.TempDir()
	args := []string{"evolve", "--game", "gathering", "--map", "small", "--agents", "4", "--steps", "100",
		"--seeds", "0-1", "--iterations", "1", "--candidates", "2", "--local-rounds", "1", "--seed", "3"}
	code, local, errOut := runCLI(t, context.Background(), append(args, "--store", filepath.Join(dir, "local.db"))...)
	if code != 0 {
		t.Fatalf("local run: exit %d\n%s", code, errOut)
	}

	port := freePort(t)
	w := startCLI(t, "worker", "--nats", fmt.Sprintf("nats://127.0.0.1:%d", port), "--concurrency", "2",
		"--name", "cmdtest", "--heartbeat", "200ms")
	remoteStore := filepath.Join(dir, "remote.db")
	code, remote, errOut := runCLI(t, context.Background(), append(args, "--store", remoteStore,
		"--nats", fmt.Sprintf("embedded:%d", port))...)
	if code != 0 {
		t.Fatalf("run on workers: exit %d\n%s", code, errOut)
	}
	if got, want := summary(t, remote), summary(t, local); got != want {
		t.Fatalf("on workers:\n%s\nlocally:\n%s", got, want)
	}
	if !strings.Contains(errOut, "workers join with") {
		t.Errorf("no word on how workers join:\n%s", errOut)
	}
	w.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-w.exited:
	case <-time.After(2 * time.Minute): // a hang, not a slow machine
		t.Fatal("SIGTERM did not stop the worker")
	}
	var jobs, failed, errs int
	if code := w.cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("the worker exited with %d", code)
	}
	if _, err := fmt.Sscanf(w.stdout.String(), "worker cmdtest: %d job(s) played (%d policy failure(s)), %d error(s)", &jobs, &failed, &errs); err != nil || jobs == 0 {
		t.Fatalf("the worker's summary: %q (%v)", w.stdout.String(), err)
	}
	for name, text := range map[string]string{"evolve output": remote + errOut, "worker output": w.stdout.String() + w.stderr.String()} {
		if strings.Contains(text, token) {
			t.Errorf("the %s shows the token", name)
		}
	}
	data, err := os.ReadFile(remoteStore)
	if err != nil || bytes.Contains(data, []byte(token)) {
		t.Errorf("the store holds the token (or does not read: %v)", err)
	}
}

// TestWorkersLists: "workers" lists a connected worker and the queues.
func TestWorkersLists(t *testing.T) {
	srv, err := distrib.StartEmbedded(distrib.EmbeddedConfig{Port: -1, StoreDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	code, out, _ := runCLI(t, context.Background(), "workers", "--nats", srv.URL())
	if code != 0 || !strings.Contains(out, "no work queue yet") || !strings.Contains(out, "no worker connected") {
		t.Fatalf("an empty server: exit %d\n%s", code, out)
	}
	nc, err := srv.Connect("test", distrib.Auth{})
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	r, err := distrib.NewRemote(context.Background(), nc, distrib.RemoteConfig{Verify: distrib.VerifyConfig{TrustWorkers: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	startCLI(t, "worker", "--nats", srv.URL(), "--name", "lister", "--concurrency", "3", "--heartbeat", "100ms", "--backend", "native")
	for start := time.Now(); ; time.Sleep(100 * time.Millisecond) {
		code, out, _ = runCLI(t, context.Background(), "workers", "--nats", srv.URL())
		if strings.Contains(out, "lister") {
			break
		}
		if time.Since(start) > 2*time.Minute {
			t.Fatalf("the worker never showed:\n%s", out)
		}
	}
	if code != 0 || !strings.Contains(out, "queue native: 0 waiting, 0 running") || !strings.Contains(out, "EPISODES/S") {
		t.Fatalf("exit %d\n%s", code, out)
	}
	code, out, _ = runCLI(t, context.Background(), "workers", "--nats", srv.URL(), "--json")
	var listing struct {
		Workers []distrib.WorkerStats `json:"workers"`
		Queues  []distrib.Queue       `json:"queues"`
	}
	if err := json.Unmarshal([]byte(out), &listing); err != nil || code != 0 {
		t.Fatalf("--json: exit %d, %v\n%s", code, err, out)
	}
	if len(listing.Workers) != 1 || listing.Workers[0].Concurrency != 3 || listing.Workers[0].Backend != "native" {
		t.Fatalf("workers %+v", listing.Workers)
	}
}

func TestNATSFlagErrors(t *testing.T) {
	t.Setenv(envNATS, "")
	t.Setenv(envNATSToken, "")
	seed := filepath.Join(t.TempDir(), "user.nk")
	os.WriteFile(seed, []byte("SU..."), 0o600)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"worker"}, "--nats: which NATS server?"},
		{[]string{"workers"}, "--nats: which NATS server?"},
		{[]string{"worker", "--nats", "nats://127.0.0.1:1", "--concurrency", "0"}, "--concurrency"},
		{[]string{"worker", "--nats", "nats://127.0.0.1:1", "--nats-token", "x", "--nats-nkey", seed}, "one of"},
		{[]string{"evolve", "--nats", "embedded:port"}, "embedded:HOST:PORT"},
		{[]string{"evolve", "--nats", "embedded", "--nats-inflight", "0"}, "--nats-inflight"},
		{[]string{"evolve", "--nats", "embedded", "--nats-tls-cert", seed}, "needs its key"},
	} {
		code, _, errOut := runCLI(t, context.Background(), c.args...)
		if code != exitUsage || !strings.Contains(errOut, c.want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line with %q", c.args, code, errOut, c.want)
		}
	}
}

// TestProgressShowsTheQueue: while episodes wait on workers, the progress
// lines tell the queue's depth, once per change.
func TestProgressShowsTheQueue(t *testing.T) {
	var w syncBuffer
	p := newEvolveProgress(io.Discard, &w, false)
	var mu sync.Mutex
	state := distrib.RemoteStats{Pending: 7, Workers: 2, Queues: []distrib.Queue{{Backend: "native", Waiting: 5, Running: 2}}}
	stop := p.watchQueue(func(context.Context) (distrib.RemoteStats, error) {
		mu.Lock()
		defer mu.Unlock()
		return state, nil
	}, 5*time.Millisecond)
	for start := time.Now(); !strings.Contains(w.String(), "queue: 5 waiting, 2 running, 2 worker(s)"); time.Sleep(5 * time.Millisecond) {
		if time.Since(start) > time.Minute {
			t.Fatalf("no queue line:\n%s", w.String())
		}
	}
	mu.Lock()
	state = distrib.RemoteStats{Pending: 0, Workers: 2}
	mu.Unlock()
	time.Sleep(50 * time.Millisecond)
	stop()
	if n := strings.Count(w.String(), "queue:"); n != 1 {
		t.Fatalf("%d queue lines, want one per change while episodes wait:\n%s", n, w.String())
	}
}
