package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"policyevolve/evolve/arena"
	"policyevolve/sandbox"
	"policyevolve/store"
)

// lazyCleaners is a Cleanup policy whose cleaning threshold means that
// nobody ever cleans (see evolve/tune).
var lazyCleaners = filepath.Join("..", "..", "evolve", "tune", "testdata", "lazy_cleaners.go")

// tuneFlags keep a tuning run to seconds: yaegi (no builds), short
// episodes, a small budget.
var tuneFlags = []string{"--game", "cleanup", "--steps", "250", "--budget", "12", "--train-seeds", "100-101",
	"--seeds", "0-2", "--backend", "yaegi", "--step-timeout", "5s", "--seed", "1"}

func TestTuneFile(t *testing.T) {
	if raceEnabled {
		t.Skip("the yaegi worker cannot start under the race detector")
	}
	out := filepath.Join(t.TempDir(), "tuned.go")
	code, stdout, stderr := runCLI(t, context.Background(), append([]string{"tune", lazyCleaners, "-o", out}, tuneFlags...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"tuning " + lazyCleaners + " on cleanup/default/10/250", "const cleanAbove",
		"changed line 10: 0.9 -> ", "held-out seeds [0 1 2]: efficiency 0.", ": kept", "wrote " + out} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	// Not a terminal: plain lines, one per generation.
	if !strings.Contains(stderr, "generation 0: ") || !strings.Contains(stderr, "candidates, best ") || strings.Contains(stderr, "\r") {
		t.Errorf("stderr:\n%q", stderr)
	}
	src, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sandbox.Validate(src); err != nil || !strings.Contains(string(src), "// Constants tuned by policyevolve tune") {
		t.Fatalf("tuned file: %v\n%s", err, src)
	}
}

// TestTuneStored: a stored policy's kept tuning is stored as its child,
// operator tune, and evaluated.
func TestTuneStored(t *testing.T) {
	if raceEnabled {
		t.Skip("the yaegi worker cannot start under the race detector")
	}
	path := filepath.Join(t.TempDir(), "s.db")
	src, err := os.ReadFile(lazyCleaners)
	if err != nil {
		t.Fatal(err)
	}
	s, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	parent := &store.Policy{Source: string(src), Name: "lazy"}
	if err := s.Update(func(tx *store.Tx) error { _, err := tx.PutPolicy(parent); return err }); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, context.Background(), append([]string{"tune", parent.ID[:10], "--store", path}, tuneFlags...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "(stored), tune of "+parent.ID[:12]) || !strings.Contains(stdout, "self-play on seeds [0 1 2]: ok") {
		t.Fatalf("stdout:\n%s", stdout)
	}
	s, err = store.Open(path, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	var children []store.Policy
	if err := s.View(func(tx *store.Tx) error {
		ps, err := tx.Policies()
		for _, p := range ps {
			if len(p.Origin.Parents) == 1 && p.Origin.Parents[0] == parent.ID {
				children = append(children, p)
			}
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if len(children) != 1 || children[0].Origin.Operator != arena.OpTune || children[0].Origin.Planner != "tune" ||
		children[0].Name != "lazy (tuned)" {
		t.Fatalf("children of the tuned policy: %+v", children)
	}
}

func TestTuneBadInput(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"tune"}, "want one policy id or .go file, got 0 arguments"},
		{[]string{"tune", lazyCleaners, "--budget", "2"}, "--budget 2: out of range; want an integer from 4 to 100000"},
		{[]string{"tune", filepath.Join(dir, "missing.go")}, "missing.go: no such file or directory"},
		{[]string{"tune", "abc", "-o", "x.go"}, "-o is for FILE.go mode"},
		{[]string{"tune", lazyCleaners, "--train-seeds", "5-1"}, "--train-seeds 5-1: seed range"},
		{[]string{"tune", lazyCleaners, "--frobnicate"}, "unknown flag --frobnicate"},
	}
	for _, c := range cases {
		code, stdout, stderr := runCLI(t, context.Background(), c.args...)
		if code != 2 || stdout != "" || !strings.Contains(stderr, c.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and one line saying %q", c.args, code, stdout, stderr, c.want)
		}
	}
}
