package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"

	"policyevolve/distrib"
	"policyevolve/evolve"
	"policyevolve/internal/plural"
	"policyevolve/store"
)

// evolveProgress shows a job's events: JSON lines on stdout with --json; a
// progress bar on stderr when it is a terminal; else one plain line per
// iteration (and per candidate and notable event), which reads well in a
// log, and, off a terminal, a line saying where the job is whenever
// nothing was printed for progressEvery (heartbeat): a log is never
// silent for long, nor flooded.
//
// Iterations are numbered from 0, as everywhere (runs show, the report,
// the JSON events): "iteration 2 (3 of 5)" is the third of five.
type evolveProgress struct {
	mu    sync.Mutex
	out   io.Writer  // events as JSON, or nil
	w     io.Writer  // lines
	bar   *termBar   // on a terminal, once the job has started
	width func() int // the terminal's columns (terminalWidth)
	phase string
	best  string
	desc  string // the bar's description, without the queue
	queue string // the work queue's state, when episodes go to workers
	// quiet: no line of its own but the heartbeat's (compare, whose jobs
	// are one part of its work); prefix starts the heartbeat's lines.
	quiet  bool
	prefix string
	// Where the job is, for the heartbeat.
	clock                  clock
	run                    string
	iteration, total, done int // the iteration in hand; the run's count; finished
	planned, settled       int // its candidates: planned, settled so far
	begun, iterationBegun  time.Time
	lastLine               time.Time // when a line was last printed
	note                   string    // what the command does besides the job, when no job runs
	activity               func() (plannerCalls, episodes int)
	started                bool // a job has reported started
}

// progressEvery is how long a log may stay silent: then a progress line.
const progressEvery = 30 * time.Second

func newEvolveProgress(stdout, stderr io.Writer, asJSON bool) *evolveProgress {
	p := &evolveProgress{w: stderr, clock: realClock{}, iteration: -1}
	p.width = func() int { return terminalWidth(p.w) }
	if asJSON {
		p.out = stdout
	}
	p.begun, p.lastLine = p.clock.Now(), p.clock.Now()
	return p
}

// Report implements evolve.Reporter.
func (p *evolveProgress) Report(e evolve.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.track(e)
	if p.out != nil {
		json.NewEncoder(p.out).Encode(e)
		return
	}
	if p.quiet {
		return
	}
	total := max(e.Iterations, 1)
	if p.bar == nil && isTerminal(p.w) && e.Kind != evolve.EventDone && e.Kind != evolve.EventStopped {
		p.bar = newTermBar(p.w, p.width, p.clock, total)
		p.bar.set(e.Completed)
	}
	usage := plural.N(e.Usage.Proposals, "call")
	if e.Usage.LLMCalls > 0 {
		usage += fmt.Sprintf(", %d LLM, %s", e.Usage.LLMCalls, e.Usage.CostWords())
	}
	switch e.Kind {
	case evolve.EventStarted:
		p.line(fmt.Sprintf("%s: %s, objective %s", e.Run, e.Message, e.Objective))
	case evolve.EventPhase:
		p.describe(fmt.Sprintf("iteration %d (%d of %d) %s — %s — %s", e.Iteration, e.Iteration+1, total, p.phase, p.best, usage))
	case evolve.EventCandidate:
		if c := e.Candidate; p.bar == nil && c != nil {
			p.line("  " + candidateLine(c))
		}
	case evolve.EventIterationDone:
		if e.ChampionMetrics != nil && e.Champion != "" {
			p.best = fmt.Sprintf("champion by %s %.8s efficiency %.3f", e.Objective, e.Champion, e.ChampionMetrics.Efficiency)
			if len(e.ChampionSeeds) > 0 {
				p.best += " on seeds " + seedWords(e.ChampionSeeds)
			}
			if e.ChampionRechecked != nil {
				p.best += fmt.Sprintf(" (%.3f on seeds %s, rechecked)", *e.ChampionRechecked, seedWords(e.RecheckedSeeds))
			}
			if e.ChampionElo != 0 {
				p.best += fmt.Sprintf(" Elo %.0f", e.ChampionElo)
			}
		}
		if b := e.BestCandidate; b != nil && b.Policy != e.Champion && p.bar == nil {
			line := fmt.Sprintf("  best candidate of the iteration %.8s efficiency %.3f", b.Policy, b.Metrics.Efficiency)
			if b.Elo != 0 {
				line += fmt.Sprintf(" Elo %.0f", b.Elo)
			}
			p.line(line)
		}
		if p.bar != nil {
			p.bar.done = min(e.Completed, p.bar.total)
			p.describe(fmt.Sprintf("iteration %d done (%d of %d) — %s — %s", e.Iteration, e.Completed, total, p.best, usage))
		} else {
			p.line(fmt.Sprintf("iteration %d done (%d of %d): %s — %s", e.Iteration, e.Completed, total, p.best, usage))
			if e.Profile != nil {
				p.line(fmt.Sprintf("  time: %s", e.Profile))
			}
		}
	case evolve.EventStopped:
		p.line(fmt.Sprintf("%s stopped: %s — %s (%d of %d)", e.Run, e.Message, evolve.IterationsDone(e.Completed), e.Completed, total))
	}
}

// candidateLine says what became of a candidate, and why when it was not
// played: "candidate 1: skipped — time budget reached (1s)".
func candidateLine(c *store.Candidate) string {
	s := fmt.Sprintf("candidate %d: %s", c.Sample, c.Status)
	if c.Policy != "" {
		s += fmt.Sprintf(" %.12s", c.Policy)
	}
	switch c.Status {
	case store.CandidatePromoted, store.CandidateRejected:
		s += fmt.Sprintf(" (win rate %.2f, Elo %.0f)", c.WinRate, c.Elo)
	}
	switch c.Status {
	case store.CandidateEvaluated, store.CandidatePromoted, store.CandidateRejected:
		s += fmt.Sprintf(" efficiency %.3f", c.Metrics.Efficiency)
	}
	if c.Invasion != nil {
		s += "; " + invasionWords(c.Invasion)
	}
	if c.Invader != nil {
		s += fmt.Sprintf("; invader return %.1f", *c.Invader)
	}
	if c.Problem != "" && c.Status != store.CandidatePromoted {
		s += " — " + oneLine(c.Problem, 200)
	}
	return s
}

// track keeps where the job is, for the heartbeat. The caller holds mu.
func (p *evolveProgress) track(e evolve.Event) {
	now := p.clock.Now()
	p.run, p.total, p.done = e.Run, e.Iterations, e.Completed
	switch e.Kind {
	case evolve.EventStarted:
		p.started, p.iteration, p.phase, p.iterationBegun, p.note = true, e.Completed, "planning", now, ""
	case evolve.EventIteration:
		p.iteration, p.planned, p.settled, p.phase = e.Iteration, e.Planned, 0, "playing"
	case evolve.EventPhase:
		p.iteration, p.phase = e.Iteration, e.Phase
	case evolve.EventCandidate:
		p.settled++
	case evolve.EventIterationDone:
		p.iteration, p.phase, p.iterationBegun = e.Iteration+1, "planning", now
	case evolve.EventStopped, evolve.EventDone:
		p.started, p.note, p.begun = false, fmt.Sprintf("%s %s (%s); finishing", e.Run, e.Kind, evolve.IterationsDone(e.Completed)), now
	}
}

// status says where the job is, in a line: what phase of which
// iteration, how far, for how long. The caller holds mu.
func (p *evolveProgress) status() string {
	now := p.clock.Now()
	if !p.started {
		what := p.note
		if what == "" {
			what = "preparing the run (pool baselines, planners)"
		}
		if p.activity != nil && p.quiet {
			_, episodes := p.activity()
			what += fmt.Sprintf("; %s so far", plural.N(episodes, "episode"))
		}
		return fmt.Sprintf("%s%s — %s", p.prefix, what, shortDuration(now.Sub(p.begun).Round(time.Second)))
	}
	s := fmt.Sprintf("%s%s: iteration %d (%d of %d), %s", p.prefix, p.run, p.iteration, p.iteration+1, max(p.total, 1), p.phase)
	if p.planned > 0 && p.phase != "planning" {
		s += fmt.Sprintf(": %d of %d candidates settled", p.settled, p.planned)
	}
	if p.activity != nil {
		calls, episodes := p.activity()
		s += fmt.Sprintf("; %s and %s so far", plural.N(calls, "planner call"), plural.N(episodes, "episode"))
	}
	return s + fmt.Sprintf(" — %s into the iteration", shortDuration(now.Sub(p.iterationBegun).Round(time.Second)))
}

// heartbeat prints status off a terminal whenever nothing was printed
// for every, until the returned function is called. On a terminal the
// bar shows where the job is, redrawn every barEvery (its elapsed time
// moves while no event comes).
func (p *evolveProgress) heartbeat(every time.Duration) (stop func()) {
	if isTerminal(p.w) && p.out == nil {
		return p.redraws(barEvery)
	} else if isTerminal(p.w) {
		return func() {}
	}
	return p.tick(every, func() { p.beat(every) })
}

// barEvery is how often the bar is redrawn without an event.
const barEvery = time.Second

// redraws redraws the bar every every, until the returned function is
// called.
func (p *evolveProgress) redraws(every time.Duration) (stop func()) {
	return p.tick(every, func() {
		p.mu.Lock()
		if p.bar != nil {
			p.bar.draw()
		}
		p.mu.Unlock()
	})
}

// tick calls f every every (on the progress clock), in a goroutine of
// its own, until the returned function is called; that function returns
// once f can no longer run.
func (p *evolveProgress) tick(every time.Duration, f func()) (stop func()) {
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-quit:
				return
			case <-p.clock.After(every):
			}
			f()
		}
	}()
	return func() {
		close(quit)
		<-done
	}
}

// beat prints status if nothing was printed for every.
func (p *evolveProgress) beat(every time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.clock.Now().Sub(p.lastLine) >= every {
		fmt.Fprintln(p.w, p.status())
		p.lastLine = p.clock.Now()
	}
}

// setActivity hands in what counts the job's planner calls and episodes.
func (p *evolveProgress) setActivity(f func() (int, int)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.activity = f
}

// setNote says what the command does when no job runs (compare's
// league, say), for the heartbeat.
func (p *evolveProgress) setNote(s string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.note, p.begun = s, p.clock.Now()
}

func (p *evolveProgress) describe(s string) {
	p.desc = s
	if p.bar != nil {
		if p.queue != "" {
			s += " — " + p.queue
		}
		p.bar.describe(termSafe(s))
	}
}

// logf prints a line (above the bar, if any).
// runID is the id of the run in hand ("" before it starts).
func (p *evolveProgress) runID() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.run
}

func (p *evolveProgress) logf(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.line(fmt.Sprintf(format, args...))
}

// queueEvery is how often the work queue's state is shown: every two
// seconds in the bar on a terminal, else as a line every half minute.
func (p *evolveProgress) queueEvery() time.Duration {
	if isTerminal(p.w) && p.out == nil {
		return 2 * time.Second
	}
	return 30 * time.Second
}

// watchQueue shows the state of the work queue every so often while the
// job runs: in the bar's description, or as a line while episodes wait
// (with --json, not at all). Call the returned function to stop.
func (p *evolveProgress) watchQueue(stats func(context.Context) (distrib.RemoteStats, error), every time.Duration) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		last := ""
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			sctx, scancel := context.WithTimeout(ctx, 10*time.Second)
			s, err := stats(sctx)
			scancel()
			if err != nil {
				continue
			}
			p.mu.Lock()
			p.queue = s.String()
			switch {
			case p.bar != nil:
				p.describe(p.desc)
			case p.out == nil && s.Pending > 0 && p.queue != last:
				fmt.Fprintf(p.w, "  %s\n", p.queue)
				p.lastLine = p.clock.Now()
				last = p.queue
			}
			p.mu.Unlock()
		}
	}()
	return func() {
		cancel()
		<-done
	}
}

// line prints a line above the bar, if any. The caller holds mu.
func (p *evolveProgress) line(s string) {
	if p.bar != nil {
		p.bar.clear()
	}
	fmt.Fprintln(p.w, termSafe(s)) // refusals quote what policies wrote
	p.lastLine = p.clock.Now()
	if p.bar != nil {
		p.bar.draw()
	}
}

// close ends the bar's line, the bar left as the job left it (a run
// stopped after 1 of 3 iterations shows 33%, not 100%).
func (p *evolveProgress) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		p.bar.finish()
	}
}
