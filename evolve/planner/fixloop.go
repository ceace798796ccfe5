package planner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"go/format"

	"policyevolve/envs/ssd"
	"policyevolve/evolve/episode"
	"policyevolve/evolve/timing"
	"policyevolve/llm"
	"policyevolve/sandbox"
	"policyevolve/store"
)

// MaxAttempts is how many proposals one request may take: the first and
// up to two fixes, as in the paper.
const MaxAttempts = 3

// FixLoop turns a planner's proposals into admitted, stored policies:
// propose, check the answer (a policy in it, validation, compilation, the
// smoke test and the determinism probe), and on failure hand the problem
// back to the planner's Fix, up to MaxAttempts in all; store the accepted
// policy with its origin. The chain and population loops run every
// candidate through it.
type FixLoop struct {
	Planner Planner
	Sandbox *sandbox.Sandbox
	Store   *store.Store
	// MaxAttempts bounds the attempts per request (default MaxAttempts).
	MaxAttempts int
	// Screen, when set, judges a proposal that passed admission before it
	// is stored: an error (ErrDuplicate, say) refuses it like a failed
	// check, and the planner is told.
	Screen func(ctx context.Context, src []byte) error
	// Log receives one line per attempt; nil discards them.
	Log func(format string, args ...any)
	// Profile, when set, adds up the time spent planning and checking.
	Profile *timing.Profile
}

// Attempt is one proposal of a request and what became of it.
type Attempt struct {
	Proposal *Proposal
	// Problem is why it was refused; nil for the accepted one.
	Problem error
}

// Outcome is what a request came to. A request whose every attempt
// failed is an Outcome with Policy nil, not an error: a failing candidate
// is a result.
type Outcome struct {
	// Policy is the accepted policy as stored (its first origin kept if
	// it was stored before); nil when every attempt failed.
	Policy *store.Policy
	// New says the policy was not in the store before.
	New bool
	// Program is the accepted policy, compiled.
	Program  *sandbox.Program
	Attempts []Attempt
	// Usage adds up every attempt.
	Usage Usage
	// Stopped says why the loop ended before a policy was accepted or
	// its attempts were used up: a call the run's budget did not admit
	// (an error wrapping llm.ErrNotAdmitted; nothing was sent for it).
	Stopped error
}

// Calls is how many planner calls the attempts took (docs/decisions.md: one
// per proposal; a ReAct proposal's turns each count).
func (o *Outcome) Calls() int {
	n := 0
	for _, a := range o.Attempts {
		if a.Proposal != nil {
			n += max(1, a.Proposal.Calls)
		} else {
			n++
		}
	}
	return n
}

// Problem is the last attempt's problem (nil when a policy was accepted).
func (o *Outcome) Problem() error {
	if o.Policy != nil || len(o.Attempts) == 0 {
		return nil
	}
	return o.Attempts[len(o.Attempts)-1].Problem
}

// Init runs the loop on the planner's Init.
func (l *FixLoop) Init(ctx context.Context, req InitRequest) (*Outcome, error) {
	l.written(ctx, &req.Task)
	return l.run(ctx, req.Task, func() (*Proposal, error) { return l.Planner.Init(ctx, req) })
}

// Improve runs the loop on the planner's Improve.
func (l *FixLoop) Improve(ctx context.Context, req ImproveRequest) (*Outcome, error) {
	l.written(ctx, &req.Task)
	return l.run(ctx, req.Task, func() (*Proposal, error) { return l.Planner.Improve(ctx, req) })
}

// Crossover runs the loop on the planner's Crossover.
func (l *FixLoop) Crossover(ctx context.Context, req CrossoverRequest) (*Outcome, error) {
	l.written(ctx, &req.Task)
	return l.run(ctx, req.Task, func() (*Proposal, error) { return l.Planner.Crossover(ctx, req) })
}

// written tells the planner what the Screen would refuse, so that a
// planner able to choose does not spend an attempt on it. A task that
// says already is left as it is.
func (l *FixLoop) written(ctx context.Context, t *Task) {
	if l.Screen == nil || t.Written != nil {
		return
	}
	screen := l.Screen
	t.Written = func(src []byte) bool { return screen(ctx, src) != nil }
}

func (l *FixLoop) logf(format string, args ...any) {
	if l.Log != nil {
		l.Log(format, args...)
	}
}

func (l *FixLoop) run(ctx context.Context, t Task, first func() (*Proposal, error)) (*Outcome, error) {
	if l.Planner == nil || l.Sandbox == nil || l.Store == nil {
		return nil, errors.New("fix loop: needs a planner, a sandbox and a store")
	}
	limit := l.MaxAttempts
	if limit <= 0 {
		limit = MaxAttempts
	}
	game, err := gameOf(t)
	if err != nil {
		return nil, err
	}
	out := &Outcome{}
	done := l.Profile.Start(timing.Planning)
	prop, err := first()
	done()
	for n := 1; ; n++ {
		if errors.Is(err, llm.ErrNotAdmitted) {
			// The budget ends the request here; what was tried stands.
			out.Stopped = err
			l.logf("attempt %d: not sent: %s", n, OneLine(err.Error()))
			return out, nil
		}
		if err != nil {
			return out, fmt.Errorf("%s, attempt %d: %w", l.Planner.Name(), n, err)
		}
		out.Usage.Add(prop.Usage)
		problem := prop.Problem
		var prog *sandbox.Program
		if prop.Source != nil {
			prog, problem, err = l.admit(ctx, prop.Source, game)
			if err != nil {
				return out, err
			}
			if problem == nil && l.Screen != nil {
				problem = l.Screen(ctx, prop.Source)
			}
		}
		if problem == nil && prop.Source == nil {
			problem = ErrNoPolicy
		}
		out.Attempts = append(out.Attempts, Attempt{Proposal: prop, Problem: problem})
		if problem == nil {
			src := prop.Source
			if tidy, ok := tidied(src); ok {
				// What Extract added sits on the first line; store the
				// file gofmt'ed, if it passes the check as well (it
				// should: only the layout changed).
				if prog2, problem, err := l.admit(ctx, tidy, game); err == nil && problem == nil {
					src, prog = tidy, prog2
				}
			}
			p := &store.Policy{Source: string(src), Origin: prop.Origin}
			p.Origin.Run, p.Origin.Iteration, p.Origin.Sample = t.Run, t.Iteration, t.Sample
			err := l.Store.Update(func(tx *store.Tx) (err error) {
				out.New, err = tx.PutPolicy(p)
				if err == nil && !out.New {
					p, err = tx.Policy(p.ID)
				}
				return err
			})
			if err != nil {
				return out, err
			}
			out.Policy, out.Program = p, prog
			l.logf("attempt %d: accepted policy %.12s", n, p.ID)
			return out, nil
		}
		l.logf("attempt %d: %s", n, OneLine(problem.Error()))
		if n >= limit {
			return out, nil
		}
		if t.CallsLeft > 0 && out.Calls() >= t.CallsLeft {
			// The run's planner-call budget admits no fix: what was
			// tried stands (the proposal is refused, as after the last
			// attempt).
			l.logf("attempt %d: no fix asked: the planner-call budget is spent", n)
			return out, nil
		}
		// The planner is shown the problem as it would be after a resume.
		done := l.Profile.Start(timing.Planning)
		prop, err = l.Planner.Fix(ctx, FixRequest{Task: t, Failed: prop, Problem: DescribeProblem(problem), Attempt: n})
		done()
	}
}

// admit checks a source for game, or reads back the verdict made before:
// admission depends on the machine (the cost budget is CPU time), so it is
// made once and stored, and a resumed run sees the same verdict and the
// same words. It returns the compiled program of an admitted source, or
// the problem of a refused one; err is a failure of the system.
func (l *FixLoop) admit(ctx context.Context, src []byte, game ssd.Game) (*sandbox.Program, error, error) {
	id := sandbox.SourceID(src)
	var a *store.Admission
	err := l.Store.View(func(tx *store.Tx) (err error) {
		a, err = tx.Admission(id, game.String())
		return err
	})
	switch {
	case err == nil && a.OK:
		defer l.Profile.Start(timing.Checking)()
		prog, err := l.Sandbox.Compile(ctx, src)
		if err != nil && !episode.PolicyFailure(err) {
			return nil, nil, fmt.Errorf("compile admitted policy: %w", err)
		}
		return prog, err, nil
	case err == nil:
		return nil, &Problem{Kind: a.Kind, Summary: a.Problem, Detail: a.Detail}, nil
	case !errors.Is(err, store.ErrNotFound):
		return nil, nil, err
	}
	done := l.Profile.Start(timing.Checking)
	prog, problem := l.Sandbox.Check(ctx, src, game)
	done()
	if problem != nil && !episode.PolicyFailure(problem) {
		return nil, nil, fmt.Errorf("check proposal: %w", problem)
	}
	verdict := &store.Admission{Policy: id, Game: game.String(), OK: problem == nil}
	if problem != nil {
		pr := DescribeProblem(problem)
		verdict.Kind, verdict.Problem, verdict.Detail = pr.Kind, pr.Summary, pr.Detail
	}
	if err := l.Store.Update(func(tx *store.Tx) error { return tx.PutAdmission(verdict) }); err != nil {
		return nil, nil, err
	}
	return prog, problem, nil
}

// tidied returns the source gofmt'ed when Extract added a package clause
// or imports on its first line ("package policy; …"), which keeps the
// model's line numbers for validation errors but reads badly.
func tidied(src []byte) ([]byte, bool) {
	if !bytes.HasPrefix(src, []byte("package policy; ")) {
		return nil, false
	}
	out, err := format.Source(src)
	if err != nil || bytes.Equal(out, src) {
		return nil, false
	}
	return out, true
}
