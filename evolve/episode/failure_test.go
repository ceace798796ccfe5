package episode

import (
	"errors"
	"fmt"
	"testing"

	"policyevolve/envs"
	"policyevolve/sandbox"
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
		if got := FailureKind(tc.err); got != tc.want {
			t.Errorf("FailureKind(%v) = %q, want %q", tc.err, got, tc.want)
		}
	}
}
