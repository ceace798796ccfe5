package planner

import (
	"errors"
	"fmt"
	"strings"

	"policyevolve/sandbox"
)

// ErrDuplicate: a proposal is the same policy as one already stored, once
// formatting, comments and the names of locals are set aside.
var ErrDuplicate = errors.New("duplicate policy")

// Problem is a refused proposal's problem as a planner is shown it: its
// kind (missing, invalid, nondeterministic, slow, runtime, duplicate), a
// one-line summary and the details (validation issues with their lines,
// what the policy printed). The fix loop stores it with the admission
// verdict, so that a resumed run shows the planner exactly the same words
// (and a cached LLM answer to them is found again).
type Problem struct {
	Kind    string
	Summary string
	Detail  string
	err     error // the original error, when known (not after a resume)
}

func (p *Problem) Error() string {
	if p.Detail == "" {
		return p.Summary
	}
	return p.Summary + ":\n" + p.Detail
}

// Unwrap gives the original error when there is one.
func (p *Problem) Unwrap() error { return p.err }

// DescribeProblem sorts a refused attempt's error into a Problem.
func DescribeProblem(err error) *Problem {
	var pr *Problem
	if errors.As(err, &pr) {
		return pr
	}
	var ve *sandbox.ValidationError
	var pe *sandbox.PolicyError
	p := &Problem{err: err}
	switch {
	case errors.Is(err, ErrNoPolicy):
		p.Kind, p.Summary = "missing", "could not find the policy in your answer: "+err.Error()
	case errors.Is(err, ErrDuplicate):
		p.Kind, p.Summary = "duplicate", err.Error()
	case errors.As(err, &ve):
		n := len(ve.Issues)
		p.Kind, p.Summary, p.Detail = "invalid", fmt.Sprintf("the policy failed validation (%d problem%s)", n, plural(n)), ve.Error()
	case errors.As(err, &pe) && errors.Is(err, sandbox.ErrNondeterministic):
		p.Kind, p.Summary = "nondeterministic", "the smoke test failed: "+err.Error()
	case errors.As(err, &pe) && (errors.Is(err, sandbox.ErrTimeout) || errors.Is(err, sandbox.ErrCPUBudget) || errors.Is(err, sandbox.ErrCost)):
		p.Kind, p.Summary, p.Detail = "slow", "the smoke test failed: "+err.Error(), outputOf(pe)
	case errors.As(err, &pe):
		p.Kind, p.Summary, p.Detail = "runtime", "the smoke test failed: "+err.Error(), outputOf(pe)
	default:
		p.Kind, p.Summary = "runtime", "the policy failed: "+OneLine(err.Error())
	}
	return p
}

func outputOf(pe *sandbox.PolicyError) string {
	if s := strings.TrimSpace(pe.Output); s != "" {
		return "Output of the policy before it failed:\n" + s
	}
	return ""
}

// OneLine is s with its runs of white space, new lines included, made one
// space: a message fit for one line of a log.
func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
