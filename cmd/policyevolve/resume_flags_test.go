package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestResumeFlags: a flag given with --resume is never ignored. A budget
// raised carries a finished run further and runs show lists the
// extension; a setting given again with its stored value is accepted; a
// changed setting, a lowered budget and a flag with no stored setting are
// refused (exit 2) naming the flag.
func TestResumeFlags(t *testing.T) {
	db := filepath.Join(t.TempDir(), "s.db")
	cli(t, "evolve", "--store", db, "--mode", "chain", "--game", "gathering", "--map", "small", "--agents", "4", "--steps", "60",
		"--iterations", "1", "--seeds", "0", "--candidates", "2")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--iterations", "1"}, 0, "nothing to resume"},
		{[]string{"--candidates", "2", "--workers", "1"}, 0, "nothing to resume"},
		{[]string{"--candidates", "3"}, 2, "--candidates 3: run run-1 has candidates 2"},
		{[]string{"--steps", "100"}, 2, "--steps 100: run run-1 has steps 60"},
		{[]string{"--planner", "grammar"}, 2, "--planner cannot be given with --resume"},
		{[]string{"--max-planner-calls", "5", "--iterations", "2"}, 2, "--max-planner-calls 5 is below the run's none"},
	} {
		code, out, errOut := runCLI(t, context.Background(), append([]string{"evolve", "--resume", "run-1", "--store", db}, tc.args...)...)
		if code != tc.code || !strings.Contains(out+errOut, tc.want) {
			t.Errorf("%v: exit %d, want %d saying %q\n%s%s", tc.args, code, tc.code, tc.want, out, errOut)
		}
	}
	cli(t, "evolve", "--resume", "run-1", "--store", db, "--iterations", "2")
	out, _ := cli(t, "runs", "show", "run-1", "--store", db)
	for _, want := range []string{"run run-1: done", "extended on resume: --iterations 1 → 2 (after iterations 0–1 done", "iteration 2", "carry it further with: "} {
		if !strings.Contains(out, want) {
			t.Errorf("runs show of the extended run lacks %q:\n%s", want, out)
		}
	}
}
