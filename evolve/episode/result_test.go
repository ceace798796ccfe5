package episode

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"policyevolve/envs"
	"policyevolve/sandbox"
)

// TestEpisodeResultKeepsErrors: a failure that crosses the wire is the
// same error for the Arena: its text, whether it is the policy's, its
// kinds, and the failing actor's agents.
func TestEpisodeResultKeepsErrors(t *testing.T) {
	pe := &sandbox.PolicyError{Kind: sandbox.ErrTimeout, Agent: 2, Step: 7, Detail: "slow"}
	for _, err := range []error{
		&envs.ActorError{Agents: []int{1, 3}, Step: 7, Err: pe},
		fmt.Errorf("run: step 4: %w", envs.ErrTampered),
		fmt.Errorf("policy abc: %w", &sandbox.ValidationError{Issues: []sandbox.Issue{{Line: 1, Col: 2, Msg: "no"}}}),
		&envs.ActorError{Agents: []int{0}, Step: -1, Err: fmt.Errorf("agent 0: %w", envs.ErrNoAction)},
		ErrJobFailed,
	} {
		out, werr := NewResult("x", &envs.Result{Steps: 7, Returns: []float64{1, 2}}, err)
		if werr != nil {
			t.Fatalf("%v: %v", err, werr)
		}
		data, _ := json.Marshal(out)
		var back Result
		json.Unmarshal(data, &back)
		res, got := back.Played()
		if got == nil || got.Error() != err.Error() || PolicyFailure(got) != PolicyFailure(err) || res.Steps != 7 {
			t.Errorf("%v came back as %v (%d steps)", err, got, res.Steps)
			continue
		}
		for _, k := range failureKinds {
			if errors.Is(got, k) != errors.Is(err, k) {
				t.Errorf("%v: errors.Is(%v) = %v, want %v", err, k, errors.Is(got, k), errors.Is(err, k))
			}
		}
		var a, b *envs.ActorError
		if errors.As(err, &a) != errors.As(got, &b) || a != nil && (fmt.Sprint(a.Agents) != fmt.Sprint(b.Agents) || a.Step != b.Step) {
			t.Errorf("%v: actor %+v came back as %+v", err, a, b)
		}
	}
	// The system's failures are not results.
	sys := errors.New("disk full")
	if _, err := NewResult("x", nil, sys); err != sys {
		t.Fatalf("a system error gave %v", err)
	}
}
