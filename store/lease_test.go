package store_test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"policyevolve/internal/storetest"
	"policyevolve/store"
)

// clock is an injected time, moved by the test.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

// leaseStore is a fresh store with one run, run-1, stored running.
func leaseStore(t *testing.T) *store.Store {
	t.Helper()
	s := storetest.Open(t, filepath.Join(t.TempDir(), "lease.db"))
	if err := s.Update(func(tx *store.Tx) error { return tx.CreateRun(&store.Run{Status: store.StatusRunning}) }); err != nil {
		t.Fatal(err)
	}
	return s
}

func take(s *store.Store, h store.Holder) (l *store.Lease, err error) {
	err = s.Update(func(tx *store.Tx) (err error) {
		l, err = tx.TakeLease("run-1", h)
		return err
	})
	return l, err
}

func standing(t *testing.T, s *store.Store, h store.Holder) string {
	t.Helper()
	var status string
	if err := s.View(func(tx *store.Tx) error {
		r, err := tx.Run("run-1")
		if err != nil {
			return err
		}
		status, _, err = tx.Standing(r, h)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return status
}

// TestLeaseSameHost: on one host, a live owner's lease is refused to a
// second process, naming the owner; a dead owner's is taken over, and the
// run reads interrupted meanwhile.
func TestLeaseSameHost(t *testing.T) {
	c := &clock{time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)}
	live := map[int]bool{100: true, 200: true}
	isAlive := func(pid int, _ uint64) bool { return live[pid] }
	a := store.Holder{Host: "h1", PID: 100, Now: c.now, Alive: isAlive}
	b := store.Holder{Host: "h1", PID: 200, Now: c.now, Alive: isAlive}
	s := leaseStore(t)
	if got := standing(t, s, b); got != store.StatusInterrupted {
		t.Errorf("a running run without a lease reads %s, want interrupted", got)
	}
	if _, err := take(s, a); err != nil {
		t.Fatal(err)
	}
	if got := standing(t, s, b); got != store.StatusRunning {
		t.Errorf("with a live owner the run reads %s", got)
	}
	c.t = c.t.Add(time.Hour) // a stale heartbeat does not matter on the owner's host
	_, err := take(s, b)
	var held *store.LeaseHeldError
	if !errors.As(err, &held) || !errors.Is(err, store.ErrLeaseHeld) || held.Lease.PID != 100 || !strings.Contains(err.Error(), "pid 100 on host h1") {
		t.Fatalf("second driver: %v, want refused naming pid 100 on h1", err)
	}
	// The owner itself may take it again (a resume in the same process).
	if _, err := take(s, a); err != nil {
		t.Errorf("the owner retaking its lease: %v", err)
	}
	live[100] = false
	if got := standing(t, s, b); got != store.StatusInterrupted {
		t.Errorf("with its owner dead the run reads %s, want interrupted", got)
	}
	l, err := take(s, b)
	if err != nil || l.PID != 200 {
		t.Fatalf("takeover: %+v %v", l, err)
	}
	// The old owner, back (a stopped process resumed), has lost it.
	live[100] = true
	err = s.Update(func(tx *store.Tx) error { return tx.RenewLease("run-1", a) })
	if !errors.Is(err, store.ErrLeaseLost) {
		t.Errorf("renewing a lease taken over: %v, want ErrLeaseLost", err)
	}
	if err := s.Update(func(tx *store.Tx) error { return tx.ReleaseLease("run-1", b) }); err != nil {
		t.Fatal(err)
	}
	if err := s.View(func(tx *store.Tx) error { _, err := tx.Lease("run-1"); return err }); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("after release: %v, want no lease", err)
	}
}

// TestLeaseTwoHosts: from another host an owner lives while its
// heartbeat is younger than StaleAfter (the clocks are injected).
func TestLeaseTwoHosts(t *testing.T) {
	c := &clock{time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)}
	never := func(int, uint64) bool { t.Error("liveness asked of a process on another host"); return false }
	a := store.Holder{Host: "h1", PID: 100, Now: c.now, Alive: func(int, uint64) bool { return true }}
	b := store.Holder{Host: "h2", PID: 100, Now: c.now, Alive: never}
	s := leaseStore(t)
	if _, err := take(s, a); err != nil {
		t.Fatal(err)
	}
	for _, step := range []struct {
		advance time.Duration
		renew   bool
		held    bool
	}{
		{time.Minute, false, true},
		{store.StaleAfter - time.Minute - time.Second, true, true}, // renewed just before going stale
		{store.StaleAfter, false, true},                            // exactly the bound: still live
		{time.Second, false, false},                                // past it: gone
	} {
		c.t = c.t.Add(step.advance)
		if step.renew {
			if err := s.Update(func(tx *store.Tx) error { return tx.RenewLease("run-1", a) }); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want := store.StatusRunning
		if !step.held {
			want = store.StatusInterrupted
		}
		if got := standing(t, s, b); got != want {
			t.Errorf("at %s: the run reads %s from h2, want %s", c.t.Format(time.TimeOnly), got, want)
		}
	}
	l, err := take(s, b)
	if err != nil || l.Host != "h2" {
		t.Fatalf("takeover from h2: %+v %v", l, err)
	}
}

// TestLeaseDeadProcess: a real child process, killed, no longer owns its
// run; a live process given the pid of one that started at another time
// (a reused pid) does not either.
func TestLeaseDeadProcess(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("process start times are read from /proc")
	}
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep command")
	}
	cmd := exec.Command(sleep, "600")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	self := store.Self()
	child := self
	child.PID = cmd.Process.Pid
	child.ProcStart = 0
	s := leaseStore(t)
	if _, err := take(s, child); err != nil {
		t.Fatal(err)
	}
	if _, err := take(s, self); !errors.Is(err, store.ErrLeaseHeld) {
		t.Fatalf("while the child lives: %v, want ErrLeaseHeld", err)
	}
	// Killed and not yet reaped (a zombie, as a child whose parent has
	// not waited for it), then reaped: gone both times.
	cmd.Process.Kill()
	stat := fmt.Sprintf("/proc/%d/stat", cmd.Process.Pid)
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if b, err := os.ReadFile(stat); err == nil && strings.Contains(string(b), ") Z ") {
			break
		}
	}
	if got := standing(t, s, self); got != store.StatusInterrupted {
		t.Errorf("after the child is killed (a zombie) the run reads %s", got)
	}
	cmd.Wait()
	if got := standing(t, s, self); got != store.StatusInterrupted {
		t.Errorf("after the child is killed and reaped the run reads %s", got)
	}
	if _, err := take(s, self); err != nil {
		t.Fatalf("takeover after the kill: %v", err)
	}
	// This process's pid with another start time: a reused pid.
	reused := self
	reused.ProcStart = self.ProcStart + 1
	if self.ProcStart == 0 {
		t.Fatalf("no start time read for pid %d", os.Getpid())
	}
	if err := s.Update(func(tx *store.Tx) error { return tx.ReleaseLease("run-1", self) }); err != nil {
		t.Fatal(err)
	}
	if _, err := take(s, reused); err != nil {
		t.Fatal(err)
	}
	if got := standing(t, s, self); got != store.StatusInterrupted {
		t.Errorf("an owner whose pid now names another process reads %s, want interrupted", got)
	}
}
