package main

import (
	"strings"
	"testing"
	"time"

	"policyevolve/evolve"
	"policyevolve/store"
)

// waitFor waits (generously: a slow machine may take its time) until
// what was written since mark contains want, and returns the offset
// after it.
func (s *screen) waitFor(t *testing.T, mark int, want string) int {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		text := s.String()
		if i := strings.Index(text[mark:], want); i >= 0 {
			return mark + i + len(want)
		}
		if time.Now().After(deadline) {
			t.Fatalf("the terminal never showed %q; it shows:\n%q", want, text[mark:])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestProgressBarOnATerminal: on a terminal of 100 columns the bar counts
// the iterations completed (1 of 3 done: 33%), is redrawn by its own
// ticker with the elapsed time moving while no event comes, keeps a bar
// beside a champion line longer than the terminal, and is left at 33%
// when the run stops there (not 100%).
func TestProgressBarOnATerminal(t *testing.T) {
	const cols = 100
	master, tty := openPTY(t, cols, 40)
	scr := readScreen(master)
	c := &stepClock{t: time.Unix(1000, 0), tick: make(chan time.Time)}
	p := newEvolveProgress(nil, tty, false)
	p.clock, p.begun, p.lastLine = c, c.Now(), c.Now()
	if p.bar != nil || !isTerminal(tty) || terminalWidth(tty) != cols {
		t.Fatalf("the pseudo-terminal is not seen as one of %d columns (%d)", cols, terminalWidth(tty))
	}
	stop := p.heartbeat(progressEvery)
	defer stop()

	p.Report(evolve.Event{Kind: evolve.EventStarted, Run: "run-1", Iterations: 3, Objective: "welfare", Message: "new run of 3 iterations (0–2)"})
	p.Report(evolve.Event{Kind: evolve.EventPhase, Run: "run-1", Iteration: 0, Iterations: 3, Phase: "propose"})
	mark := scr.waitFor(t, 0, "0% (0/3 iterations) 0s")

	// No event for 65 s: the ticker redraws with the time moved on.
	c.advance(65 * time.Second)
	c.tick <- c.Now()
	mark = scr.waitFor(t, mark, "0% (0/3 iterations) 1m5s")

	p.Report(evolve.Event{Kind: evolve.EventIterationDone, Run: "run-1", Iteration: 0, Iterations: 3, Completed: 1,
		Objective: "welfare", Champion: "0123456789abcdef", ChampionMetrics: &store.Metrics{Efficiency: 1.5}, ChampionElo: 1523,
		Usage: store.RunUsage{Proposals: 12, LLMCalls: 12}})
	mark = scr.waitFor(t, mark, "iteration 0 done (1 of 3) — champion by welfare 01234567")
	mark = scr.waitFor(t, mark, "33% (1/3 iterations) 1m5s")
	p.Report(evolve.Event{Kind: evolve.EventPhase, Run: "run-1", Iteration: 1, Iterations: 3, Phase: "propose",
		Usage: store.RunUsage{Proposals: 12, LLMCalls: 12}})
	start := mark
	mark = scr.waitFor(t, mark, "33% (1/3 iterations) 1m5s")
	// Every line drawn fits the terminal and has its bar.
	drawn := scr.String()[start:mark]
	line := drawn[strings.LastIndex(drawn, "\r")+1:]
	if n := len([]rune(line)); n > cols-1 || !strings.Contains(line, "█") || !strings.Contains(line, "… [") {
		t.Errorf("a line of %d columns (terminal %d), cut with its bar: %q", n, cols, line)
	}

	p.Report(evolve.Event{Kind: evolve.EventStopped, Run: "run-1", Iteration: 0, Iterations: 3, Completed: 1, Message: "interrupted"})
	p.close()
	scr.waitFor(t, mark, "run-1 stopped: interrupted — iteration 0 done (1 of 3)")
	c.advance(time.Second)
	p.Report(evolve.Event{Kind: evolve.EventDone, Run: "run-1", Iterations: 3, Completed: 1})
	time.Sleep(100 * time.Millisecond)
	after := scr.String()[mark:]
	if strings.Contains(after, "100%") || !strings.Contains(after, "33% (1/3 iterations)") {
		t.Errorf("after the stop:\n%q", after)
	}
}
