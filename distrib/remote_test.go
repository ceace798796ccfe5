package distrib

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"policyevolve/envs"
	"policyevolve/evolve"
	"policyevolve/evolve/episode"
	"policyevolve/evolve/planner"
	"policyevolve/llm"
	"policyevolve/sandbox"
	"policyevolve/store"
)

// digest is what a run of remoteCfg leaves in its store, times and run
// ids left out: the champion, every evaluation and match, the global
// pool's ratings with their histories, and the candidates of every
// iteration.
func digest(t *testing.T, s *store.Store, run *store.Run) string {
	t.Helper()
	env, err := episode.ResolveEnv(remoteCfg.Game, remoteCfg.Map, remoteCfg.Agents, remoteCfg.Steps)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "champion %s after %d iterations, %d episodes\n", run.Champion, run.Iterations, run.Usage.Episodes)
	err = s.View(func(tx *store.Tx) error {
		ps, err := tx.Policies()
		if err != nil {
			return err
		}
		sort.Slice(ps, func(i, j int) bool { return ps[i].ID < ps[j].ID })
		for _, p := range ps {
			evs, err := tx.EvaluationsOf(p.ID)
			if err != nil {
				return err
			}
			for _, ev := range evs {
				data, _ := json.Marshal([]any{ev.Seeds, ev.Status, ev.Error, ev.PerSeed, ev.Mean})
				fmt.Fprintf(&b, "evaluation %.10s %s\n", p.ID, data)
			}
			ms, err := tx.MatchesOf(p.ID)
			if err != nil {
				return err
			}
			for _, m := range ms {
				if m.A == p.ID {
					fmt.Fprintf(&b, "match %.10s %.10s %d: %v %v %v %q\n", m.A, m.B, m.Seed, m.ScoreA, m.ScoreB, m.Outcome, m.Error)
				}
			}
		}
		rs, err := tx.Ratings(store.GlobalPool(env.Config))
		if err != nil {
			return err
		}
		for _, r := range rs {
			fmt.Fprintf(&b, "rating %.10s %v %d/%d/%d:", r.Policy, r.Elo, r.Wins, r.Draws, r.Losses)
			for _, h := range r.History {
				fmt.Fprintf(&b, " %.6s@%d=%v", h.Opponent, h.Seed, h.Outcome)
			}
			b.WriteString("\n")
		}
		its, err := tx.Iterations(run.ID)
		for _, it := range its {
			for _, c := range it.Candidates {
				fmt.Fprintf(&b, "candidate %d/%d %s %.10s %v %v\n", it.Index, c.Sample, c.Status, c.Policy, c.WinRate, c.Elo)
			}
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// remoteCfg is the population search the remote tests run.
var remoteCfg = evolve.JobConfig{Mode: evolve.ModePopulation, Game: "gathering", Map: "small", Agents: 4, Steps: 100, Seed: 7,
	EvalSeeds: []uint64{0, 1}, Iterations: 1, Candidates: 2, LocalRounds: evolve.On(1), Workers: 2}

func remotePlanner(spec, run string, _ llm.Gate) (planner.Planner, error) {
	return &planner.GrammarPlanner{PopSize: 4, Generations: 1}, nil
}

// localRun is the digest of remoteCfg's run played locally, made once for
// the tests that compare a remote run with it.
var localRun struct {
	once   sync.Once
	digest string
	err    error
}

func localDigest(t *testing.T) string {
	t.Helper()
	localRun.once.Do(func() {
		s := openStore(t)
		job := &evolve.Job{Config: remoteCfg, Store: s, Sandbox: newSandbox(t), Planner: remotePlanner}
		run, err := job.Run(context.Background())
		if err != nil {
			localRun.err = err
			return
		}
		localRun.digest = digest(t, s, run)
	})
	if localRun.err != nil {
		t.Fatal(localRun.err)
	}
	return localRun.digest
}

// TestRemoteRunIsTheLocalRun: a population search whose episodes are
// played by two worker processes over NATS, their results verified as by
// default, ends with the same records, bit for bit, as the same run (same
// seed) played locally, and no honest worker is quarantined.
func TestRemoteRunIsTheLocalRun(t *testing.T) {
	want := localDigest(t)
	s := openStore(t)
	srv := startServer(t)
	startWorker(t, srv.url(), "w1", 1)
	startWorker(t, srv.url(), "w2", 1)
	sb := newSandbox(t)
	replay := &episode.Local{Sandbox: sb}
	defer replay.Close()
	remote := verifiedRemote(t, srv.url(), VerifyConfig{Replay: replay}) // as deployed: the defaults
	job := &evolve.Job{Config: remoteCfg, Store: s, Sandbox: sb, Planner: remotePlanner, Executor: remote}
	run, err := job.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := digest(t, s, run); got != want {
		t.Fatalf("local run:\n%s\nremote run:\n%s", want, got)
	}
	t.Logf("both runs:\n%s", want)
	// The workers played the episodes. A worker the machine's load kept
	// from joining before the short run ended (it waits for the
	// coordinator's queue) joins it afterwards: wait for it.
	var jobs int64
	for _, name := range []string{"w1", "w2"} {
		var s WorkerStats
		waitFor(t, "worker "+name+" in the bucket", func() (ok bool) {
			s, ok = stats(t, remote, name)
			return ok
		})
		jobs += s.Jobs
	}
	if jobs == 0 {
		t.Fatal("the workers played no job")
	}
	if n := remote.verify.mismatches.Load() + remote.verify.quarantined.Load(); n != 0 {
		t.Fatalf("honest workers: %d mismatches or quarantines", n)
	}
}

// TestRunSurvivesKilledWorkers: three workers play a run; two are killed
// with SIGKILL while they hold jobs, and one is replaced. Their jobs go
// to the others after AckWait, and the run ends with the same records as
// the same run played locally: the same champion, every evaluation and
// match with its local result (nothing lost), every rating's history and
// the episode count as locally (nothing counted twice).
func TestRunSurvivesKilledWorkers(t *testing.T) {
	want := localDigest(t)
	s := openStore(t)
	srv := startServer(t)
	// Every episode is held 300 ms first, so that a worker the
	// statistics show busy still holds its job when it is killed.
	hold := envWorkerHold + "=300ms"
	doomed := []*worker{startWorker(t, srv.url(), "doomed-1", 1, hold), startWorker(t, srv.url(), "doomed-2", 1, hold)}
	startWorker(t, srv.url(), "survivor", 1, hold)
	remote := newRemote(t, srv.url())
	job := &evolve.Job{Config: remoteCfg, Store: s, Sandbox: newSandbox(t), Planner: remotePlanner, Executor: remote}
	type outcome struct {
		run *store.Run
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		run, err := job.Run(context.Background())
		done <- outcome{run, err}
	}()
	// Mid-run: each doomed worker has played a job and holds another.
	waitFor(t, "both doomed workers to be busy after a job", func() bool {
		for _, name := range []string{"doomed-1", "doomed-2"} {
			if st, ok := stats(t, remote, name); !ok || st.Jobs == 0 || st.Busy == 0 {
				return false
			}
		}
		return true
	})
	select {
	case out := <-done:
		t.Fatalf("the run ended (%v) before the workers were killed", out.err)
	default:
	}
	for _, w := range doomed {
		w.cmd.Process.Signal(syscall.SIGKILL)
		<-w.exited
	}
	startWorker(t, srv.url(), "replacement", 1, hold)
	var out outcome
	waitFor(t, "the run to end", func() bool {
		select {
		case out = <-done:
			return true
		default:
			return false
		}
	})
	if out.err != nil {
		t.Fatal(out.err)
	}
	if got := digest(t, s, out.run); got != want {
		t.Fatalf("local run:\n%s\nremote run with two workers killed:\n%s", want, got)
	}
	st, _ := stats(t, remote, "replacement")
	t.Logf("the replacement played %d jobs", st.Jobs)
}

// slowPolicy spends a few milliseconds of CPU per agent and step: its
// episodes last seconds (with the cost budget off).
const slowPolicy = `package policy

import "ssd"

func Policy(v *ssd.View, agent int) int {
	x := 0
	for i := 0; i < 3000000; i++ {
		x += i ^ agent
	}
	if x == -1 {
		return 0
	}
	return v.GreedyAction(agent)
}
`

// episodeOf is a self-play episode of src (4 agents, Gathering's small
// map) under the limits of sb.
func episodeOf(t *testing.T, sb *sandbox.Sandbox, src string, steps int, seed uint64) *episode.Episode {
	t.Helper()
	env, err := episode.ResolveEnv("gathering", "small", 4, steps)
	if err != nil {
		t.Fatal(err)
	}
	return &episode.Episode{Env: episode.EnvSpec{EnvConfig: env.Config, MapText: env.Map.Text},
		Policies: []episode.Policy{{ID: store.SourceID(src), Source: src}}, Side: make([]int, 4),
		Seed: seed, Limits: episode.LimitsOf(sb)}
}

// played is an episode's result as the Arena reads it, in words.
func played(res *envs.Result, err error) string {
	if res == nil {
		return fmt.Sprintf("no result, %v", err)
	}
	return fmt.Sprintf("%d steps, returns %v, metrics %+v, error %v", res.Steps, res.Returns, res.Metrics, err)
}

func noCost(c *sandbox.Config) { c.CostBudget = -1 }

// TestWorkerKilledMidJob: a worker killed with SIGKILL while it plays a
// job never answers it; the job goes to the next worker after AckWait and
// the episode's result is the one played locally.
func TestWorkerKilledMidJob(t *testing.T) {
	sb := newSandbox(t, noCost)
	ep := episodeOf(t, sb, slowPolicy, 200, 3)
	local := &episode.Local{Sandbox: sb}
	defer local.Close()
	want := played(local.Play(context.Background(), ep)) // compiles the policy for the workers too

	srv := startServer(t)
	r := newRemote(t, srv.url())
	first := startWorker(t, srv.url(), "first", 1)
	var got string
	done := make(chan struct{})
	go func() {
		defer close(done)
		got = played(r.Play(context.Background(), ep))
	}()
	waitFor(t, "the first worker to take the job", func() bool {
		s, ok := stats(t, r, "first")
		return ok && s.Busy > 0
	})
	first.cmd.Process.Signal(syscall.SIGKILL)
	<-first.exited
	startWorker(t, srv.url(), "second", 1)
	waitFor(t, "the result", func() bool {
		select {
		case <-done:
			return true
		default:
			return false
		}
	})
	if got != want {
		t.Fatalf("after the kill: %s\nlocally: %s", got, want)
	}
	// The second worker played it (its statistics follow within a
	// heartbeat).
	var s WorkerStats
	waitFor(t, "the second worker's statistics", func() bool {
		s, _ = stats(t, r, "second")
		return s.Jobs > 0
	})
	if s.Jobs != 1 {
		t.Fatalf("the second worker played %d jobs, want the one the first died on", s.Jobs)
	}
}

// TestServerRestartMidRun: the NATS server stops while episodes are in
// the queue and in a worker's hands, and starts again with its state; the
// coordinator and the worker reconnect and every episode comes back with
// its local result.
func TestServerRestartMidRun(t *testing.T) {
	sb := newSandbox(t, noCost)
	local := &episode.Local{Sandbox: sb}
	defer local.Close()
	var eps []*episode.Episode
	var want []string
	for seed := range uint64(8) {
		ep := episodeOf(t, sb, slowPolicy, 30, seed)
		eps = append(eps, ep)
		want = append(want, played(local.Play(context.Background(), ep)))
	}
	srv := startServer(t)
	r := newRemote(t, srv.url())
	startWorker(t, srv.url(), "w", 1)
	got := make([]string, len(eps))
	var answered atomic.Int32
	var wg sync.WaitGroup
	for k, ep := range eps {
		wg.Go(func() {
			got[k] = played(r.Play(context.Background(), ep))
			answered.Add(1)
		})
	}
	waitFor(t, "two results", func() bool { return answered.Load() >= 2 })
	if answered.Load() == int32(len(eps)) {
		t.Fatal("every episode was answered before the restart: make them longer")
	}
	srv.stop()
	time.Sleep(500 * time.Millisecond) // the clients notice
	srv.start()
	waitFor(t, "every result", func() bool { return answered.Load() == int32(len(eps)) })
	wg.Wait()
	for k := range eps {
		if got[k] != want[k] {
			t.Errorf("seed %d after the restart: %s\nlocally: %s", k, got[k], want[k])
		}
	}
}

// TestPoisonJobs: jobs that can never be played come back as recorded
// failures (episode.ErrJobFailed), not as a hang: one every worker fails on
// (answered by the worker of its last delivery), one every worker dies on
// (answered by the coordinator from the server's advisory), one that does
// not decode, and one of a wrong shape (refused at once). The other jobs
// are played.
func TestPoisonJobs(t *testing.T) {
	sb := newSandbox(t, noCost)
	srv := startServer(t)
	r := newRemote(t, srv.url())
	stop := make(chan struct{})
	var supervised sync.WaitGroup
	supervised.Go(func() {
		// Workers that die on the poison seed, started again and again.
		for n := 0; ; n++ {
			w := startWorker(t, srv.url(), fmt.Sprintf("mortal-%d", n), 1, envWorkerCrash+"=666")
			select {
			case <-w.exited:
			case <-stop:
				return
			}
		}
	})
	defer func() {
		close(stop)
		supervised.Wait()
	}()
	ctx := context.Background()

	good := episodeOf(t, sb, slowPolicy, 5, 1)
	if _, err := r.Play(ctx, good); err != nil {
		t.Fatalf("a good job: %v", err)
	}

	impossible := episodeOf(t, sb, slowPolicy, 5, 2)
	impossible.Limits.StepTimeout = 2 * time.Hour // no sandbox can have it
	_, err := r.Play(ctx, impossible)
	if !errors.Is(err, episode.ErrJobFailed) || !strings.Contains(err.Error(), "failed on every delivery (2)") ||
		!strings.Contains(err.Error(), "longer than") {
		t.Fatalf("a job every worker fails on: %v", err)
	}

	deadly := episodeOf(t, sb, slowPolicy, 5, 666)
	_, err = r.Play(ctx, deadly)
	if !errors.Is(err, episode.ErrJobFailed) || !strings.Contains(err.Error(), "no worker finished the episode in 2 deliveries") {
		t.Fatalf("a job every worker dies on: %v", err)
	}
	waitFor(t, "the dead letter to be counted", func() bool { return r.dead.Load() == 1 })

	// Jobs sent by hand: one that does not decode (handed back, perhaps
	// for a worker of another version, then failed), one of a wrong shape
	// (refused at once).
	shapeless := episodeOf(t, sb, slowPolicy, 5, 4)
	shapeless.Side = shapeless.Side[:2]
	data, _ := json.Marshal(shapeless)
	for id, job := range map[string][]byte{"garbage": []byte("{not json"), shapeless.ID(): data} {
		if _, err := r.js.Publish(ctx, jobSubject("native", id), job); err != nil {
			t.Fatal(err)
		}
	}
	for id, want := range map[string]string{"garbage": "failed on every delivery (2)", shapeless.ID(): "refused the job: episode: 2 seats for 4 agents"} {
		var out *episode.Result
		waitFor(t, "an answer to a job sent by hand", func() bool {
			if d := r.lookup(ctx, id); d != nil {
				out = d.out
			}
			return out != nil
		})
		if out.Failure == nil || !strings.Contains(out.Failure.Message, want) {
			t.Errorf("job %.12s: %+v, want a failure with %q", id, out.Failure, want)
		}
	}
	if _, err := r.Play(ctx, good); err != nil {
		t.Fatalf("a good job after the poison: %v", err)
	}
}

// TestWorkerDrains: SIGTERM lets a worker finish the job in hand, answer
// it and stop, taking no other.
func TestWorkerDrains(t *testing.T) {
	sb := newSandbox(t, noCost)
	srv := startServer(t)
	r := newRemote(t, srv.url())
	w := startWorker(t, srv.url(), "drained", 1)
	ep := episodeOf(t, sb, slowPolicy, 100, 5)
	next := episodeOf(t, sb, slowPolicy, 100, 6)
	errs := make(chan error, 2)
	go func() { _, err := r.Play(context.Background(), ep); errs <- err }()
	waitFor(t, "the worker to take the job", func() bool {
		s, ok := stats(t, r, "drained")
		return ok && s.Busy > 0
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _, err := r.Play(ctx, next); errs <- err }()
	w.cmd.Process.Signal(syscall.SIGTERM)
	<-w.exited
	if w.cmd.ProcessState.ExitCode() != 0 {
		t.Fatalf("the drained worker exited with %v:\n%s", w.cmd.ProcessState, w.log())
	}
	select {
	case err := <-errs:
		if err != nil {
			t.Fatalf("the job in hand: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the job in hand was not answered")
	}
	waitFor(t, "the other job to wait in the queue", func() bool {
		qs, err := Queues(context.Background(), r.nc)
		return err == nil && len(qs) == 1 && qs[0].Waiting == 1 && qs[0].Running == 0
	})
	if s, _ := stats(t, r, "drained"); s.Name != "" {
		t.Errorf("a drained worker left its statistics: %+v", s)
	}
}

// TestCoordinatorRestart: a coordinator that stops while its jobs wait in
// the queue (killed, or abandoning a step) finds their results when it
// starts again, by their addresses, without playing them twice; and
// no more than InFlight jobs of a coordinator wait at once.
func TestCoordinatorRestart(t *testing.T) {
	sb := newSandbox(t, noCost)
	srv := startServer(t)
	nc, err := Connect(srv.url(), "first coordinator", Auth{})
	if err != nil {
		t.Fatal(err)
	}
	first, err := NewRemote(context.Background(), nc, RemoteConfig{Queue: testQueue, InFlight: 2, Verify: trusting})
	if err != nil {
		t.Fatal(err)
	}
	var eps []*episode.Episode
	for seed := range uint64(4) {
		eps = append(eps, episodeOf(t, sb, slowPolicy, 5, seed))
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for _, ep := range eps {
		wg.Go(func() { first.Play(ctx, ep) })
	}
	// No worker yet: two jobs wait, the others wait their turn.
	waitFor(t, "two jobs in the queue", func() bool {
		qs, err := Queues(context.Background(), nc)
		return err == nil && len(qs) == 1 && qs[0].Waiting == 2
	})
	time.Sleep(200 * time.Millisecond)
	if qs, _ := Queues(context.Background(), nc); qs[0].Waiting != 2 {
		t.Fatalf("with InFlight 2, %d jobs wait", qs[0].Waiting)
	}
	cancel() // the coordinator stops
	wg.Wait()
	first.Close()
	nc.Close()

	startWorker(t, srv.url(), "w", 1)
	second := newRemote(t, srv.url())
	waitFor(t, "the worker to play the two jobs", func() bool {
		s, _ := stats(t, second, "w")
		return s.Jobs == 2
	})
	local := &episode.Local{Sandbox: sb}
	defer local.Close()
	for k, ep := range eps {
		got := played(second.Play(context.Background(), ep))
		if want := played(local.Play(context.Background(), ep)); got != want {
			t.Errorf("episode %d: %s\nlocally: %s", k, got, want)
		}
	}
	waitFor(t, "the worker's statistics", func() bool {
		s, _ := stats(t, second, "w")
		return s.Jobs >= 4
	})
	time.Sleep(time.Second) // heartbeats: a late one can only count fewer
	if s, _ := stats(t, second, "w"); s.Jobs != 4 {
		t.Fatalf("the worker played %d jobs for 4 episodes", s.Jobs)
	}
}

// TestLongJobStaysWithItsWorker: a job that plays for several AckWaits is
// not given to another slot meanwhile: its worker tells the server it is
// still at it. The job is long by construction: the worker holds it for
// three AckWaits before playing it.
func TestLongJobStaysWithItsWorker(t *testing.T) {
	if slowFor < 3*patientQueue.AckWait {
		t.Fatalf("slowFor %v is not three AckWaits (%v)", slowFor, patientQueue.AckWait)
	}
	sb := newSandbox(t, noCost)
	ep := episodeOf(t, sb, slowPolicy, 20, 9)
	local := &episode.Local{Sandbox: sb}
	defer local.Close()
	want := played(local.Play(context.Background(), ep))
	srv := startServer(t)
	nc, err := Connect(srv.url(), "coordinator", Auth{})
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	r, err := NewRemote(context.Background(), nc, RemoteConfig{Queue: patientQueue, Verify: trusting})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	startWorker(t, srv.url(), "patient", 2, envWorkerSlow+"=9") // a second slot would take a redelivery
	start := time.Now()
	if got := played(r.Play(context.Background(), ep)); got != want {
		t.Fatalf("%s\nlocally: %s", got, want)
	}
	if took := time.Since(start); took < slowFor {
		t.Fatalf("the job took %v: the worker did not hold it for %v", took, slowFor)
	}
	// Once idle, the worker has played the job once: a redelivery would
	// have reached its second slot while the first held it.
	var s WorkerStats
	waitFor(t, "the worker to be idle", func() bool {
		s, _ = stats(t, r, "patient")
		return s.Jobs > 0 && s.Busy == 0
	})
	if s.Jobs != 1 {
		t.Fatalf("the worker played the job %d times", s.Jobs)
	}
}
