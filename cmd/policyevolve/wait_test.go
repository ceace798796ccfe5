package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
)

// fakeClock moves on by what each wait asks: no real time passes.
type fakeClock struct{ t time.Time }

func (c *fakeClock) Now() time.Time { return c.t }
func (c *fakeClock) After(d time.Duration) <-chan time.Time {
	c.t = c.t.Add(d)
	ch := make(chan time.Time, 1)
	ch <- c.t
	return ch
}

// TestWaitForServerSaysWhatItWaitsFor: a worker started before its server
// says what it waits for, says so again every half minute (not every
// attempt), and gives up after --nats-wait; a server that comes up ends
// the wait.
func TestWaitForServerSaysWhatItWaitsFor(t *testing.T) {
	down := func() (*nats.Conn, error) { return nil, nats.ErrNoServers }
	var out bytes.Buffer
	_, err := waitForServer(context.Background(), down, "nats://127.0.0.1:1", 95*time.Second, &fakeClock{t: time.Unix(0, 0)}, &out)
	if err == nil || !strings.Contains(err.Error(), "no NATS server answered at nats://127.0.0.1:1 in 1m35s") {
		t.Fatalf("err %v", err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	want := []string{
		"worker: no NATS server answers at nats://127.0.0.1:1 yet; trying again every 1s, up to 1m35s (--nats-wait)",
		"worker: still waiting for the NATS server at nats://127.0.0.1:1 (30s, 31 attempts)",
		"worker: still waiting for the NATS server at nats://127.0.0.1:1 (1m, 61 attempts)",
		"worker: still waiting for the NATS server at nats://127.0.0.1:1 (1m30s, 91 attempts)",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("said:\n%s\nwant:\n%s", out.String(), strings.Join(want, "\n"))
	}

	out.Reset()
	calls := 0
	upLater := func() (*nats.Conn, error) {
		if calls++; calls < 5 {
			return nil, nats.ErrNoServers
		}
		return nil, nil
	}
	if _, err := waitForServer(context.Background(), upLater, "nats://h:4222", 0, &fakeClock{}, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "for ever (--nats-wait to give up)") || !strings.Contains(out.String(), "answered after 4s") {
		t.Errorf("said %q", out.String())
	}
}

// TestWorkerGivesUpAfterNATSWait runs the command against a port where no
// server listens.
func TestWorkerGivesUpAfterNATSWait(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", filepath.Join(t.TempDir(), "cache"))
	var stdout, stderr bytes.Buffer
	code := dispatch(context.Background(), []string{"worker", "--nats", "nats://127.0.0.1:1", "--nats-wait", "2s", "--backend", "yaegi"}, &stdout, &stderr)
	if code != exitFailure || !strings.Contains(stderr.String(), "no NATS server answers at nats://127.0.0.1:1 yet") ||
		!strings.Contains(stderr.String(), "no NATS server answered at nats://127.0.0.1:1 in 2s") {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
}
