package search

import (
	"context"
	"errors"
	"math"

	"policyevolve/evolve/planner"
	"policyevolve/pool"
	"policyevolve/store"
)

// Single proposes iteration it's one candidate (sample 0, as planned) with
// r and evaluates it in self-play (and, when the objective Exploits, as an
// invader: Invade), storing the candidate's record after
// each step: the step of a chain, and of GEPA under a candidate's
// guidance. A candidate already proposed is only evaluated; one settled
// is only reported. false: the run's budget did not admit the
// candidate's first call, and nothing was proposed (the run stops).
func Single(ctx context.Context, run Run, it *store.Iteration, r Request) (bool, error) {
	pc := it.Plan[0]
	c := it.Candidate(0)
	a := run.Arena()
	before := a.Episodes() // the critic's, then the evaluation's
	if c == nil {
		run.Phase(it.Index, "propose")
		out, err := run.Propose(ctx, it, pc, 0, r)
		if err != nil {
			return false, err
		}
		if out.Stopped != nil && len(out.Attempts) == 0 {
			return false, nil
		}
		nc := store.Candidate{Sample: 0, Attempts: len(out.Attempts), Usage: OutcomeUsage(out), Status: store.CandidateProposed}
		CountRefusals(&nc, out)
		if out.Policy == nil {
			nc.Status, nc.Problem = Refusal(out)
		} else {
			nc.Policy = out.Policy.ID
		}
		it.SetCandidate(nc)
		it.Usage.Add(nc.Usage)
		if err := run.Save(it); err != nil {
			return false, err
		}
		c = it.Candidate(0)
	}
	if c.Status != store.CandidateProposed {
		run.Settled(it.Index, c)
		return true, nil
	}
	run.Phase(it.Index, "evaluate")
	ev, err := a.Evaluate(ctx, c.Policy)
	if err != nil {
		return false, err
	}
	c.Metrics, c.Status = ev.Mean, store.CandidateEvaluated
	if ev.Status != store.StatusOK {
		c.Status, c.Problem = store.CandidateFailed, ev.Error
		CountFailures(c, ev)
	}
	if err := Invade(ctx, a, c); err != nil {
		return false, err
	}
	it.Usage.Episodes += a.Episodes() - before
	if err := run.Save(it); err != nil {
		return false, err
	}
	run.Settled(it.Index, c)
	return true, nil
}

// Entrant is a settled candidate as the champion rule (pool.Champion)
// sees it, given whether it is a member of the global pool and its rating
// there.
func Entrant(c store.Candidate, member bool, elo float64) pool.Entrant {
	e := pool.Entrant{ID: c.Policy, Member: member, Elo: elo, Welfare: c.Metrics.Efficiency, Exploit: math.Inf(-1)}
	if c.Invader != nil {
		e.Exploit = *c.Invader
	}
	if inv := c.Invasion; inv != nil {
		e.Resists = inv.Resists
		switch {
		case inv.Gain <= 0:
		case inv.Residents == 0:
			e.Invaded = math.Inf(1)
		default:
			e.Invaded = inv.Gain / math.Abs(inv.Residents)
		}
	}
	return e
}

// OutcomeUsage is what a request cost, as a candidate records it.
func OutcomeUsage(out *planner.Outcome) store.RunUsage {
	if out == nil {
		return store.RunUsage{}
	}
	return UsageOf(out.Calls(), out.Usage)
}

// UsageOf is the record of proposals planner calls that cost u.
func UsageOf(proposals int, u planner.Usage) store.RunUsage {
	return store.RunUsage{Proposals: proposals, LLMCalls: u.LLMCalls, InputTokens: u.InputTokens,
		OutputTokens: u.OutputTokens, ReasoningTokens: u.ReasoningTokens, Cost: u.Cost}
}

// Refusal describes a request none of whose attempts passed: skipped (the
// run's budget did not admit its first call), duplicate or refused.
func Refusal(out *planner.Outcome) (status, problem string) {
	if out.Stopped != nil && len(out.Attempts) == 0 {
		return store.CandidateSkipped, out.Stopped.Error()
	}
	p := out.Problem()
	if p == nil {
		return store.CandidateRefused, "no proposal"
	}
	if errors.Is(p, planner.ErrDuplicate) || planner.DescribeProblem(p).Kind == "duplicate" {
		return store.CandidateDuplicate, p.Error()
	}
	return store.CandidateRefused, p.Error()
}

// CountRefusals adds the kinds of an outcome's refused attempts to c.
func CountRefusals(c *store.Candidate, out *planner.Outcome) {
	for _, a := range out.Attempts {
		if a.Problem != nil {
			addRefusal(c, planner.DescribeProblem(a.Problem).Kind)
		}
	}
}

// CountFailures adds the kinds of an evaluation's failed seeds to c.
func CountFailures(c *store.Candidate, ev *store.Evaluation) {
	if ev == nil {
		return
	}
	for _, sr := range ev.PerSeed {
		if sr.Status == store.StatusFailed {
			kind := sr.Kind
			if kind == "" {
				kind = "runtime"
			}
			addRefusal(c, "self-play "+kind)
		}
	}
}

func addRefusal(c *store.Candidate, kind string) {
	if c.Refusals == nil {
		c.Refusals = map[string]int{}
	}
	c.Refusals[kind]++
}
