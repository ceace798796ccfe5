package episode

import (
	"errors"
	"fmt"
	"math"

	"policyevolve/envs"
	"policyevolve/envs/ssd"
	"policyevolve/sandbox"
)

// Result is an episode's result as it travels between machines: what the
// arena reads of an *envs.Result (steps, returns, metrics), and the
// failure, if any, in a form that the receiving side turns back into an
// error the arena treats exactly as the local one (NewResult, then
// Played). Floats survive JSON exactly, so a remote episode's record is
// bit for bit the local one's.
type Result struct {
	Job     string       `json:"job"` // the Episode's ID
	Steps   int          `json:"steps"`
	Returns []float64    `json:"returns"`
	Metrics envs.Metrics `json:"metrics"`
	Failure *Failure     `json:"failure,omitempty"`
}

// Failure is an episode's failure: a policy's (a result to record) or a
// failed job (ErrJobFailed).
type Failure struct {
	Message string `json:"message"` // the error's text, as recorded
	// Kinds names the failure kinds the error matches (sandbox.ErrTimeout,
	// envs.ErrTampered, ErrJobFailed…), by their text.
	Kinds []string `json:"kinds,omitempty"`
	// Agents and Step locate an actor's failure (an *envs.ActorError).
	Agents []int `json:"agents,omitempty"`
	Step   int   `json:"step"`
	Actor  bool  `json:"actor,omitempty"`
}

// failureKinds are the kinds a Failure can name: those the arena branches
// on, and the rest of the sandbox's, for the reader of errors.Is.
var failureKinds = []error{
	sandbox.ErrInvalid, sandbox.ErrTimeout, sandbox.ErrCost, sandbox.ErrCPUBudget, sandbox.ErrPanic,
	sandbox.ErrInvalidAction, sandbox.ErrCrashed, sandbox.ErrOutputLimit, sandbox.ErrProtocol,
	sandbox.ErrNondeterministic, envs.ErrNoAction, envs.ErrTampered, ErrJobFailed,
}

// NewResult describes what Play returned for the episode id. A policy's
// failure becomes the Failure; any other error (the system's) is returned
// as is, for the caller to retry or give up.
func NewResult(id string, res *envs.Result, err error) (*Result, error) {
	if err != nil && !PolicyFailure(err) {
		return nil, err
	}
	out := &Result{Job: id}
	if res != nil {
		out.Steps, out.Returns, out.Metrics = res.Steps, res.Returns, res.Metrics
	}
	if err != nil {
		out.Failure = failureOf(err)
	}
	return out, nil
}

// JobFailed is the result of an episode that could not be played: every
// attempt failed (why says how).
func JobFailed(id, why string) *Result {
	return &Result{Job: id, Failure: &Failure{Message: why, Kinds: []string{ErrJobFailed.Error()}, Step: -1}}
}

func failureOf(err error) *Failure {
	f := &Failure{Message: err.Error(), Step: -1}
	for _, k := range failureKinds {
		if errors.Is(err, k) {
			f.Kinds = append(f.Kinds, k.Error())
		}
	}
	var ae *envs.ActorError
	if errors.As(err, &ae) {
		f.Actor, f.Agents, f.Step = true, ae.Agents, ae.Step
	}
	return f
}

// Played turns the Result back into what Play returns: the *envs.Result
// (with the steps completed) and, for a failure, an error with the
// failure's text that matches its kinds and, for an actor's, is an
// *envs.ActorError.
func (o *Result) Played() (*envs.Result, error) {
	res := &envs.Result{Steps: o.Steps, Returns: o.Returns, Metrics: o.Metrics}
	if o.Failure == nil {
		return res, nil
	}
	return res, newFailureError(o.Failure)
}

// failureError is a Failure as an error.
type failureError struct {
	f     *Failure
	kinds []error
	actor *envs.ActorError
}

func newFailureError(f *Failure) *failureError {
	e := &failureError{f: f}
	for _, name := range f.Kinds {
		for _, k := range failureKinds {
			if k.Error() == name {
				e.kinds = append(e.kinds, k)
			}
		}
	}
	if f.Actor {
		e.actor = &envs.ActorError{Agents: f.Agents, Step: f.Step, Err: errors.New(f.Message)}
	}
	return e
}

func (e *failureError) Error() string { return e.f.Message }

func (e *failureError) Is(target error) bool {
	for _, k := range e.kinds {
		if k == target {
			return true
		}
	}
	return false
}

func (e *failureError) As(target any) bool {
	if t, ok := target.(**envs.ActorError); ok && e.actor != nil {
		*t = e.actor
		return true
	}
	return false
}

// Check checks a result received for ep for shape and range: it names the
// episode, has a return per agent, no more steps than the episode (all of
// them unless it failed), finite values within what the game's rewards
// allow, and a failing actor's agents among the episode's. A result from
// another machine is untrusted input.
func (o *Result) Check(ep *Episode) error {
	n, T := ep.Env.Agents, ep.Env.MaxSteps
	bad := func(format string, args ...any) error {
		return fmt.Errorf("result of episode %.12s: %s", o.Job, fmt.Sprintf(format, args...))
	}
	switch {
	case o.Job != ep.ID():
		return bad("names another episode")
	case o.Steps < 0 || o.Steps > T:
		return bad("%d steps, the episode has %d", o.Steps, T)
	case o.Failure == nil && o.Steps != T:
		return bad("%d steps without a failure, the episode has %d", o.Steps, T)
	case len(o.Returns) != n && !(len(o.Returns) == 0 && o.Failure != nil):
		return bad("%d returns for %d agents", len(o.Returns), n)
	}
	g, err := ssd.ParseGame(ep.Env.Game)
	if err != nil {
		return bad("%v", err)
	}
	// The most an agent can win or lose in a step, by the game's rules.
	p := ssd.DefaultParams(g)
	perStep := 1 + p.FireCost + p.CleanCost + p.FirePenalty*float64(n)
	limit := perStep * float64(o.Steps)
	for i, r := range o.Returns {
		if math.IsNaN(r) || math.Abs(r) > limit {
			return bad("agent %d's return %v is beyond ±%v", i, r, limit)
		}
	}
	m := o.Metrics
	switch {
	case !finite(m.Efficiency, m.Equality, m.Sustainability, m.Peace):
		return bad("metrics are not finite: %+v", m)
	case math.Abs(m.Efficiency) > perStep*float64(n):
		return bad("efficiency %v is beyond ±%v", m.Efficiency, perStep*float64(n))
	case m.Equality > 1:
		return bad("equality %v is above 1", m.Equality)
	case m.Sustainability < 0 || m.Sustainability > float64(T):
		return bad("sustainability %v is outside 0-%d", m.Sustainability, T)
	case m.Peace < 0 || m.Peace > float64(n):
		return bad("peace %v is outside 0-%d", m.Peace, n)
	}
	if f := o.Failure; f != nil {
		if f.Message == "" {
			return bad("a failure without a message")
		}
		for _, a := range f.Agents {
			if a < 0 || a >= n {
				return bad("agent %d failed, the episode has %d", a, n)
			}
		}
		if f.Step < -1 || f.Step > T {
			return bad("a failure at step %d", f.Step)
		}
	}
	return nil
}

func finite(xs ...float64) bool {
	for _, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}
