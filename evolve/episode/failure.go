package episode

import (
	"errors"

	"policyevolve/envs"
	"policyevolve/sandbox"
)

// PolicyFailure reports whether err is a policy's failure (a result to
// record), as opposed to a failure of the system.
func PolicyFailure(err error) bool {
	var pe *sandbox.PolicyError
	var fe *failureError // one that crossed the wire: only those do
	return errors.As(err, &pe) || errors.Is(err, sandbox.ErrInvalid) ||
		errors.Is(err, envs.ErrNoAction) || errors.Is(err, envs.ErrTampered) || errors.Is(err, ErrJobFailed) ||
		errors.As(err, &fe)
}

// FailureKind sorts the failure of a policy during an episode: tampered
// (its replica of the game differed from the host's), slow (a step
// deadline or the CPU budget), invalid-action, nondeterministic, or
// runtime (a panic, a crash, anything else).
func FailureKind(err error) string {
	switch {
	case errors.Is(err, envs.ErrTampered):
		return "tampered"
	case errors.Is(err, sandbox.ErrTimeout) || errors.Is(err, sandbox.ErrCPUBudget) || errors.Is(err, sandbox.ErrCost):
		return "slow"
	case errors.Is(err, sandbox.ErrInvalid) || errors.Is(err, envs.ErrNoAction):
		return "invalid-action"
	case errors.Is(err, sandbox.ErrNondeterministic):
		return "nondeterministic"
	}
	return "runtime"
}
