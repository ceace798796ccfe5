package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"policyevolve/distrib"
)

// stopNoWorkersAfter is how long an evolve --nats that was asked to stop
// waits for its episodes in flight while no worker is connected, before it
// abandons the step in flight as a second interrupt would (the run resumes
// from its last safe point). A variable for the tests.
var stopNoWorkersAfter = 30 * time.Second

// stopWatchEvery is how often a stopping coordinator looks at the queue.
const stopWatchEvery = 5 * time.Second

// watchStop runs while a coordinator that was asked to stop waits for its
// episodes in flight: it says at once, and again when the numbers change
// (or every half minute), how many episodes it waits for on how many
// workers and how to give up (resume: the command that resumes the run,
// or ""); when no worker has been connected for grace, it says so and
// calls abandon. It returns when ctx ends, or after abandon.
func watchStop(ctx context.Context, stats func(context.Context) (distrib.RemoteStats, error), resume func() string,
	every, grace time.Duration, w io.Writer, abandon func()) {
	last, said := "", time.Time{}
	var alone time.Time // since when no worker has been connected (zero: one is)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		s, err := stats(sctx)
		cancel()
		now := time.Now()
		if ctx.Err() != nil {
			return
		}
		if err == nil && s.Pending > 0 {
			if s.Workers > 0 {
				alone = time.Time{}
			} else if alone.IsZero() {
				alone = now
			}
			if !alone.IsZero() && now.Sub(alone) >= grace {
				fmt.Fprintf(w, "policyevolve evolve: no worker connected for %s with %d episode(s) in flight: abandoning the step in flight\n",
					shortDuration(grace), s.Pending)
				abandon()
				return
			}
			msg := fmt.Sprintf("waiting for %d episode(s) in flight on %d worker(s)", s.Pending, s.Workers)
			if msg != last || now.Sub(said) >= 30*time.Second {
				last, said = msg, now
				if s.Workers == 0 {
					msg += fmt.Sprintf(" (with none, it gives up after %s)", shortDuration(grace))
				}
				msg += "; Ctrl-C again to stop now"
				if r := resume(); r != "" {
					msg += "; the run resumes with: " + r
				}
				fmt.Fprintf(w, "policyevolve evolve: %s\n", msg)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
