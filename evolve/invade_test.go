package evolve

import (
	"context"
	"testing"
)

// TestWorstInvader: the worst invader is the one whose single agent gains
// most over the residents, as Invade measures it; the resident itself is
// not tried.
func TestInvasionObjective(t *testing.T) {
	cfg := tinyConfig(ModePopulation)
	cfg.Invasion, cfg.Steps, cfg.Candidates = true, 40, 1
	j := newJob(t, cfg)
	run, err := j.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if run.Champion == "" || run.Iterations != cfg.Iterations {
		t.Fatalf("run %+v", run)
	}
}
