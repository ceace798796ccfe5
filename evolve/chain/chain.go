package chain

import (
	"context"

	"policyevolve/evolve/planner"
	"policyevolve/evolve/search"
	"policyevolve/pool"
	"policyevolve/store"
)

// Config is what a chain reads of the job's configuration.
type Config struct {
	// Planner is the spec of the planner that writes every iteration.
	Planner string
	// Iterations is K, the refinements after the initial policy.
	Iterations int
	// Recheck are the seeds a contender for champion is also played on
	// (none: the evaluation seeds alone decide).
	Recheck []uint64
	// Objective is the run's: a chain crowns its best in self-play
	// (pool.Welfare's rule), unless the objective Exploits, when it
	// crowns by that objective's rule (the best invader).
	Objective pool.Objective
}

// Mode is the paper's Algorithm 1: iteration 0 writes a policy from
// scratch, iterations 1…K rewrite the last policy admitted, shown its
// source and the feedback on every earlier iteration; each is evaluated in
// self-play on the evaluation seeds. The champion is the iteration with
// the best mean per-agent reward (efficiency), rechecked on more seeds
// (Config.Recheck).
type Mode struct {
	run search.Run
	cfg Config
}

var _ search.Mode = (*Mode)(nil)

// New returns the chain of cfg, run in run.
func New(run search.Run, cfg Config) *Mode { return &Mode{run: run, cfg: cfg} }

// Iterations is K+1: the initial policy and K refinements.
func (m *Mode) Iterations() int { return m.cfg.Iterations + 1 }

// Plan stores the iteration's one candidate: from scratch, or an
// improvement of the last policy admitted.
func (m *Mode) Plan(ctx context.Context, it *store.Iteration) (bool, error) {
	if len(it.Plan) > 0 {
		return true, nil
	}
	history, err := m.history(it.Index)
	if err != nil {
		return false, err
	}
	pc := store.PlannedCandidate{Sample: 0, Operator: planner.OpInit, Planner: m.cfg.Planner, Seed: m.run.SeedFor("chain", it.Index)}
	if len(history) > 0 {
		pc.Operator, pc.Parents = planner.OpImprove, []string{history[len(history)-1]}
	}
	it.Plan = []store.PlannedCandidate{pc}
	return true, m.run.Save(it)
}

// Play proposes and evaluates the iteration's candidate; a budget reached
// before it is proposed stops the run.
func (m *Mode) Play(ctx context.Context, it *store.Iteration) (bool, error) {
	c := it.Candidate(0)
	if c != nil && c.Status != store.CandidateProposed {
		return true, nil
	}
	if reason, err := m.run.Budget(store.RunUsage{}); err != nil {
		return false, err
	} else if reason != "" && c == nil {
		return false, nil
	}
	r := search.Request{Op: it.Plan[0].Operator}
	if r.Op == planner.OpImprove {
		history, err := m.history(it.Index)
		if err != nil {
			return false, err
		}
		r.Parent, r.History = it.Plan[0].Parents[0], history
	}
	return search.Single(ctx, m.run, it, r)
}

// history lists the policies the chain admitted before iteration i,
// oldest first.
func (m *Mode) history(i int) ([]string, error) {
	var out []string
	err := m.run.Store().View(func(tx *store.Tx) error {
		for k := 0; k < i; k++ {
			it, err := tx.Iteration(m.run.ID(), k)
			if err != nil {
				return err
			}
			if c := it.Candidate(0); c != nil && c.Policy != "" {
				out = append(out, c.Policy)
			}
		}
		return nil
	})
	return out, err
}

// Champion is the admitted policy with the best efficiency so far, each
// contender rechecked on the configuration's Recheck seeds before it is
// crowned (search.Crown; the evaluation seeds alone without them).
func (m *Mode) Champion(ctx context.Context, it *store.Iteration) (search.Champion, error) {
	var cs []store.Candidate
	var es []pool.Entrant
	err := m.run.Store().View(func(tx *store.Tx) error {
		for k := 0; k <= it.Index; k++ {
			var ik *store.Iteration
			if k == it.Index {
				ik = it
			} else {
				var err error
				if ik, err = tx.Iteration(m.run.ID(), k); err != nil {
					return err
				}
			}
			c := ik.Candidate(0)
			if c == nil || c.Status != store.CandidateEvaluated {
				continue
			}
			cs = append(cs, *c)
			es = append(es, search.Entrant(*c, false, 0))
		}
		return nil
	})
	if err != nil {
		return search.Champion{}, err
	}
	o := pool.Welfare
	if m.cfg.Objective.Exploits() {
		o = m.cfg.Objective
	}
	best, rechecked, err := search.Crown(ctx, o, es, search.Rechecker(m.run.Arena(), m.cfg.Recheck, m.run.Logf))
	if err != nil || best < 0 {
		return search.Champion{}, err
	}
	return search.Champion{Policy: cs[best].Policy, Metrics: cs[best].Metrics, Rechecked: search.RecheckedScore(o, es, best, rechecked)}, nil
}
