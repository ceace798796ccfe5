package gepa

import (
	"context"
	"fmt"
	"math/rand/v2"

	"policyevolve/evolve/planner"
	"policyevolve/evolve/search"
	"policyevolve/evolve/timing"
	"policyevolve/store"
)

// Config is what GEPA reads of the job's configuration (evolve.JobConfig,
// defaults applied).
type Config struct {
	// Planner is the spec of the one planner whose prompt evolves; it must
	// be a planner.GuidedPlanner.
	Planner string
	// EvalSeeds are GEPA's instances: a candidate is scored on each.
	EvalSeeds []uint64
	// Iterations is K, the reflections after the seed candidate.
	Iterations int
	// Feedback is what a reflection is shown: planner.Sparse (the paper's:
	// the reward per seed only), Dense or Critic.
	Feedback planner.Feedback
	// MaxPlannerCalls is the run's planner-call budget (0: none).
	MaxPlannerCalls int
}

// Mode is GEPA-style prompt evolution, as the paper's run_gepa_ssd.py
// runs GEPA: what evolves is not code but the strategy guidance of the
// planner's system prompt. Iteration 0 is the seed candidate (no
// guidance); iteration k = 1…K picks a parent on the Pareto front, asks
// the planner to reflect on it (one planner call: the parent's guidance,
// the policy it led to and that policy's reward per seed —
// docs/decisions.md: no social metrics, no diagnostics, unless the
// feedback level asks for them), then has the planner write a policy from
// scratch under the new guidance (one planner call, fixes aside) and
// evaluates it in self-play.
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
type Mode struct {
	run  search.Run
	cfg  Config
	base planner.GuidedPlanner
}

var _ search.Mode = (*Mode)(nil)

// New returns GEPA of cfg, run in run: an error when the planner cannot
// write under strategy guidance.
func New(run search.Run, cfg Config) (*Mode, error) {
	base, ok := run.Planner(cfg.Planner).(planner.GuidedPlanner)
	if !ok {
		return nil, fmt.Errorf("gepa: planner %s cannot write under strategy guidance", cfg.Planner)
	}
	return &Mode{run: run, cfg: cfg, base: base}, nil
}

// Iterations is K+1: the seed candidate and K reflections.
func (m *Mode) Iterations() int { return m.cfg.Iterations + 1 }

// Plan stores the iteration's candidate and the parent it will be
// reflected from, unless they are stored; a budget reached first stops
// the run.
func (m *Mode) Plan(ctx context.Context, it *store.Iteration) (bool, error) {
	if it.Prompt != nil {
		return true, nil
	}
	if reason, err := m.budget(it.Index); err != nil || reason != "" {
		return false, err
	}
	return true, m.plan(it)
}

// Play reflects (after the seed candidate), writes the candidate's policy
// and scores it, each step unless stored; a budget reached before the
// policy is written stops the run.
func (m *Mode) Play(ctx context.Context, it *store.Iteration) (bool, error) {
	if it.Index > 0 && !it.Prompt.Reflected {
		if err := m.reflect(ctx, it); err != nil || !it.Prompt.Reflected {
			return false, err // not reflected: the budget did not admit the call
		}
	}
	if c := it.Candidate(0); c == nil || c.Status == store.CandidateProposed {
		if m.run.ShouldStop() {
			return false, nil
		}
		if err := m.write(ctx, it); err != nil {
			return false, err
		}
		if c := it.Candidate(0); c == nil {
			return false, nil // a budget was reached before the policy was written
		}
	}
	if !it.Prompt.Scored {
		if err := m.score(ctx, it); err != nil {
			return false, err
		}
	}
	return true, nil
}

// budget is the run's Budget, and after the seed candidate it also stops
// when fewer than two planner calls are left: a reflection is worth
// nothing without the policy it leads to.
func (m *Mode) budget(i int) (string, error) {
	reason, err := m.run.Budget(store.RunUsage{})
	if err != nil || reason != "" || i == 0 || m.cfg.MaxPlannerCalls <= 0 {
		return reason, err
	}
	if left := m.cfg.MaxPlannerCalls - m.run.Usage().Proposals; left < 2 {
		reason = fmt.Sprintf("planner-call budget reached (%d): a reflection and the policy it leads to take 2 calls, %d left",
			m.cfg.MaxPlannerCalls, left)
		m.run.StopForBudget(reason)
	}
	return reason, nil
}

// plan stores the iteration's plan: its candidate, and the parent it
// will be reflected from (drawn now, from the pool as it stands).
func (m *Mode) plan(it *store.Iteration) error {
	p := &store.PromptCandidate{ID: it.Index, Parent: -1}
	if it.Index > 0 {
		pool, err := m.pool(it.Index)
		if err != nil {
			return err
		}
		front := Front(m.cfg.EvalSeeds, pool)
		p.Parent = SelectParent(front, pool, rand.New(rand.NewPCG(m.run.SeedFor("gepa-parent", it.Index), 0)))
	}
	it.Prompt = p
	it.Plan = []store.PlannedCandidate{{Sample: 0, Operator: planner.OpInit, Planner: m.cfg.Planner, Seed: m.run.SeedFor("gepa", it.Index)}}
	return m.run.Save(it)
}

// pool is the candidates accepted before iteration i, in order.
func (m *Mode) pool(i int) ([]Scored, error) {
	var pool []Scored
	err := m.run.Store().View(func(tx *store.Tx) error {
		for k := 0; k < i; k++ {
			ik, err := tx.Iteration(m.run.ID(), k)
			if err != nil {
				return err
			}
			if p := ik.Prompt; p != nil && p.Accepted {
				pool = append(pool, Scored{ID: p.ID, Scores: p.Scores})
			}
		}
		return nil
	})
	return pool, err
}

// reflect asks the planner for the iteration's guidance, reflecting on
// its parent, and records the answer (one planner call).
func (m *Mode) reflect(ctx context.Context, it *store.Iteration) error {
	m.run.Phase(it.Index, "reflect")
	var parent *store.Iteration
	if err := m.run.Store().View(func(tx *store.Tx) (err error) {
		parent, err = tx.Iteration(m.run.ID(), it.Prompt.Parent)
		return err
	}); err != nil {
		return err
	}
	a := m.run.Arena()
	// Sample is the iteration: two reflections on the same parent are
	// different requests (docs/decisions.md: the n-th draw is not the
	// (n+1)-th).
	req := planner.ReflectRequest{Task: planner.Task{Env: a.Env, Run: m.run.ID(), Iteration: it.Index, Iterations: m.cfg.Iterations,
		Sample: it.Index, Seed: m.run.SeedFor("gepa-reflect", it.Index), Feedback: m.cfg.Feedback},
		Guidance: parent.Prompt.Guidance}
	policy := ""
	if c := parent.Candidate(0); c != nil {
		policy, req.Problem = c.Policy, c.Problem
	}
	before := a.Episodes()
	var err error
	if req.Seeds, err = m.seedScores(ctx, policy); err != nil {
		return err
	}
	if policy != "" {
		if req.Policy, err = m.run.Scored(ctx, policy); err != nil {
			return err
		}
		if req.Feedback == planner.Critic {
			if req.Reflections, req.Diagnostics, err = a.Reflect(ctx, policy, m.run.Critic(), m.run.ID(), it.Index); err != nil {
				return err
			}
		}
	}
	done := m.run.Profile().Start(timing.Planning)
	r, err := m.base.Reflect(ctx, req)
	done()
	if err != nil {
		return fmt.Errorf("%s, reflection: %w", m.base.Name(), err)
	}
	if r.Stopped != nil {
		return nil // the budget stops the run here (Play sees it)
	}
	p := it.Prompt
	p.Reflected, p.Guidance, p.Notes, p.Call = true, r.Guidance, r.Notes, r.Call
	if r.Problem != nil {
		p.Problem = r.Problem.Error()
	}
	it.Usage.Add(search.UsageOf(1, r.Usage))
	it.Usage.Episodes += a.Episodes() - before // the critic's recorded episodes
	m.run.Logf("iteration %d: reflected on candidate %d: %s", it.Index, p.Parent, planner.OneLine(p.Guidance))
	return m.run.Save(it)
}

// write has the planner write the iteration's policy under its
// candidate's guidance, and evaluates it. A policy written before (by
// this run or another) is not refused as a duplicate: GEPA scores what a
// prompt makes the planner write. A reflection that gave no guidance
// leaves the candidate refused; a budget reached since the reflection
// leaves it unwritten (the run stops).
func (m *Mode) write(ctx context.Context, it *store.Iteration) error {
	if c := it.Candidate(0); c == nil {
		if it.Prompt.Problem != "" {
			c := store.Candidate{Sample: 0, Status: store.CandidateRefused, Problem: "reflection: " + it.Prompt.Problem}
			it.SetCandidate(c)
			m.run.Settled(it.Index, &c)
			return m.run.Save(it)
		}
		if reason, err := m.run.Budget(store.RunUsage{}); err != nil || reason != "" {
			return err
		}
	}
	guided, err := m.base.Guide(it.Prompt.Guidance)
	if err != nil {
		return fmt.Errorf("gepa: candidate %d: %w", it.Prompt.ID, err)
	}
	_, err = search.Single(ctx, m.run, it, search.Request{Op: planner.OpInit, Planner: guided, Known: true})
	return err
}

// score records the candidate's per-seed scores, whether it joins the
// pool, and the Pareto front after it.
func (m *Mode) score(ctx context.Context, it *store.Iteration) error {
	p, c := it.Prompt, it.Candidate(0)
	seeds, err := m.seedScores(ctx, c.Policy)
	if err != nil {
		return err
	}
	p.Scores = make([]float64, len(seeds))
	for k, s := range seeds {
		p.Scores[k] = s.Score
	}
	p.Scored = true
	pool, err := m.pool(it.Index)
	if err != nil {
		return err
	}
	p.Accepted = it.Index == 0
	if c.Status == store.CandidateEvaluated && it.Index > 0 {
		for _, q := range pool {
			if q.ID == p.Parent {
				p.Accepted = (Scored{Scores: p.Scores}).Total() > q.Total()
			}
		}
	}
	if p.Accepted {
		pool = append(pool, Scored{ID: p.ID, Scores: p.Scores})
	}
	it.Front = Front(m.cfg.EvalSeeds, pool)
	return m.run.Save(it)
}

// seedScores is a policy's evaluation seed by seed, in the order of the
// run's seeds, as GEPA scores it; zeros when there is no policy.
func (m *Mode) seedScores(ctx context.Context, policy string) ([]planner.SeedScore, error) {
	out := make([]planner.SeedScore, len(m.cfg.EvalSeeds))
	for k, seed := range m.cfg.EvalSeeds {
		out[k].Seed = seed
	}
	if policy == "" {
		return out, nil
	}
	ev, err := m.run.Arena().Evaluate(ctx, policy)
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

// Champion is the policy of the accepted candidate with the best mean
// score so far (the earliest on a tie).
func (m *Mode) Champion(_ context.Context, it *store.Iteration) (search.Champion, error) {
	var best search.Champion
	var bestTotal float64
	err := m.run.Store().View(func(tx *store.Tx) error {
		for k := 0; k <= it.Index; k++ {
			ik := it
			if k < it.Index {
				var err error
				if ik, err = tx.Iteration(m.run.ID(), k); err != nil {
					return err
				}
			}
			c := ik.Candidate(0)
			if ik.Prompt == nil || !ik.Prompt.Accepted || c == nil || c.Status != store.CandidateEvaluated {
				continue
			}
			if t := (Scored{Scores: ik.Prompt.Scores}).Total(); best.Policy == "" || t > bestTotal {
				best.Policy, best.Metrics, bestTotal = c.Policy, c.Metrics, t
			}
		}
		return nil
	})
	return best, err
}
