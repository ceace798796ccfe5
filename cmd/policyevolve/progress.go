package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"

	"policyevolve/distrib"
	"policyevolve/evolve"
)

// evolveProgress shows a job's events: JSON lines on stdout with --json; a
// progress bar on stderr when it is a terminal; else one plain line per
// iteration (and per notable event), which reads well in a log.
type evolveProgress struct {
	mu    sync.Mutex
	out   io.Writer // events as JSON, or nil
	w     io.Writer // lines
	bar   *progressbar.ProgressBar
	phase string
	best  string
	desc  string // the bar's description, without the queue
	queue string // the work queue's state, when episodes go to workers
}

func newEvolveProgress(stdout, stderr io.Writer, asJSON bool) *evolveProgress {
	p := &evolveProgress{w: stderr}
	if asJSON {
		p.out = stdout
	}
	return p
}

// Report implements evolve.Reporter.
func (p *evolveProgress) Report(e evolve.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.out != nil {
		json.NewEncoder(p.out).Encode(e)
		return
	}
	total := e.Iterations
	if total == 0 {
		total = 1
	}
	if p.bar == nil && isTerminal(p.w) && e.Kind != evolve.EventDone && e.Kind != evolve.EventStopped {
		p.bar = progressbar.NewOptions(total,
			// A plain writer: progressbar syncs an *os.File on every redraw.
			progressbar.OptionSetWriter(struct{ io.Writer }{p.w}),
			progressbar.OptionShowCount(),
			progressbar.OptionSetItsString("iterations"),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionFullWidth(),
		)
	}
	usage := fmt.Sprintf("%d calls", e.Usage.Proposals)
	if e.Usage.LLMCalls > 0 {
		usage += fmt.Sprintf(", %d LLM, %s", e.Usage.LLMCalls, costWords(e.Usage))
	}
	switch e.Kind {
	case evolve.EventStarted:
		p.line(fmt.Sprintf("%s: %s", e.Run, e.Message))
	case evolve.EventPhase:
		p.phase = e.Phase
		p.describe(fmt.Sprintf("iteration %d/%d %s — %s — %s", e.Iteration+1, total, p.phase, p.best, usage))
	case evolve.EventCandidate:
		c := e.Candidate
		if p.bar == nil && c != nil {
			fmt.Fprintf(p.w, "  candidate %d: %s", c.Sample, c.Status)
			if c.Policy != "" {
				fmt.Fprintf(p.w, " %.12s", c.Policy)
			}
			if c.Status == "promoted" || c.Status == "rejected" {
				fmt.Fprintf(p.w, " (win rate %.2f, Elo %.0f)", c.WinRate, c.Elo)
			}
			if c.Status == "evaluated" || c.Status == "promoted" || c.Status == "rejected" {
				fmt.Fprintf(p.w, " efficiency %.3f", c.Metrics.Efficiency)
			}
			if c.Problem != "" {
				fmt.Fprintf(p.w, ": %s", oneLine(c.Problem, 200))
			}
			fmt.Fprintln(p.w)
		}
	case evolve.EventIterationDone:
		if e.Best != nil && e.Champion != "" {
			p.best = fmt.Sprintf("champion %.8s efficiency %.3f", e.Champion, e.Best.Efficiency)
			if e.BestElo != 0 {
				p.best += fmt.Sprintf(" Elo %.0f", e.BestElo)
			}
		}
		if p.bar != nil {
			p.bar.Describe(fmt.Sprintf("iteration %d/%d done — %s — %s", e.Iteration+1, total, p.best, usage))
			p.bar.Set(e.Iteration + 1)
		} else {
			fmt.Fprintf(p.w, "iteration %d/%d: %s — %s\n", e.Iteration+1, total, p.best, usage)
			if e.Profile != nil {
				fmt.Fprintf(p.w, "  time: %s\n", e.Profile)
			}
		}
	case evolve.EventStopped:
		p.line(fmt.Sprintf("%s stopped: %s", e.Run, e.Message))
	}
}

func (p *evolveProgress) describe(s string) {
	p.desc = s
	if p.bar != nil {
		if p.queue != "" {
			s += " — " + p.queue
		}
		p.bar.Describe(s)
	}
}

// logf prints a line (above the bar, if any).
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

// line prints a line above the bar, if any.
func (p *evolveProgress) line(s string) {
	if p.bar != nil {
		p.bar.Clear()
	}
	fmt.Fprintln(p.w, s)
}

// close ends the bar's line.
func (p *evolveProgress) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		p.bar.Finish()
		fmt.Fprintln(p.w)
	}
}
