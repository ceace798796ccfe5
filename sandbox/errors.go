package sandbox

import (
	"errors"
	"fmt"
	"strings"
)

// Kinds of policy failure. A *PolicyError wraps exactly one of them, so
// callers branch with errors.Is(err, sandbox.ErrTimeout) and so on.
var (
	// ErrInvalid: the source failed static validation (*ValidationError).
	ErrInvalid = errors.New("invalid policy")
	// ErrTimeout: a step used more CPU time than the per-step deadline, or
	// the worker gave no answer at all within the wall-clock backstop.
	ErrTimeout = errors.New("timeout")
	// ErrCost: the policy costs more CPU time than the cost budget (at
	// admission, projected from the smoke test; in an episode, spent).
	ErrCost = errors.New("cost budget exceeded")
	// ErrCPUBudget: the episode used more CPU time than its budget.
	ErrCPUBudget = errors.New("cpu budget exceeded")
	// ErrPanic: the policy panicked.
	ErrPanic = errors.New("panic")
	// ErrInvalidAction: the policy returned an action outside the game's range.
	ErrInvalidAction = errors.New("invalid action")
	// ErrCrashed: the worker died (out of memory, stack overflow, …).
	ErrCrashed = errors.New("crashed")
	// ErrOutputLimit: the policy printed more than the output limit.
	ErrOutputLimit = errors.New("output limit exceeded")
	// ErrProtocol: the worker broke the protocol.
	ErrProtocol = errors.New("protocol error")
	// ErrNondeterministic: two runs of the policy from the same state
	// chose different actions.
	ErrNondeterministic = errors.New("policy is not deterministic")
	// ErrDisagree: the native and the yaegi backend ran the policy's
	// smoke test differently (the cross-check of admission).
	ErrDisagree = errors.New("the backends disagree")
)

// PolicyError is a failure of an untrusted policy: a result to record, not
// a failure of the system. The host process is unharmed and the next
// evaluation runs normally. What the policy wrote (its panic value, its
// output) reaches Detail and Output with control characters written as Go
// escapes (see quoteControl), and so does Error's text.
type PolicyError struct {
	Kind    error  // one of the Err* kinds above
	Agent   int    // the agent whose call failed, or -1
	Step    int    // 0-based step, or -1 before the first step
	Line    int    // line in the policy source, 0 when unknown
	Detail  string // what happened, in words
	Output  string // the start of what the worker printed, for diagnosis
	Program string // the policy's id
}

func (e *PolicyError) Error() string {
	if e.Kind == ErrNondeterministic {
		return e.Kind.Error() + " " + quoteControl(e.Detail)
	}
	var b strings.Builder
	b.WriteString(e.Kind.Error())
	if e.Step >= 0 {
		fmt.Fprintf(&b, " at step %d", e.Step)
	}
	if e.Agent >= 0 {
		fmt.Fprintf(&b, " (agent %d)", e.Agent)
	}
	if e.Line > 0 {
		fmt.Fprintf(&b, " at policy line %d", e.Line)
	}
	if e.Detail != "" {
		b.WriteString(": ")
		b.WriteString(quoteControl(e.Detail))
	}
	return b.String()
}

func (e *PolicyError) Unwrap() error { return e.Kind }

// Issue is one validation finding, with its place in the source.
type Issue struct {
	Line, Col int
	Msg       string
	Snippet   string // the offending source line, trimmed
}

// String writes the issue with its snippet; control characters the
// policy's text brought (a terminal escape in a comment) are written as
// Go escapes.
func (i Issue) String() string {
	s := fmt.Sprintf("%d:%d: %s", i.Line, i.Col, quoteControl(i.Msg))
	if i.Snippet != "" {
		s += "\n\t" + quoteControl(i.Snippet)
	}
	return s
}

// ValidationError lists everything wrong with a policy source, in source
// order, in words meant to be shown to the author (an LLM included).
type ValidationError struct {
	File   string
	Issues []Issue
}

func (e *ValidationError) Error() string {
	var b strings.Builder
	for k, i := range e.Issues {
		if k > 0 {
			b.WriteString("\n")
		}
		if e.File != "" {
			b.WriteString(e.File + ":")
		}
		b.WriteString(i.String())
	}
	return b.String()
}

func (e *ValidationError) Unwrap() error { return ErrInvalid }
