package evolve

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"policyevolve/evolve/episode"
	"policyevolve/evolve/internal/evolvetest"
	"policyevolve/evolve/planner"
	"policyevolve/evolve/timing"
	"policyevolve/internal/storetest"
	"policyevolve/llm"
	"policyevolve/sandbox"
	"policyevolve/store"
)

// newJob is a small offline job on a fresh, checked store.
func newJob(t *testing.T, cfg JobConfig) *Job {
	t.Helper()
	return newJobAt(t, filepath.Join(t.TempDir(), "job.db"), cfg)
}

// newJobAt is a job on the store at path, checked when the test ends.
func newJobAt(t *testing.T, path string, cfg JobConfig) *Job {
	t.Helper()
	s := storetest.Open(t, path)
	sb, err := sandbox.New(sandbox.Config{Backend: sandbox.Native, CacheDir: evolvetest.CacheDir})
	if err != nil {
		t.Fatal(err)
	}
	return &Job{Config: cfg, Store: s, Sandbox: sb, Planner: grammarOnly}
}

func grammarOnly(spec, run string, _ llm.Gate) (planner.Planner, error) {
	return &planner.GrammarPlanner{PopSize: 4, Generations: 1}, nil
}

// tinyConfig is a job of a few seconds.
func tinyConfig(mode string) JobConfig {
	return JobConfig{Mode: mode, Game: "gathering", Map: "small", Agents: 4, Steps: 100, Seed: 7,
		EvalSeeds: []uint64{0, 1}, Iterations: 2, Candidates: 2, LocalRounds: On(1)}
}

func TestPopulationJob(t *testing.T) {
	j := newJob(t, tinyConfig(ModePopulation))
	var events []Event
	j.Events = ReporterFunc(func(e Event) { events = append(events, e) })
	run, err := j.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if run.Status != store.StatusDone || run.Iterations != 2 || run.Champion == "" {
		t.Fatalf("run %+v", run)
	}
	var its []store.Iteration
	j.Store.View(func(tx *store.Tx) (err error) {
		its, err = tx.Iterations(run.ID)
		return err
	})
	for _, it := range its {
		t.Logf("iteration %d: champion %.12s %+v", it.Index, it.Champion, it.Best)
		for _, c := range it.Candidates {
			t.Logf("  %d %s %.12s win %.2f elo %.0f eff %.3f %s", c.Sample, c.Status, c.Policy, c.WinRate, c.Elo, c.Metrics.Efficiency, c.Problem)
		}
	}
	t.Logf("%d events, usage %+v", len(events), run.Usage)
	// The profile accounts for every episode: the baselines' evaluations
	// when the pool was seeded, then the iterations'.
	prof := j.Profile()
	t.Logf("profile: %s", prof)
	if want := run.Usage.Episodes + len(episode.Baselines)*len(j.Config.EvalSeeds); prof.Episodes != want {
		t.Errorf("profile counts %d episodes, the run %d and the baselines %d", prof.Episodes, run.Usage.Episodes, want-run.Usage.Episodes)
	}
	for _, a := range []timing.Activity{timing.Planning, timing.Checking, timing.Compiling, timing.Playing, timing.Storing} {
		if prof.Busy[a] <= 0 {
			t.Errorf("no time spent %s: %s", a, prof)
		}
	}
	var last *Event
	for i := range events {
		if events[i].Kind == EventIterationDone {
			last = &events[i]
		}
	}
	if last == nil || last.Profile == nil || last.Profile.Episodes <= 0 {
		t.Errorf("the last iteration-done event has no profile: %+v", last)
	}
}

func TestChainJob(t *testing.T) {
	j := newJob(t, tinyConfig(ModeChain))
	var events []Event
	j.Events = ReporterFunc(func(e Event) { events = append(events, e) })
	run, err := j.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if run.Status != store.StatusDone || run.Iterations != 3 || run.Champion == "" {
		t.Fatalf("run %+v", run)
	}
	// The events count the chain's iterations (K refinements after the
	// first: K+1), so progress never reads "iteration 3/2".
	for _, e := range events {
		if e.Iterations != 3 {
			t.Fatalf("%s event counts %d iterations, want 3", e.Kind, e.Iterations)
		}
	}
}

// jobOutcome is what a run leaves: its champion and the global pool with
// every member's rating.
func jobOutcome(t *testing.T, j *Job, run *store.Run) string {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "champion %s after %d iterations\n", run.Champion, run.Iterations)
	err := j.Store.View(func(tx *store.Tx) error {
		ms, err := tx.Members(j.arena.GlobalPool())
		if err != nil {
			return err
		}
		for _, m := range ms {
			r, err := tx.Rating(j.arena.GlobalPool(), m.Policy)
			if err != nil {
				return err
			}
			fmt.Fprintf(&b, "%s %.9f %d\n", m.Policy, r.Elo, r.Games)
		}
		its, err := tx.Iterations(run.ID)
		for _, it := range its {
			for _, c := range it.Candidates {
				fmt.Fprintf(&b, "%d/%d %s %s %.6f\n", it.Index, c.Sample, c.Status, c.Policy, c.WinRate)
			}
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestJobWorkersDoNotChangeTheResult: 1 and 4 workers end with the same
// champion, pool and ratings.
func TestJobWorkersDoNotChangeTheResult(t *testing.T) {
	var outcomes []string
	for _, workers := range []int{1, 4} {
		cfg := tinyConfig(ModePopulation)
		cfg.Workers = workers
		cfg.PlannerConcurrency = workers
		j := newJob(t, cfg)
		run, err := j.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		outcomes = append(outcomes, jobOutcome(t, j, run))
	}
	if outcomes[0] != outcomes[1] {
		t.Fatalf("1 worker:\n%s\n4 workers:\n%s", outcomes[0], outcomes[1])
	}
}

// jobHost is TestResumeAfterKill's child: it runs the tiny job (GEPA's
// with EVOLVE_TEST_MODE=gepa) with workers (0: the CPUs) on the store at
// path and prints each phase as it begins, to be killed there.
func jobHost(path, cache string, workers int) int {
	s, err := store.Open(path, store.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	sb, err := sandbox.New(sandbox.Config{Backend: sandbox.Native, CacheDir: cache})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	cfg := tinyConfig(ModePopulation)
	switch os.Getenv("EVOLVE_TEST_MODE") {
	case ModeGEPA:
		cfg = gepaConfig()
	case "exploit":
		cfg = exploitConfig(ModePopulation)
	}
	cfg.Workers = workers
	j := &Job{Config: cfg, Store: s, Sandbox: sb, Planner: grammarOnly}
	j.Events = ReporterFunc(func(e Event) {
		if e.Kind == EventPhase {
			fmt.Printf("%d %s\n", e.Iteration, e.Phase)
		}
	})
	if _, err := j.Run(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// TestResumeAfterKill: a job killed with SIGKILL in the middle of an
// iteration (while it proposes, refines, evaluates or challenges) resumes and ends
// with the same champion, pool and ratings as an uninterrupted run of the
// same seed, with 1 worker or 4.
func TestResumeAfterKill(t *testing.T) {
	resumeAfterKill(t, ModePopulation, tinyConfig(ModePopulation), jobOutcome, "0 challenge@1", "1 propose@4", "1 refine@1", "1 evaluate@1", "1 evaluate@4")
}

// resumeAfterKill runs a job of cfg to its end, then, for each phase of
// ats, kills the same job (jobHost in mode) there, resumes it, and
// requires the same outcome. A phase may name the workers of the killed
// and the resumed job: "1 evaluate@4".
func resumeAfterKill(t *testing.T, mode string, cfg JobConfig, outcome func(*testing.T, *Job, *store.Run) string, ats ...string) {
	t.Helper()
	ref := newJob(t, cfg)
	refRun, err := ref.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := outcome(t, ref, refRun)
	for _, point := range ats {
		t.Run(strings.NewReplacer(" ", "_", "@", "_workers").Replace(point), func(t *testing.T) {
			at, w, _ := strings.Cut(point, "@")
			workers, _ := strconv.Atoi(w)
			path := filepath.Join(t.TempDir(), "killed.db")
			killChildAt(t, path, mode, at, workers)
			cfg := cfg
			cfg.Workers = workers
			j := newJobAt(t, path, cfg)
			j.RunID = "run-1"
			run, err := j.Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if got := outcome(t, j, run); got != want {
				t.Fatalf("killed at %q and resumed:\n%s\nuninterrupted:\n%s", at, got, want)
			}
		})
	}
}

// killChildAt runs jobHost on the store at path in a child process, in
// mode, and kills it with SIGKILL when it prints the phase at ("1
// propose").
func killChildAt(t *testing.T, path, mode, at string, workers int) {
	t.Helper()
	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), "EVOLVE_TEST_JOB="+path, "EVOLVE_TEST_CACHE="+evolvetest.CacheDir, "EVOLVE_TEST_MODE="+mode,
		fmt.Sprintf("EVOLVE_TEST_WORKERS=%d", workers))
	var stderr strings.Builder
	child.Stderr = &stderr
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	seen := false
	for !seen && sc.Scan() {
		seen = sc.Text() == at
	}
	child.Process.Signal(syscall.SIGKILL)
	err = child.Wait()
	// The kill must have come in the phase: a child that ended before
	// printing it (or ended by itself) tests no resume.
	if !seen {
		t.Fatalf("the child never reached phase %q (%v):\n%s", at, err, stderr.String())
	}
	if ws, ok := child.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("the child was not killed in phase %q: %v", at, err)
	}
}

// TestBudgetEndsTheIteration: a planner-call budget reached while the
// candidates are proposed still lets the iteration evaluate, challenge
// and close what was proposed, so the run has a champion.
func TestBudgetEndsTheIteration(t *testing.T) {
	cfg := tinyConfig(ModePopulation)
	cfg.MaxPlannerCalls = 3 // the first candidate and its local round, then one more
	j := newJob(t, cfg)
	run, err := j.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if run.Iterations != 1 || run.Champion == "" || !strings.Contains(run.StopReason, "planner-call budget") || run.Usage.Proposals != 3 {
		t.Fatalf("run %+v", run)
	}
	var its []store.Iteration
	if err := j.Store.View(func(tx *store.Tx) (err error) {
		its, err = tx.Iterations(run.ID)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if len(its) != 1 || !its[0].Done || its[0].Champion != run.Champion {
		t.Fatalf("iterations %+v", its)
	}
	for _, c := range its[0].Candidates {
		if c.Status == store.CandidateProposed || c.Status == store.CandidateEvaluated {
			t.Errorf("candidate %d left %s", c.Sample, c.Status)
		}
	}
}
