package evolve

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"policyevolve/store"
)

// leasedRun stores run-1 of cfg, running and never played, with its lease
// held by pid 100 on host h1.
func leasedRun(t *testing.T, j *Job, cfg JobConfig, owner store.Holder) {
	t.Helper()
	raw, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Store.Update(func(tx *store.Tx) error {
		r := &store.Run{Mode: cfg.Mode, Config: raw, Seed: cfg.Seed, Status: store.StatusRunning}
		if err := tx.CreateRun(r); err != nil {
			return err
		}
		_, err := tx.TakeLease(r.ID, owner)
		return err
	}); err != nil {
		t.Fatal(err)
	}
}

// TestJobLease: a resume of a run another live process drives is refused
// naming it, and nothing is written; once that process is gone the resume
// takes the run over, plays it to its end and releases the lease.
func TestJobLease(t *testing.T) {
	cfg := tinyConfig(ModeChain)
	cfg.Iterations = 1
	live := map[int]bool{100: true}
	alive := func(pid int, _ uint64) bool { return live[pid] }
	j := newJob(t, cfg)
	leasedRun(t, j, cfg, store.Holder{Host: "h1", PID: 100, Alive: alive})
	j.RunID, j.Owner = "run-1", store.Holder{Host: "h1", PID: 200, Alive: alive}
	_, err := j.Run(context.Background())
	var held *store.LeaseHeldError
	if !errors.As(err, &held) || held.Lease.PID != 100 || !strings.Contains(err.Error(), "pid 100 on host h1") {
		t.Fatalf("resume of a live run: %v, want refused naming pid 100 on h1", err)
	}
	live[100] = false
	run, err := j.Run(context.Background())
	if err != nil || run.Status != store.StatusDone {
		t.Fatalf("takeover: %+v %v", run, err)
	}
	if err := j.Store.View(func(tx *store.Tx) error { _, err := tx.Lease("run-1"); return err }); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("after the run: lease %v, want released", err)
	}
}

// TestJobLeaseLost: a job whose lease another process takes over while it
// runs stops with ErrLeaseLost and leaves the run record to the new owner.
func TestJobLeaseLost(t *testing.T) {
	cfg := tinyConfig(ModeChain)
	j := newJobAt(t, filepath.Join(t.TempDir(), "job.db"), cfg)
	j.Owner = store.Holder{Host: "h1", PID: 100, Alive: func(int, uint64) bool { return true }}
	thief := store.Holder{Host: "h1", PID: 300, Alive: func(int, uint64) bool { return false }}
	j.Events = ReporterFunc(func(e Event) {
		if e.Kind != EventIteration || e.Iteration != 0 {
			return
		}
		if err := j.Store.Update(func(tx *store.Tx) error { _, err := tx.TakeLease(j.RunID, thief); return err }); err != nil {
			t.Error(err)
		}
	})
	_, err := j.Run(context.Background())
	if !errors.Is(err, ErrLeaseLost) {
		t.Fatalf("Run: %v, want ErrLeaseLost", err)
	}
	var l *store.Lease
	var r *store.Run
	if err := j.Store.View(func(tx *store.Tx) (err error) {
		if l, err = tx.Lease(j.RunID); err != nil {
			return err
		}
		r, err = tx.Run(j.RunID)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if l.PID != 300 || r.Status != store.StatusRunning {
		t.Errorf("after the takeover: lease of pid %d, run %s; want pid 300's lease and the run left running", l.PID, r.Status)
	}
}
