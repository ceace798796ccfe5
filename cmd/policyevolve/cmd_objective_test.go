package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"policyevolve/evolve"
	"policyevolve/pool"
	"policyevolve/store"
)

// TestObjectiveBadInput: an unknown objective is a usage error (exit 2)
// that lists the valid ones, in every command that takes one.
func TestObjectiveBadInput(t *testing.T) {
	db := filepath.Join(t.TempDir(), "s.db")
	for _, args := range [][]string{
		{"evolve", "--objective", "happiness"},
		{"compare", "--objective", "happiness"},
		{"experiment", "--objective", "Welfare"},
		{"league", "--objective", "happiness"},
		{"pool", "import", "x.go", "--objective", "happiness"},
	} {
		code, _, errOut := runCLI(t, context.Background(), append(args, "--store", db)...)
		if code != 2 || !strings.Contains(errOut, "unknown objective") || !strings.Contains(errOut, "want welfare, elo, robust or exploit") {
			t.Errorf("%v: exit %d, %s", args, code, errOut)
		}
	}
}

// TestExploitBadFlags: the exploit objective's target flags are usage
// errors (exit 2) when they are missing, stray, out of range or name no
// policy, each saying which.
func TestExploitBadFlags(t *testing.T) {
	db := filepath.Join(t.TempDir(), "s.db")
	quick := []string{"--map", "small", "--agents", "4", "--steps", "50", "--store", db}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--objective", "exploit"}, "needs --against"},
		{[]string{"--against", "coop"}, "--against names the target of --objective exploit"},
		{[]string{"--k", "2"}, "--k counts the invaders of --objective exploit"},
		{[]string{"--objective", "exploit", "--against", "coop", "--k", "4"}, "the invaders must number 1 to 3"},
		{[]string{"--objective", "exploit", "--against", "nosuchpolicy"}, "--against nosuchpolicy: unknown policy"},
		{[]string{"--objective", "exploit", "--against", "coop", "--mode", "gepa"}, "does not run under mode gepa"},
		{[]string{"--resume", "run-1", "--against", "coop"}, "resumes against the target it started with"},
	} {
		code, _, errOut := runCLI(t, context.Background(), append(append([]string{"evolve"}, tc.args...), quick...)...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, %s", tc.args, code, errOut)
		}
	}
}

// TestExploitNeedsEvolve: the commands that take --objective but no
// target refuse exploit (exit 2), saying only evolve takes one.
func TestExploitNeedsEvolve(t *testing.T) {
	db := filepath.Join(t.TempDir(), "s.db")
	for _, args := range [][]string{
		{"compare", "--objective", "exploit"},
		{"experiment", "--objective", "exploit"},
		{"league", "--objective", "exploit"},
		{"pool", "import", "x.go", "--objective", "exploit"},
	} {
		code, _, errOut := runCLI(t, context.Background(), append(args, "--store", db)...)
		if code != 2 || !strings.Contains(errOut, "needs a target (--against POLICY), which only evolve takes") {
			t.Errorf("%v: exit %d, %s", args, code, errOut)
		}
	}
}

// oldRunConfig is a run's configuration as runs stored it before they
// chose an objective (no "objective" key): the small quick environment.
const oldRunConfig = `{"mode":"population","game":"gathering","map":"small","agents":4,"steps":200,"seed":3,"eval_seeds":[0,1],"match_seeds":[0],"iterations":1,"candidates":1,"feedback":"critic","local_rounds":-1,"crossover_rate":-1,"planners":["grammar"],"pool":{"capacity":16,"promote_threshold":0.6,"temperature":100,"opponents":4},"workers":2,"planner_concurrency":1,"critic":"analytic","backend":"auto"}`

// TestOldRunResumesAsElo: a run stored before objectives lists and shows
// as elo, refuses to resume under another objective (naming its own), and
// resumes under elo, in the environment's untagged pool, as it ran.
func TestOldRunResumesAsElo(t *testing.T) {
	db := filepath.Join(t.TempDir(), "s.db")
	s, err := store.Open(db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	run := &store.Run{Mode: "population", Config: json.RawMessage(oldRunConfig), Seed: 3, Status: store.StatusStopped,
		Stop: store.StopInterrupted, StopReason: "interrupted"}
	if err := s.Update(func(tx *store.Tx) error { return tx.CreateRun(run) }); err != nil {
		t.Fatal(err)
	}

	out, _ := cli(t, "runs", "ls", "--store", db)
	if !strings.Contains(out, "objective") || !strings.Contains(out, " elo ") {
		t.Errorf("runs ls does not show the old run's objective as elo:\n%s", out)
	}
	out, _ = cli(t, "runs", "show", run.ID, "--store", db)
	if !strings.Contains(out, "objective elo: its pool's games are mixed matches") {
		t.Errorf("runs show:\n%s", out)
	}
	code, _, errOut := runCLI(t, context.Background(), "evolve", "--resume", run.ID, "--objective", "welfare", "--store", db)
	if code != 2 || !strings.Contains(errOut, "started with objective elo") {
		t.Errorf("resume under welfare: exit %d, %s", code, errOut)
	}
	events, done := evolveEvents(t, "--resume", run.ID, "--store", db)
	if done.Status != store.StatusDone || done.Champion == "" {
		t.Fatalf("resumed run %+v", done)
	}
	for _, e := range events {
		if e.Objective != pool.Elo {
			t.Fatalf("event %s under objective %q, want elo", e.Kind, e.Objective)
		}
	}
	out, _ = cli(t, "pool", "ls", "--store", db, "--json")
	var pools []poolListing
	if err := json.Unmarshal([]byte(out), &pools); err != nil {
		t.Fatal(err)
	}
	if len(pools) != 1 || pools[0].Pool != "global/gathering/small/4/200" || pools[0].Objective != "elo" {
		t.Errorf("pools after the old run resumed: %s", out)
	}
	// The stored configuration is read back as it was written.
	s, err = store.Open(db, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	s.View(func(tx *store.Tx) error {
		r, err := tx.Run(run.ID)
		if err != nil || string(r.Config) != oldRunConfig {
			t.Errorf("stored configuration now %s (%v)", r.Config, err)
		}
		var cfg evolve.JobConfig
		if err := json.Unmarshal(r.Config, &cfg); err != nil || cfg.Objective != pool.Elo {
			t.Errorf("configuration reads as objective %q (%v)", cfg.Objective, err)
		}
		return nil
	})
}
