package evolve

import (
	"context"
	"errors"
	"fmt"

	"policyevolve/store"
)

// request is what a candidate asks its planner.
type request struct {
	op           string
	parent       string   // improve
	history      []string // chain: earlier iterations' policies, oldest first
	inspirations []string
	mate         string // crossover
	// planner, when set, writes instead of the plan's planner (GEPA: the
	// planner under a candidate's guidance).
	planner Planner
	// known accepts a policy written before instead of refusing it as a
	// duplicate (GEPA scores whatever a prompt makes the planner write).
	known bool
}

// propose runs one request through the fix loop: the planner's operator,
// admission (stored verdicts), the duplicate screen, storage.
func (j *Job) propose(ctx context.Context, it *store.Iteration, pc store.PlannedCandidate, sample int, r request) (*Outcome, error) {
	planner := j.planners[pc.Planner]
	if r.planner != nil {
		planner = r.planner
	}
	if planner == nil {
		return nil, fmt.Errorf("iteration %d: no planner %q", it.Index, pc.Planner)
	}
	task := Task{Env: j.env, Run: j.RunID, Iteration: it.Index, Iterations: j.Config.Iterations, Sample: sample,
		Seed: j.seedFor("task", it.Index, sample, pc.Seed), Feedback: Feedback(j.Config.Feedback)}
	task.Try = func(ctx context.Context, src []byte) string { return j.arena.Try(ctx, src, task.Feedback) }
	if limit := j.Config.MaxPlannerCalls; limit > 0 {
		j.mu.Lock()
		task.CallsLeft = max(1, limit-j.run.Usage.Proposals)
		j.mu.Unlock()
	}
	self := store.Origin{Run: j.RunID, Iteration: it.Index, Sample: sample, Operator: r.op}
	loop := &FixLoop{Planner: planner, Sandbox: j.Sandbox, Store: j.Store, Log: j.Log, Screen: j.dedupe.screen(self), Profile: j.profile}
	if r.known {
		loop.Screen = nil
	}
	var out *Outcome
	var err error
	switch r.op {
	case OpInit:
		out, err = loop.Init(ctx, InitRequest{Task: task})
	case OpCrossover:
		a, err := j.scored(ctx, r.parent)
		if err != nil {
			return nil, err
		}
		b, err := j.scored(ctx, r.mate)
		if err != nil {
			return nil, err
		}
		out, err = loop.Crossover(ctx, CrossoverRequest{Task: task, A: a, B: b})
	default:
		req := ImproveRequest{Task: task}
		if req.Parent, err = j.scored(ctx, r.parent); err != nil {
			return nil, err
		}
		for _, id := range r.history {
			s, err := j.scored(ctx, id)
			if err != nil {
				return nil, err
			}
			req.History = append(req.History, s)
		}
		for _, id := range r.inspirations {
			s, err := j.scored(ctx, id)
			if err != nil {
				return nil, err
			}
			req.Inspirations = append(req.Inspirations, s)
		}
		if task.Feedback == Raw {
			if req.Excerpt, err = j.arena.Excerpt(ctx, r.parent); err != nil {
				return nil, err
			}
		}
		if task.Feedback == Critic || planner.Name() == GrammarName {
			// The critic's findings (and, for planners that act on
			// numbers, its diagnostics).
			if req.Reflections, req.Diagnostics, err = j.arena.Reflect(ctx, r.parent, j.critic, j.RunID, it.Index); err != nil {
				return nil, err
			}
			if task.Feedback != Critic {
				req.Reflections = nil
			}
		}
		out, err = loop.Improve(ctx, req)
	}
	if err != nil {
		return out, err
	}
	if out.Policy != nil {
		j.dedupe.add(out.Policy)
	}
	return out, nil
}

// outcomeUsage is what a request cost, as a candidate records it.
func outcomeUsage(out *Outcome) store.RunUsage {
	if out == nil {
		return store.RunUsage{}
	}
	return runUsage(out.Calls(), out.Usage)
}

// runUsage is the record of proposals planner calls that cost u.
func runUsage(proposals int, u Usage) store.RunUsage {
	return store.RunUsage{Proposals: proposals, LLMCalls: u.LLMCalls, InputTokens: u.InputTokens,
		OutputTokens: u.OutputTokens, ReasoningTokens: u.ReasoningTokens, Cost: u.Cost}
}

func addUsage(a *store.RunUsage, b store.RunUsage) {
	a.Proposals += b.Proposals
	a.LLMCalls += b.LLMCalls
	a.InputTokens += b.InputTokens
	a.OutputTokens += b.OutputTokens
	a.ReasoningTokens += b.ReasoningTokens
	a.Cost += b.Cost
	a.Episodes += b.Episodes
}

// refusal describes a request none of whose attempts passed: duplicate or
// refused.
func refusal(out *Outcome) (status, problem string) {
	p := out.Problem()
	if p == nil {
		return store.CandidateRefused, "no proposal"
	}
	if errors.Is(p, ErrDuplicate) || DescribeProblem(p).Kind == "duplicate" {
		return store.CandidateDuplicate, p.Error()
	}
	return store.CandidateRefused, p.Error()
}

// metricsOf is an evaluation's mean metrics, or zero for none.
func metricsOf(ev *store.Evaluation) store.Metrics {
	if ev == nil {
		return store.Metrics{}
	}
	return ev.Mean
}
