package main

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"policyevolve/store"
)

// TestRunOwnership: a run driven by a live process (a child standing in
// for a second shell's evolve) is refused to evolve --resume, exit 1,
// naming the owner and how to see it; runs show names the owner. Once
// the child is killed the run reads interrupted in runs ls and runs show,
// with the resume command, and a resume takes it over and completes with
// store check clean.
func TestRunOwnership(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the owner's liveness is read from /proc")
	}
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep command")
	}
	db := filepath.Join(t.TempDir(), "s.db")
	cli(t, "evolve", "--store", db, "--mode", "chain", "--game", "gathering", "--map", "small", "--agents", "4", "--steps", "60",
		"--iterations", "2", "--seeds", "0", "--max-planner-calls", "1")
	child := exec.Command(sleep, "600")
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer child.Process.Kill()
	// The child owns run-1, stored running (as a job in flight leaves it).
	s, err := store.Open(db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	owner := store.Self()
	owner.PID, owner.ProcStart = child.Process.Pid, 0
	if err := s.Update(func(tx *store.Tx) error {
		r, err := tx.Run("run-1")
		if err != nil {
			return err
		}
		r.Status, r.Stop, r.StopReason = store.StatusRunning, "", ""
		if err := tx.PutRun(r); err != nil {
			return err
		}
		_, err = tx.TakeLease("run-1", owner)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, context.Background(), "evolve", "--resume", "run-1", "--store", db)
	who := fmt.Sprintf("pid %d on host %s", child.Process.Pid, owner.Host)
	if code != 1 || !strings.Contains(errOut, who) || !strings.Contains(errOut, "runs show run-1") {
		t.Fatalf("second driver: exit %d, want 1 naming %q and runs show\n%s%s", code, who, out, errOut)
	}
	if out, _ := cli(t, "runs", "show", "run-1", "--store", db); !strings.Contains(out, "run run-1: running") || !strings.Contains(out, "driven by "+who) {
		t.Errorf("runs show of a live run:\n%s", out)
	}
	child.Process.Kill()
	child.Wait()
	out, _ = cli(t, "runs", "ls", "--store", db)
	if !strings.Contains(out, "interrupted") {
		t.Errorf("runs ls after the owner's death:\n%s", out)
	}
	out, _ = cli(t, "runs", "show", "run-1", "--store", db)
	if !strings.Contains(out, "run run-1: interrupted (its owner, "+who) || !strings.Contains(out, "resume with: ") {
		t.Errorf("runs show after the owner's death:\n%s", out)
	}
	cli(t, "evolve", "--resume", "run-1", "--store", db)
	if out, _ := cli(t, "store", "check", "--store", db); !strings.HasPrefix(out, "OK ") {
		t.Errorf("store check after the takeover:\n%s", out)
	}
	if out, _ := cli(t, "runs", "show", "run-1", "--store", db); strings.Contains(out, "interrupted") || strings.Contains(out, "running") {
		t.Errorf("runs show after the resume:\n%s", out)
	}
}
