package evolve

import (
	"context"
	"fmt"
	"math/rand/v2"

	"policyevolve/store"
)

// gepa runs GEPA-style prompt evolution, as the paper's run_gepa_ssd.py
// runs GEPA: what evolves is not code but the strategy guidance of the
// planner's system prompt. Iteration 0 is the seed candidate (no
// guidance); iteration k = 1…K picks a parent on the Pareto front, asks
// the planner to reflect on it (one planner call: the parent's guidance,
// the policy it led to and that policy's reward per seed — DECISIONS: no
// social metrics, no diagnostics, unless the feedback level asks for
// them), then has the planner write a policy from scratch under the new
// guidance (one planner call, fixes aside) and evaluates it in self-play.
//
// A candidate's scores are its policy's mean per-agent return on each
// evaluation seed (0 for a seed that failed, or all seeds when it wrote
// no policy); the seeds are GEPA's instances. The seed candidate is always
// accepted into the candidate pool; a child only when its policy was
// evaluated on every seed and its scores sum strictly above its parent's
// (GEPA's test on the minibatch, which here is every seed). Parents are
// drawn from the front over seeds, dominated candidates dropped, in
// proportion to how many seeds' fronts each stands on. The champion is the
// accepted candidate's policy with the best mean score.
//
// Each step is stored before the next (the plan and parent, the
// reflection, the policy, its scores, the front), so a resumed run redoes
// at most the step in flight, and an LLM answer it had is found again in
// the ledger.
func (j *Job) gepa(ctx context.Context) error {
	spec := j.Config.Planners[0]
	base, ok := j.planners[spec].(GuidedPlanner)
	if !ok {
		return fmt.Errorf("gepa: planner %s cannot write under strategy guidance", spec)
	}
	for i := j.run.Iterations; i <= j.Config.Iterations; i++ {
		it, err := j.beginIteration(i)
		if err != nil || it == nil {
			return err
		}
		if it.Prompt == nil {
			if reason, err := j.gepaBudget(i); err != nil || reason != "" {
				return err
			}
			if err := j.gepaPlan(it, spec); err != nil {
				return err
			}
		}
		j.emit(Event{Kind: EventIteration, Iteration: i})
		if i > 0 && !it.Prompt.Reflected {
			if err := j.gepaReflect(ctx, base, it); err != nil {
				return err
			}
		}
		if c := candidate(it, 0); c == nil || c.Status == store.CandidateProposed {
			if j.shouldStop() {
				return nil
			}
			if err := j.gepaWrite(ctx, base, it); err != nil {
				return err
			}
			if c := candidate(it, 0); c == nil {
				return nil // a budget was reached before the policy was written
			}
		}
		if !it.Prompt.Scored {
			if err := j.gepaScore(ctx, it); err != nil {
				return err
			}
		}
		if err := j.closeIteration(ctx, it, j.gepaChampion); err != nil {
			return err
		}
	}
	return nil
}

// gepaBudget is budgetNow, and after the seed candidate it also stops
// when fewer than two planner calls are left: a reflection is worth
// nothing without the policy it leads to.
func (j *Job) gepaBudget(i int) (string, error) {
	reason, err := j.budgetNow()
	if err != nil || reason != "" || i == 0 || j.Config.MaxPlannerCalls <= 0 {
		return reason, err
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if left := j.Config.MaxPlannerCalls - j.run.Usage.Proposals; left < 2 {
		reason = fmt.Sprintf("planner-call budget reached (%d): a reflection and the policy it leads to take 2 calls, %d left",
			j.Config.MaxPlannerCalls, left)
		if j.run.StopReason == "" {
			j.run.StopReason = reason
		}
	}
	return reason, nil
}

// gepaPlan stores the iteration's plan: its candidate, and the parent it
// will be reflected from (drawn now, from the pool as it stands).
func (j *Job) gepaPlan(it *store.Iteration, spec string) error {
	p := &store.PromptCandidate{ID: it.Index, Parent: -1}
	if it.Index > 0 {
		pool, err := j.gepaPool(it.Index)
		if err != nil {
			return err
		}
		front := paretoFront(j.Config.EvalSeeds, pool)
		p.Parent = selectParent(front, pool, rand.New(rand.NewPCG(j.seedFor("gepa-parent", it.Index), 0)))
	}
	it.Prompt = p
	it.Plan = []store.PlannedCandidate{{Sample: 0, Operator: OpInit, Planner: spec, Seed: j.seedFor("gepa", it.Index)}}
	return j.saveIteration(it)
}

// gepaPool is the candidates accepted before iteration i, in order.
func (j *Job) gepaPool(i int) ([]scoredPrompt, error) {
	var pool []scoredPrompt
	err := j.Store.View(func(tx *store.Tx) error {
		for k := 0; k < i; k++ {
			ik, err := tx.Iteration(j.RunID, k)
			if err != nil {
				return err
			}
			if p := ik.Prompt; p != nil && p.Accepted {
				pool = append(pool, scoredPrompt{id: p.ID, scores: p.Scores})
			}
		}
		return nil
	})
	return pool, err
}

// gepaReflect asks the planner for the iteration's guidance, reflecting
// on its parent, and records the answer (one planner call).
func (j *Job) gepaReflect(ctx context.Context, base GuidedPlanner, it *store.Iteration) error {
	j.emit(Event{Kind: EventPhase, Iteration: it.Index, Phase: "reflect"})
	var parent *store.Iteration
	if err := j.Store.View(func(tx *store.Tx) (err error) {
		parent, err = tx.Iteration(j.RunID, it.Prompt.Parent)
		return err
	}); err != nil {
		return err
	}
	// Sample is the iteration: two reflections on the same parent are
	// different requests (DECISIONS: the n-th draw is not the (n+1)-th).
	req := ReflectRequest{Task: Task{Env: j.env, Run: j.RunID, Iteration: it.Index, Iterations: j.Config.Iterations,
		Sample: it.Index, Seed: j.seedFor("gepa-reflect", it.Index), Feedback: Feedback(j.Config.Feedback)},
		Guidance: parent.Prompt.Guidance}
	policy := ""
	if c := candidate(parent, 0); c != nil {
		policy, req.Problem = c.Policy, c.Problem
	}
	before := j.arena.Episodes()
	var err error
	if req.Seeds, err = j.seedScores(ctx, policy); err != nil {
		return err
	}
	if policy != "" {
		if req.Policy, err = j.scored(ctx, policy); err != nil {
			return err
		}
		if req.Feedback == Critic {
			if req.Reflections, req.Diagnostics, err = j.arena.Reflect(ctx, policy, j.critic, j.RunID, it.Index); err != nil {
				return err
			}
		}
	}
	done := j.profile.start(Planning)
	r, err := base.Reflect(ctx, req)
	done()
	if err != nil {
		return fmt.Errorf("%s, reflection: %w", base.Name(), err)
	}
	p := it.Prompt
	p.Reflected, p.Guidance, p.Notes, p.Call = true, r.Guidance, r.Notes, r.Call
	if r.Problem != nil {
		p.Problem = r.Problem.Error()
	}
	addUsage(&it.Usage, runUsage(1, r.Usage))
	it.Usage.Episodes += j.arena.Episodes() - before // the critic's recorded episodes
	j.logf("iteration %d: reflected on candidate %d: %s", it.Index, p.Parent, oneLine(p.Guidance))
	return j.saveIteration(it)
}

// gepaWrite has the planner write the iteration's policy under its
// candidate's guidance, and evaluates it. A policy written before (by
// this run or another) is not refused as a duplicate: GEPA scores what a
// prompt makes the planner write. A reflection that gave no guidance
// leaves the candidate refused; a budget reached since the reflection
// leaves it unwritten (the run stops).
func (j *Job) gepaWrite(ctx context.Context, base GuidedPlanner, it *store.Iteration) error {
	if c := candidate(it, 0); c == nil {
		if it.Prompt.Problem != "" {
			c := store.Candidate{Sample: 0, Status: store.CandidateRefused, Problem: "reflection: " + it.Prompt.Problem}
			setCandidate(it, c)
			j.emit(Event{Kind: EventCandidate, Iteration: it.Index, Candidate: &c})
			return j.saveIteration(it)
		}
		if reason, err := j.budgetNow(); err != nil || reason != "" {
			return err
		}
	}
	guided, err := base.Guide(it.Prompt.Guidance)
	if err != nil {
		return fmt.Errorf("gepa: candidate %d: %w", it.Prompt.ID, err)
	}
	return j.chainStep(ctx, it, request{op: OpInit, planner: guided, known: true})
}

// gepaScore records the candidate's per-seed scores, whether it joins the
// pool, and the Pareto front after it.
func (j *Job) gepaScore(ctx context.Context, it *store.Iteration) error {
	p, c := it.Prompt, candidate(it, 0)
	seeds, err := j.seedScores(ctx, c.Policy)
	if err != nil {
		return err
	}
	p.Scores = make([]float64, len(seeds))
	for k, s := range seeds {
		p.Scores[k] = s.Score
	}
	p.Scored = true
	pool, err := j.gepaPool(it.Index)
	if err != nil {
		return err
	}
	p.Accepted = it.Index == 0
	if c.Status == store.CandidateEvaluated && it.Index > 0 {
		for _, q := range pool {
			if q.id == p.Parent {
				p.Accepted = (scoredPrompt{scores: p.Scores}).total() > q.total()
			}
		}
	}
	if p.Accepted {
		pool = append(pool, scoredPrompt{id: p.ID, scores: p.Scores})
	}
	it.Front = paretoFront(j.Config.EvalSeeds, pool)
	return j.saveIteration(it)
}

// seedScores is a policy's evaluation seed by seed, in the order of the
// run's seeds, as GEPA scores it; zeros when there is no policy.
func (j *Job) seedScores(ctx context.Context, policy string) ([]SeedScore, error) {
	out := make([]SeedScore, len(j.Config.EvalSeeds))
	for k, seed := range j.Config.EvalSeeds {
		out[k].Seed = seed
	}
	if policy == "" {
		return out, nil
	}
	ev, err := j.arena.Evaluate(ctx, policy)
	if err != nil {
		return nil, err
	}
	for k := range out {
		for _, r := range ev.PerSeed {
			switch {
			case r.Seed != out[k].Seed:
			case r.Status != store.StatusOK || len(r.Returns) == 0:
				out[k].Failed = r.Error
				if out[k].Failed == "" {
					out[k].Failed = "no returns"
				}
			default:
				var sum float64
				for _, x := range r.Returns {
					sum += x
				}
				out[k].Score, out[k].Metrics = sum/float64(len(r.Returns)), r.Metrics
			}
		}
	}
	return out, nil
}

// gepaChampion is the policy of the accepted candidate with the best mean
// score so far (the earliest on a tie).
func (j *Job) gepaChampion(_ context.Context, it *store.Iteration) (string, store.Metrics, float64, error) {
	var best string
	var bestM store.Metrics
	var bestTotal float64
	err := j.Store.View(func(tx *store.Tx) error {
		for k := 0; k <= it.Index; k++ {
			ik := it
			if k < it.Index {
				var err error
				if ik, err = tx.Iteration(j.RunID, k); err != nil {
					return err
				}
			}
			c := candidate(ik, 0)
			if ik.Prompt == nil || !ik.Prompt.Accepted || c == nil || c.Status != store.CandidateEvaluated {
				continue
			}
			if t := (scoredPrompt{scores: ik.Prompt.Scores}).total(); best == "" || t > bestTotal {
				best, bestM, bestTotal = c.Policy, c.Metrics, t
			}
		}
		return nil
	})
	return best, bestM, 0, err
}
