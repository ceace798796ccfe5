package evolve

import (
	"errors"
	"fmt"
	"testing"

	"policyevolve/envs"
	"policyevolve/evolve/episode"
	"policyevolve/sandbox"
	"policyevolve/store"
)

func TestFailureKind(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("step 3: the worker's replica differs: %w", envs.ErrTampered), "tampered"},
		{&sandbox.PolicyError{Kind: sandbox.ErrTimeout, Agent: -1, Step: 2}, "slow"},
		{fmt.Errorf("x: %w", sandbox.ErrCost), "slow"},
		{fmt.Errorf("x: %w", envs.ErrNoAction), "invalid-action"},
		{fmt.Errorf("x: %w", sandbox.ErrNondeterministic), "nondeterministic"},
		{errors.New("panic: boom"), "runtime"},
	} {
		if got := episode.FailureKind(tc.err); got != tc.want {
			t.Errorf("episode.FailureKind(%v) = %q, want %q", tc.err, got, tc.want)
		}
	}
	var c store.Candidate
	countFailures(&c, &store.Evaluation{PerSeed: []store.SeedResult{{Status: store.StatusOK},
		{Status: store.StatusFailed, Kind: "tampered"}, {Status: store.StatusFailed, Kind: "tampered"}, {Status: store.StatusFailed}}})
	countRefusals(&c, &Outcome{Attempts: []Attempt{{Problem: &sandbox.ValidationError{}}, {}}})
	want := map[string]int{"self-play tampered": 2, "self-play runtime": 1, "invalid": 1}
	if fmt.Sprint(c.Refusals) != fmt.Sprint(want) {
		t.Errorf("refusals %v, want %v", c.Refusals, want)
	}
}
