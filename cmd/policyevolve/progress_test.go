package main

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"policyevolve/evolve"
	"policyevolve/store"
)

// stepClock is a clock the test moves; its After fires when the test
// sends on tick.
type stepClock struct {
	mu   sync.Mutex
	t    time.Time
	tick chan time.Time
}

func (c *stepClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}
func (c *stepClock) After(time.Duration) <-chan time.Time { return c.tick }
func (c *stepClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// TestProgressOffATerminal: the lines a log gets — iterations numbered
// from 0 with how far ("iteration 0 done (1 of 2)"), a skipped candidate
// with its reason, the stop with what is done — and, when nothing was
// printed for 30 s, one line saying where the job is: never silent for
// longer, never more often.
func TestProgressOffATerminal(t *testing.T) {
	var out bytes.Buffer
	c := &stepClock{t: time.Unix(1000, 0), tick: make(chan time.Time)}
	p := newEvolveProgress(nil, &out, false)
	p.clock, p.begun, p.lastLine = c, c.Now(), c.Now()
	p.activity = func() (int, int) { return 7, 40 }
	every := progressEvery

	var want []string
	check := func(step string) {
		t.Helper()
		got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
		if out.Len() == 0 {
			got = nil
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("%s: lines\n%s\nwant\n%s", step, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
	c.advance(31 * time.Second)
	p.beat(every)
	want = append(want, "preparing the run (pool baselines, planners) — 31s")
	check("before the run starts")

	p.Report(evolve.Event{Kind: evolve.EventStarted, Run: "run-1", Iterations: 2, Objective: "welfare", Message: "new run of 2 iterations (0–1)"})
	p.Report(evolve.Event{Kind: evolve.EventIteration, Run: "run-1", Iteration: 0, Iterations: 2, Planned: 2})
	p.Report(evolve.Event{Kind: evolve.EventPhase, Run: "run-1", Iteration: 0, Iterations: 2, Phase: "propose"})
	want = append(want, "run-1: new run of 2 iterations (0–1), objective welfare")
	check("started")
	c.advance(29 * time.Second)
	p.beat(every)
	check("29 s after a line: nothing")
	c.advance(2 * time.Second)
	p.beat(every)
	want = append(want, "run-1: iteration 0 (1 of 2), propose: 0 of 2 candidates settled; 7 planner calls and 40 episodes so far — 31s into the iteration")
	check("31 s after a line")

	c.advance(10 * time.Second)
	p.Report(evolve.Event{Kind: evolve.EventCandidate, Run: "run-1", Iteration: 0, Iterations: 2,
		Candidate: &store.Candidate{Sample: 1, Status: store.CandidateSkipped, Problem: "time budget reached (1s)"}})
	want = append(want, "  candidate 1: skipped — time budget reached (1s)")
	check("a skipped candidate says why")
	c.advance(25 * time.Second)
	p.beat(every)
	check("25 s after the candidate's line: nothing")

	rechecked := 1.475 // its mean over the evaluation and recheck seeds
	p.Report(evolve.Event{Kind: evolve.EventIterationDone, Run: "run-1", Iteration: 0, Iterations: 2, Completed: 1,
		Objective: "welfare", Champion: "0123456789abcdef", ChampionMetrics: &store.Metrics{Efficiency: 1.5}, ChampionRechecked: &rechecked,
		ChampionSeeds: []uint64{0, 1, 2}, RecheckedSeeds: []uint64{0, 1, 2, 3, 4, 5},
		Usage: store.RunUsage{Proposals: 3}})
	p.Report(evolve.Event{Kind: evolve.EventStopped, Run: "run-1", Iteration: 0, Iterations: 2, Completed: 1, Message: "time budget reached (1s)"})
	want = append(want, "iteration 0 done (1 of 2): champion by welfare 01234567 efficiency 1.500 on seeds 0–2 (1.475 on seeds 0–5, rechecked) — 3 calls",
		"run-1 stopped: time budget reached (1s) — iteration 0 done (1 of 2)")
	check("iteration done and stopped")

	// The heartbeat's own goroutine: a tick after 30 s of silence prints.
	c.advance(45 * time.Second)
	stop := p.heartbeat(every)
	c.tick <- c.Now()
	stop()
	if !strings.HasSuffix(out.String(), "\nrun-1 stopped (iteration 0 done); finishing — 45s\n") || strings.Count(out.String(), "\n") != len(want)+1 {
		t.Errorf("heartbeat:\n%s", out.String())
	}
}

// TestProgressJSONDoneEvent: --json's events carry the numbering: the
// done event of a run of 3 iterations says iteration 2, completed 3.
func TestProgressJSONDoneEvent(t *testing.T) {
	db := t.TempDir() + "/e.db"
	events, run := evolveEvents(t, "--store", db, "--game", "gathering", "--map", "small", "--agents", "2",
		"--steps", "50", "--seeds", "0", "--mode", "chain", "--iterations", "2")
	last := events[len(events)-1]
	if last.Kind != evolve.EventDone || last.Iteration != 2 || last.Completed != 3 || last.Iterations != 3 || run.Iterations != 3 {
		t.Errorf("done event %+v; run %d iterations", last, run.Iterations)
	}
	var seen []int
	for _, e := range events {
		if e.Kind == evolve.EventIterationDone {
			seen = append(seen, e.Iteration)
			if e.Completed != e.Iteration+1 || e.Iterations != 3 {
				t.Errorf("iteration-done %d: completed %d of %d", e.Iteration, e.Completed, e.Iterations)
			}
		}
	}
	if len(seen) != 3 || seen[0] != 0 || seen[2] != 2 {
		t.Errorf("iterations done %v, want 0 1 2", seen)
	}

	// Resuming a run that is done is nothing to do, said so, and no error.
	code, out, errOut := runCLI(t, context.Background(), "evolve", "--resume", run.ID, "--store", db)
	if code != exitOK || !strings.Contains(errOut, run.ID+" is done already (iterations 0–2 done): nothing to resume") ||
		!strings.Contains(out, "run "+run.ID+": done — iterations 0–2 done (3 of 3)") || strings.Contains(out, "--resume") {
		t.Errorf("resume of a done run: exit %d\n%s%s", code, out, errOut)
	}
}

// TestProgressOfACommandThatPlays: league, match and pool import say
// what they do and how many episodes they played, when silent for 30 s.
func TestProgressOfACommandThatPlays(t *testing.T) {
	var out bytes.Buffer
	c := &stepClock{t: time.Unix(1000, 0)}
	p := newEvolveProgress(nil, &out, false)
	p.clock, p.begun, p.lastLine = c, c.Now(), c.Now()
	p.quiet, p.prefix, p.note = true, "league: ", "a round robin of global/gathering/small/4/100"
	p.activity = func() (int, int) { return 0, 12 }
	c.advance(20 * time.Second)
	p.logf("evaluated 0123456789ab: ok, efficiency 1.000, equality 1.000")
	c.advance(20 * time.Second)
	p.beat(progressEvery)
	c.advance(15 * time.Second)
	p.beat(progressEvery)
	want := "evaluated 0123456789ab: ok, efficiency 1.000, equality 1.000\n" +
		"league: a round robin of global/gathering/small/4/100; 12 episodes so far — 55s\n"
	if out.String() != want {
		t.Errorf("lines:\n%swant:\n%s", out.String(), want)
	}
}

// TestProgressOfACommandWithoutArena: play, critique, transfer and invade
// say which step they are at, and for how long, when silent for 30 s.
func TestProgressOfACommandWithoutArena(t *testing.T) {
	var out bytes.Buffer
	c := &stepClock{t: time.Unix(1000, 0)}
	p := newEvolveProgress(nil, &out, false)
	p.clock, p.begun, p.lastLine = c, c.Now(), c.Now()
	p.quiet, p.prefix, p.note = true, "transfer: ", "starting"
	w := &silenceWatch{p: p}
	c.advance(5 * time.Second)
	w.doing("playing on map %s (%d of %d maps, %d seeds each)", "small", 2, 6, 5)
	c.advance(25 * time.Second)
	p.beat(progressEvery) // 30 s of silence, 25 s on this map
	c.advance(10 * time.Second)
	p.beat(progressEvery) // a line 10 s ago: nothing
	want := "transfer: playing on map small (2 of 6 maps, 5 seeds each) — 25s\n"
	if out.String() != want {
		t.Errorf("lines:\n%swant:\n%s", out.String(), want)
	}
}

// TestCandidateLineSaysInvaderReturn: under the exploit objective a
// candidate's line says its score, the invader return; otherwise no such
// words.
func TestCandidateLineSaysInvaderReturn(t *testing.T) {
	r := 561.25
	for _, tc := range []struct {
		c    store.Candidate
		want string
		has  bool
	}{
		{store.Candidate{Sample: 1, Status: store.CandidateRejected, Policy: "abc", Invader: &r}, "; invader return 561.2", true},
		{store.Candidate{Sample: 1, Status: store.CandidateRejected, Policy: "abc"}, "invader return", false},
	} {
		if got := candidateLine(&tc.c); strings.Contains(got, tc.want) != tc.has {
			t.Errorf("%q: contains %q should be %v", got, tc.want, tc.has)
		}
	}
}
