package evolve

import (
	"context"
	"time"

	"policyevolve/store"
)

// chain runs the paper's Algorithm 1: iteration 0 writes a policy from
// scratch, iterations 1…K rewrite the last policy admitted, shown its
// source and the feedback on every earlier iteration; each is evaluated in
// self-play on the evaluation seeds. The champion is the iteration with
// the best mean per-agent reward (efficiency).
func (j *Job) chain(ctx context.Context) error {
	for i := j.run.Iterations; i <= j.Config.Iterations; i++ {
		it, err := j.beginIteration(i)
		if err != nil || it == nil {
			return err
		}
		history, err := j.chainHistory(i)
		if err != nil {
			return err
		}
		if len(it.Plan) == 0 {
			pc := store.PlannedCandidate{Sample: 0, Operator: OpInit, Planner: j.Config.Planners[0], Seed: j.seedFor("chain", i)}
			if len(history) > 0 {
				pc.Operator, pc.Parents = OpImprove, []string{history[len(history)-1]}
			}
			it.Plan = []store.PlannedCandidate{pc}
			if err := j.saveIteration(it); err != nil {
				return err
			}
		}
		j.emit(Event{Kind: EventIteration, Iteration: i})
		if c := candidate(it, 0); c == nil || c.Status == store.CandidateProposed {
			if reason, err := j.budgetNow(); err != nil {
				return err
			} else if reason != "" && c == nil {
				return nil
			}
			r := request{op: it.Plan[0].Operator}
			if r.op == OpImprove {
				r.parent, r.history = it.Plan[0].Parents[0], history
			}
			if err := j.chainStep(ctx, it, r); err != nil {
				return err
			}
		}
		if err := j.closeIteration(ctx, it, j.chainChampion); err != nil {
			return err
		}
	}
	return nil
}

// chainHistory lists the policies the chain admitted before iteration i,
// oldest first.
func (j *Job) chainHistory(i int) ([]string, error) {
	var out []string
	err := j.Store.View(func(tx *store.Tx) error {
		for k := 0; k < i; k++ {
			it, err := tx.Iteration(j.RunID, k)
			if err != nil {
				return err
			}
			if c := candidate(it, 0); c != nil && c.Policy != "" {
				out = append(out, c.Policy)
			}
		}
		return nil
	})
	return out, err
}

// chainStep proposes an iteration's one policy with r, and evaluates it
// (chain and gepa).
func (j *Job) chainStep(ctx context.Context, it *store.Iteration, r request) error {
	pc := it.Plan[0]
	c := candidate(it, 0)
	before := j.arena.Episodes() // the critic's, then the evaluation's
	if c == nil {
		j.emit(Event{Kind: EventPhase, Iteration: it.Index, Phase: "propose"})
		out, err := j.propose(ctx, it, pc, 0, r)
		if err != nil {
			return err
		}
		nc := store.Candidate{Sample: 0, Attempts: len(out.Attempts), Usage: outcomeUsage(out), Status: store.CandidateProposed}
		countRefusals(&nc, out)
		if out.Policy == nil {
			nc.Status, nc.Problem = refusal(out)
		} else {
			nc.Policy = out.Policy.ID
		}
		setCandidate(it, nc)
		addUsage(&it.Usage, nc.Usage)
		if err := j.saveIteration(it); err != nil {
			return err
		}
		c = candidate(it, 0)
	}
	if c.Status != store.CandidateProposed {
		j.emit(Event{Kind: EventCandidate, Iteration: it.Index, Candidate: c})
		return nil
	}
	j.emit(Event{Kind: EventPhase, Iteration: it.Index, Phase: "evaluate"})
	ev, err := j.arena.Evaluate(ctx, c.Policy)
	if err != nil {
		return err
	}
	it.Usage.Episodes += j.arena.Episodes() - before
	c.Metrics, c.Status = ev.Mean, store.CandidateEvaluated
	if ev.Status != store.StatusOK {
		c.Status, c.Problem = store.CandidateFailed, ev.Error
		countFailures(c, ev)
	}
	if err := j.saveIteration(it); err != nil {
		return err
	}
	j.emit(Event{Kind: EventCandidate, Iteration: it.Index, Candidate: c})
	return nil
}

// chainChampion is the admitted policy with the best efficiency so far.
func (j *Job) chainChampion(ctx context.Context, it *store.Iteration) (string, store.Metrics, float64, error) {
	var best string
	var bestM store.Metrics
	err := j.Store.View(func(tx *store.Tx) error {
		for k := 0; k <= it.Index; k++ {
			var ik *store.Iteration
			if k == it.Index {
				ik = it
			} else {
				var err error
				if ik, err = tx.Iteration(j.RunID, k); err != nil {
					return err
				}
			}
			c := candidate(ik, 0)
			if c == nil || c.Status != store.CandidateEvaluated {
				continue
			}
			if best == "" || c.Metrics.Efficiency > bestM.Efficiency {
				best, bestM = c.Policy, c.Metrics
			}
		}
		return nil
	})
	return best, bestM, 0, err
}

// closeIteration marks an iteration done with the run's champion after it,
// and moves the run on.
func (j *Job) closeIteration(ctx context.Context, it *store.Iteration,
	champion func(context.Context, *store.Iteration) (string, store.Metrics, float64, error)) error {
	id, m, e, err := champion(ctx, it)
	if err != nil {
		return err
	}
	it.Champion, it.Best, it.BestElo, it.Done, it.Finished = id, m, e, true, time.Now().UTC()
	if err := j.saveIteration(it); err != nil {
		return err
	}
	j.run.Iterations, j.run.Champion = it.Index+1, id
	if err := j.saveRun(); err != nil {
		return err
	}
	now := j.profile.Snapshot()
	lap := now.Sub(j.lap)
	j.lap = now
	j.emit(Event{Kind: EventIterationDone, Iteration: it.Index, Champion: id, Best: &m, BestElo: e, Profile: &lap})
	return nil
}
