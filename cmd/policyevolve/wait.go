package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/nats-io/nats.go"
)

// clock is the time as the commands' waits and progress lines see it;
// tests hand in a fake one.
type clock interface {
	Now() time.Time
	// After is time.After, or the fake's equivalent.
	After(d time.Duration) <-chan time.Time
}

type realClock struct{}

func (realClock) Now() time.Time                         { return time.Now() }
func (realClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// How a worker waits for its NATS server: an attempt every retryEvery, a
// line every stillWaitingEvery.
const (
	retryEvery        = time.Second
	stillWaitingEvery = 30 * time.Second
)

// waitForServer connects, and while no server answers (a worker may start
// before its server), says so, tries again every second, says every half
// minute that it still waits and for how long, and gives up after wait
// (0: never). url is the server, fit to print.
func waitForServer(ctx context.Context, connect func() (*nats.Conn, error), url string, wait time.Duration, c clock, w io.Writer) (*nats.Conn, error) {
	nc, err := connect()
	if !errors.Is(err, nats.ErrNoServers) {
		return nc, err
	}
	start := c.Now()
	limit := "for ever (--nats-wait to give up)"
	if wait > 0 {
		limit = "up to " + shortDuration(wait) + " (--nats-wait)"
	}
	fmt.Fprintf(w, "worker: no NATS server answers at %s yet; trying again every %s, %s\n", url, retryEvery, limit)
	said := start
	for attempt := 2; ; attempt++ {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.After(retryEvery):
		}
		nc, err = connect()
		if !errors.Is(err, nats.ErrNoServers) {
			if err == nil {
				fmt.Fprintf(w, "worker: the NATS server at %s answered after %s\n", url, shortDuration(c.Now().Sub(start).Round(time.Second)))
			}
			return nc, err
		}
		waited := c.Now().Sub(start)
		if wait > 0 && waited >= wait {
			return nil, fmt.Errorf("no NATS server answered at %s in %s (%d attempts; --nats-wait)", url, shortDuration(wait), attempt)
		}
		if c.Now().Sub(said) >= stillWaitingEvery {
			fmt.Fprintf(w, "worker: still waiting for the NATS server at %s (%s, %d attempts)\n", url, shortDuration(waited.Round(time.Second)), attempt)
			said = c.Now()
		}
	}
}
