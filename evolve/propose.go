package evolve

import (
	"context"
	"errors"
	"fmt"

	"policyevolve/evolve/planner"
	"policyevolve/evolve/search"
	"policyevolve/llm"
	"policyevolve/store"
)

// propose runs one request through the fix loop: the planner's operator,
// admission (stored verdicts), the duplicate screen, storage.
func (j *Job) propose(ctx context.Context, it *store.Iteration, pc store.PlannedCandidate, sample int, r search.Request) (*planner.Outcome, error) {
	pl := j.planners[pc.Planner]
	if r.Planner != nil {
		pl = r.Planner
	}
	if pl == nil {
		return nil, fmt.Errorf("iteration %d: no planner %q", it.Index, pc.Planner)
	}
	task := planner.Task{Env: j.env, Run: j.RunID, Iteration: it.Index, Iterations: j.Config.Iterations, Sample: sample,
		Seed: j.seedFor("task", it.Index, sample, pc.Seed), Feedback: planner.Feedback(j.Config.Feedback)}
	task.Try = TryFunc(j.arena, task.Feedback)
	if j.Config.Objective.Exploits() {
		var err error
		if task.Target, err = j.target(); err != nil {
			return nil, err
		}
	}
	if limit := j.Config.MaxPlannerCalls; limit > 0 {
		j.mu.Lock()
		task.CallsLeft = max(1, limit-j.run.Usage.Proposals-r.Spent)
		j.mu.Unlock()
	}
	self := store.Origin{Run: j.RunID, Iteration: it.Index, Sample: sample, Operator: r.Op}
	loop := &planner.FixLoop{Planner: pl, Sandbox: j.Sandbox, Store: j.Store, Log: j.Log, Screen: j.dedupe.screen(self), Profile: j.profile}
	if r.Known {
		loop.Screen = nil
	}
	var out *planner.Outcome
	var err error
	switch r.Op {
	case planner.OpInit:
		out, err = loop.Init(ctx, planner.InitRequest{Task: task})
	case planner.OpCrossover:
		// Assigned, not declared: a := here would shadow err, and the
		// crossover's error would vanish (staticcheck SA4006 in .ci/run).
		var a, b planner.Scored
		if a, err = j.scored(ctx, r.Parent); err != nil {
			return nil, err
		}
		if b, err = j.scored(ctx, r.Mate); err != nil {
			return nil, err
		}
		out, err = loop.Crossover(ctx, planner.CrossoverRequest{Task: task, A: a, B: b})
	default:
		req := planner.ImproveRequest{Task: task}
		if req.Parent, err = j.scored(ctx, r.Parent); err != nil {
			return nil, err
		}
		for _, id := range r.History {
			s, err := j.scored(ctx, id)
			if err != nil {
				return nil, err
			}
			req.History = append(req.History, s)
		}
		for _, id := range r.Inspirations {
			s, err := j.scored(ctx, id)
			if err != nil {
				return nil, err
			}
			req.Inspirations = append(req.Inspirations, s)
		}
		if task.Feedback == planner.Raw {
			if req.Excerpt, err = j.arena.Excerpt(ctx, r.Parent); err != nil {
				return nil, err
			}
		}
		if task.Feedback == planner.Critic || pl.Name() == planner.GrammarName {
			// The critic's findings (and, for planners that act on
			// numbers, its diagnostics).
			if req.Reflections, req.Diagnostics, err = j.arena.Reflect(ctx, r.Parent, j.critic, j.RunID, it.Index); err != nil {
				return nil, err
			}
			if task.Feedback != planner.Critic {
				req.Reflections = nil
			}
		}
		out, err = loop.Improve(ctx, req)
	}
	if out != nil {
		j.proposed.Add(int64(len(out.Attempts)))
	}
	if errors.Is(err, llm.ErrNotAdmitted) {
		// A call before the planner's (the LLM critic's) that the budget
		// does not admit ends the request like the planner's own.
		return &planner.Outcome{Stopped: err}, nil
	}
	if err != nil {
		return out, err
	}
	if out.Policy != nil {
		j.dedupe.add(out.Policy)
	}
	return out, nil
}

// scored loads a policy with its evaluation (evaluating it when needed)
// and its rating in the global pool, as a planner is shown it.
func (j *Job) scored(ctx context.Context, id string) (planner.Scored, error) {
	var p *store.Policy
	var r *store.Rating
	err := j.Store.View(func(tx *store.Tx) (err error) {
		if p, err = tx.Policy(id); err != nil {
			return err
		}
		r, err = tx.Rating(j.arena.GlobalPool(), id)
		if errors.Is(err, store.ErrNotFound) {
			err = nil
		}
		return err
	})
	if err != nil {
		return planner.Scored{}, err
	}
	// Under an objective that Exploits, what is shown is the invasion
	// (its reward per agent is the invaders').
	ev, err := search.Scored(ctx, j.arena, id)
	if err != nil {
		return planner.Scored{}, err
	}
	s := planner.Scored{Policy: *p, Eval: ev}
	if r != nil {
		s.Elo, s.Rated = r.Elo, true
	}
	return s, nil
}

// target is the exploit objective's target as a planner is shown it.
func (j *Job) target() (*planner.Target, error) {
	var p *store.Policy
	if err := j.Store.View(func(tx *store.Tx) (err error) {
		p, err = tx.Policy(j.Config.Against)
		return err
	}); err != nil {
		return nil, fmt.Errorf("exploit target %.12s: %w", j.Config.Against, err)
	}
	t := &planner.Target{Name: p.Name, Builtin: p.Builtin, Invaders: j.Config.Invaders}
	if t.Name == "" {
		t.Name = p.ID[:12]
	}
	if p.Builtin == "" {
		t.Source = p.Source
	}
	return t, nil
}
