package search

import (
	"fmt"
	"testing"

	"policyevolve/evolve/planner"
	"policyevolve/sandbox"
	"policyevolve/store"
)

// TestCountRefusals: a candidate's record counts its failed self-play
// seeds and its refused attempts by kind.
func TestCountRefusals(t *testing.T) {
	var c store.Candidate
	CountFailures(&c, &store.Evaluation{PerSeed: []store.SeedResult{{Status: store.StatusOK},
		{Status: store.StatusFailed, Kind: "tampered"}, {Status: store.StatusFailed, Kind: "tampered"}, {Status: store.StatusFailed}}})
	CountRefusals(&c, &planner.Outcome{Attempts: []planner.Attempt{{Problem: &sandbox.ValidationError{}}, {}}})
	want := map[string]int{"self-play tampered": 2, "self-play runtime": 1, "invalid": 1}
	if fmt.Sprint(c.Refusals) != fmt.Sprint(want) {
		t.Errorf("refusals %v, want %v", c.Refusals, want)
	}
}
