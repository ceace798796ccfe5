package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"policyevolve/distrib"
	"policyevolve/evolve/episode"
	"policyevolve/sandbox"
)

// TestEmbeddedNATSNeedsAToken: "--nats embedded" with no credentials
// generates a token beside the store (mode 0600) and says how workers get
// it; a client without it is refused with a word on where it is, a client
// given the file gets in, and a second start (a resume) reuses the token.
func TestEmbeddedNATSNeedsAToken(t *testing.T) {
	t.Setenv(envNATS, "")
	t.Setenv(envNATSToken, "")
	storePath := filepath.Join(t.TempDir(), "my store.db")
	tokenPath := distrib.TokenPath(storePath)
	var token string
	for round, want := range []string{"generated a token in", "reusing the token in"} {
		port := freePort(t)
		o := coordinatorOptions{natsOptions: natsOptions{url: fmt.Sprintf("embedded:%d", port)}}
		if err := o.check(); err != nil {
			t.Fatal(err)
		}
		var stderr bytes.Buffer
		_, stop, err := o.start(context.Background(), storePath, sandbox.Native, &episode.Local{}, &stderr, nil)
		if err != nil {
			t.Fatal(err)
		}
		out := stderr.String()
		if !strings.Contains(out, want+" "+tokenPath) || !strings.Contains(out, "--nats-token-file '"+tokenPath+"'") {
			t.Errorf("round %d: the coordinator's word on the token:\n%s", round, out)
		}
		st, err := os.Stat(tokenPath)
		if err != nil || st.Mode().Perm() != 0o600 {
			t.Fatalf("the token file: %v, %v", st, err)
		}
		got, err := distrib.ReadTokenFile(tokenPath)
		if err != nil {
			t.Fatal(err)
		}
		if round == 1 && got != token {
			t.Errorf("a second start made a new token: workers given the first would be locked out")
		}
		token = got
		if strings.Contains(out, token) {
			t.Errorf("the token is printed:\n%s", out)
		}
		u := fmt.Sprintf("nats://127.0.0.1:%d", port)
		code, _, errOut := runCLI(t, context.Background(), "workers", "--nats", u)
		if code == 0 || !strings.Contains(errOut, "STORE.nats-token") || !strings.Contains(errOut, "--nats-token-file") {
			t.Errorf("round %d: a client without credentials: exit %d\n%s", round, code, errOut)
		}
		code, _, errOut = runCLI(t, context.Background(), "workers", "--nats", u, "--nats-token", "not-the-token")
		if code == 0 || !strings.Contains(errOut, "refused these credentials") {
			t.Errorf("round %d: a client with a wrong token: exit %d\n%s", round, code, errOut)
		}
		code, out, errOut = runCLI(t, context.Background(), "workers", "--nats", u, "--nats-token-file", tokenPath)
		if code != 0 || !strings.Contains(out, "no worker connected") {
			t.Errorf("round %d: a client with the token file: exit %d\n%s%s", round, code, out, errOut)
		}
		stop()
	}
	if len(token) != 32 || strings.Trim(token, "abcdefghijklmnopqrstuvwxyz234567") != "" {
		t.Errorf("token %q: want 32 characters of lowercase base32", token)
	}
	// A token file others can read is refused, with the fix.
	os.Chmod(tokenPath, 0o644)
	code, _, errOut := runCLI(t, context.Background(), "workers", "--nats", "nats://127.0.0.1:1", "--nats-token-file", tokenPath)
	if code != exitUsage || !strings.Contains(errOut, "chmod 600") {
		t.Errorf("a token file others may read: exit %d\n%s", code, errOut)
	}
}

// TestStopWithNoWorker: an "evolve --nats" asked to stop while its
// episodes wait on a queue no worker serves says what it waits for, on
// how many workers, and how to give up, and gives up by itself after
// stopNoWorkersAfter: it exits as a second Ctrl-C would (130), with the
// command that resumes the run.
func TestStopWithNoWorker(t *testing.T) {
	t.Setenv(envNATS, "")
	t.Setenv(envNATSToken, "")
	old := stopNoWorkersAfter
	stopNoWorkersAfter = 2 * time.Second
	defer func() { stopNoWorkersAfter = old }()
	storePath := filepath.Join(t.TempDir(), "s.db")
	port := freePort(t)
	type outcome struct {
		code        int
		out, errOut string
	}
	done := make(chan outcome, 1)
	go func() {
		code, out, errOut := runCLI(t, context.Background(), "evolve", "--game", "gathering", "--map", "small", "--agents", "4",
			"--steps", "50", "--seeds", "0-1", "--iterations", "1", "--candidates", "2", "--store", storePath,
			"--nats", fmt.Sprintf("embedded:%d", port))
		done <- outcome{code, out, errOut}
	}()
	// Once episodes wait in the queue, the first interrupt.
	waitForQueued(t, storePath, port)
	if !softStop() {
		t.Fatal("no stop hook registered while the run waits")
	}
	var got outcome
	select {
	case got = <-done:
	case <-time.After(5 * time.Minute): // a hang, not a slow machine
		t.Fatal("the run waited for ever with no worker")
	}
	if got.code != exitCancelled {
		t.Errorf("exit %d, want %d", got.code, exitCancelled)
	}
	for _, want := range []string{"waiting for ", " episode(s) in flight on 0 worker(s) (with none, it gives up after 2s); Ctrl-C again to stop now",
		"no worker connected for 2s", "abandoning the step in flight"} {
		if !strings.Contains(got.errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, got.errOut)
		}
	}
	// Once the run is stored (after the pool's baselines), the way back.
	if strings.Contains(got.errOut, "resumes with") &&
		!strings.Contains(got.errOut, "the run resumes with: policyevolve evolve --resume run-1 --store "+storePath) {
		t.Errorf("the command that resumes the run:\n%s", got.errOut)
	}
}

// TestWatchStopWaitsForWorkers: while workers are connected a stopping
// coordinator waits for them (it says so, without a deadline), and gives
// up only once none has been there for the grace period.
func TestWatchStopWaitsForWorkers(t *testing.T) {
	var mu sync.Mutex
	state := distrib.RemoteStats{Pending: 12, Workers: 2}
	stats := func(context.Context) (distrib.RemoteStats, error) {
		mu.Lock()
		defer mu.Unlock()
		return state, nil
	}
	var w syncBuffer
	abandoned := make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go watchStop(ctx, stats, func() string { return "policyevolve evolve --resume run-3" }, time.Millisecond, 50*time.Millisecond,
		&w, func() { close(abandoned) })
	for start := time.Now(); !strings.Contains(w.String(), "on 2 worker(s)"); time.Sleep(time.Millisecond) {
		if time.Since(start) > time.Minute {
			t.Fatalf("no word:\n%s", w.String())
		}
	}
	time.Sleep(200 * time.Millisecond) // four grace periods, with workers
	select {
	case <-abandoned:
		t.Fatalf("gave up while workers played:\n%s", w.String())
	default:
	}
	if want := "policyevolve evolve: waiting for 12 episode(s) in flight on 2 worker(s); Ctrl-C again to stop now; the run resumes with: policyevolve evolve --resume run-3\n"; !strings.HasPrefix(w.String(), want) {
		t.Errorf("got %q, want %q", w.String(), want)
	}
	mu.Lock()
	state = distrib.RemoteStats{Pending: 3, Workers: 0}
	mu.Unlock()
	select {
	case <-abandoned:
	case <-time.After(time.Minute):
		t.Fatalf("never gave up with no worker:\n%s", w.String())
	}
	if !strings.Contains(w.String(), "on 0 worker(s) (with none, it gives up after 50ms)") {
		t.Errorf("no word on the workers gone:\n%s", w.String())
	}
}

// TestStopWithNoWorkerMidRun: the same for a stored run (resumed on a
// queue no worker serves): the words say how to resume it, and so does
// the end.
func TestStopWithNoWorkerMidRun(t *testing.T) {
	t.Setenv(envNATS, "")
	t.Setenv(envNATSToken, "")
	old := stopNoWorkersAfter
	stopNoWorkersAfter = 2 * time.Second
	defer func() { stopNoWorkersAfter = old }()
	storePath := filepath.Join(t.TempDir(), "s.db")
	args := []string{"evolve", "--game", "gathering", "--map", "small", "--agents", "4", "--steps", "50", "--seeds", "0-1",
		"--iterations", "2", "--candidates", "2", "--store", storePath}
	// A run stored and stopped (interrupted at its first safe point).
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		for !softStop() {
			time.Sleep(time.Millisecond)
		}
	}()
	code, _, errOut := runCLI(t, context.Background(), args...)
	<-stopped
	if code != exitCancelled {
		t.Fatalf("the first run: exit %d\n%s", code, errOut)
	}
	port := freePort(t)
	done := make(chan int, 1)
	var stderr syncBuffer
	go func() {
		done <- dispatch(context.Background(), []string{"evolve", "--resume", "run-1", "--store", storePath,
			"--nats", fmt.Sprintf("embedded:%d", port)}, io.Discard, &stderr)
	}()
	waitForQueued(t, storePath, port)
	if !softStop() {
		t.Fatal("no stop hook registered while the run waits")
	}
	select {
	case code = <-done:
	case <-time.After(5 * time.Minute): // a hang, not a slow machine
		t.Fatal("the run waited for ever with no worker")
	}
	out := stderr.String()
	if code != exitCancelled {
		t.Errorf("exit %d, want %d\n%s", code, exitCancelled, out)
	}
	resume := "policyevolve evolve --resume run-1 --store " + storePath
	for _, want := range []string{" episode(s) in flight on 0 worker(s) (with none, it gives up after 2s); Ctrl-C again to stop now; the run resumes with: " + resume,
		"no worker connected for 2s", "abandoned; resume with: " + resume} {
		if !strings.Contains(out, want) {
			t.Errorf("stderr lacks %q:\n%s", want, out)
		}
	}
}

// waitForQueued waits until episodes wait in the queue of the embedded
// server an evolve on storePath runs on port.
func waitForQueued(t *testing.T, storePath string, port int) {
	t.Helper()
	var nc *nats.Conn
	defer func() {
		if nc != nil {
			nc.Close()
		}
	}()
	for start := time.Now(); ; time.Sleep(100 * time.Millisecond) {
		if time.Since(start) > 5*time.Minute {
			t.Fatal("no episode ever waited in the queue")
		}
		if nc == nil {
			token, err := distrib.ReadTokenFile(distrib.TokenPath(storePath))
			if err != nil {
				continue
			}
			if nc, err = distrib.Connect(fmt.Sprintf("nats://127.0.0.1:%d", port), "test", distrib.Auth{Token: token}); err != nil {
				continue
			}
		}
		qs, err := distrib.Queues(context.Background(), nc)
		if err == nil && len(qs) > 0 && qs[0].Waiting > 0 {
			return
		}
	}
}
