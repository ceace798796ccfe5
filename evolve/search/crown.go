package search

import (
	"context"
	"fmt"
	"math"

	"policyevolve/evolve/arena"
	"policyevolve/pool"
	"policyevolve/store"
)

// A Recheck plays a contender for champion on further seeds and returns
// its self-play score over all the seeds it was played on (minus
// infinity when it failed on one: it cannot lead).
type Recheck func(ctx context.Context, id string) (float64, error)

// Crown returns the index of the champion of es under o (pool.Champion;
// -1 when there is none), each contender the rule picks rechecked before
// it is taken: its Welfare becomes recheck's score and the rule picks
// again, until it picks one rechecked already. So the champion's score
// is its rechecked one, and no entrant left unrechecked scored above it
// on the evaluation seeds: the best of many near-equal policies on a few
// seeds is the one those seeds flatter most, and its recheck shows it
// (docs/evolution.md, "Why the search stalled", cause 11). A nil recheck
// leaves pool.Champion's pick. Under elo a member of the pool is picked
// by its rating, which a recheck does not change: it is not rechecked.
// The rechecked scores stay in es; rechecked says whether the pick's is
// one.
func Crown(ctx context.Context, o pool.Objective, es []pool.Entrant, recheck Recheck) (k int, rechecked bool, err error) {
	done := make([]bool, len(es))
	for {
		k = o.Champion(es)
		if k < 0 || recheck == nil || done[k] || !o.Rechecks(es[k]) {
			return k, k >= 0 && done[k], nil
		}
		w, err := recheck(ctx, es[k].ID)
		if err != nil {
			return -1, false, err
		}
		if o.Exploits() {
			es[k].Exploit = w
		} else {
			es[k].Welfare = w
		}
		done[k] = true
	}
}

// RecheckedScore is what a Champion's Rechecked holds for Crown's pick k
// of es under o: its rechecked efficiency, or nil when it was not
// rechecked, failed on a recheck seed (crowned only because every
// contender did), or was rechecked as an invader (o Exploits: its
// rechecked score is a return, not an efficiency).
func RecheckedScore(o pool.Objective, es []pool.Entrant, k int, rechecked bool) *float64 {
	if k < 0 || !rechecked || o.Exploits() || math.IsInf(es[k].Welfare, 0) {
		return nil
	}
	w := es[k].Welfare
	return &w
}

// Rechecker returns the Recheck that plays a policy in a's self-play on
// seeds as well as a's evaluation seeds (each played once: the store
// keeps them), its score the mean efficiency over both sets of seeds;
// nil when seeds is empty (no recheck). logf, when set, says what a
// recheck found.
func Rechecker(a *arena.Arena, seeds []uint64, logf func(format string, args ...any)) Recheck {
	if len(seeds) == 0 {
		return nil
	}
	if a.Objective.Exploits() {
		return invasionRechecker(a, seeds, logf)
	}
	return func(ctx context.Context, id string) (float64, error) {
		ev, err := a.Evaluate(ctx, id)
		if err != nil {
			return 0, err
		}
		more, err := a.EvaluateOn(ctx, id, seeds)
		if err != nil {
			return 0, fmt.Errorf("recheck %.12s: %w", id, err)
		}
		score, ok := store.PooledEfficiency(ev, more)
		if !ok {
			score = math.Inf(-1)
		}
		if logf != nil {
			if math.IsInf(score, -1) {
				logf("rechecked %.12s: it failed on a seed (%s), so it cannot lead", id, more.Error)
			} else {
				logf("rechecked %.12s: efficiency %.3f on the %d evaluation seeds, %.3f on %d more, %.3f over both",
					id, ev.Mean.Efficiency, len(ev.PerSeed), more.Mean.Efficiency, len(more.PerSeed), score)
			}
		}
		return score, nil
	}
}

// invasionRechecker is Rechecker under an objective that Exploits: the
// policy's invasion of the target replayed on seeds as well as the
// evaluation seeds, its score the invaders' mean per-agent return over
// both (-Inf when it failed on one).
func invasionRechecker(a *arena.Arena, seeds []uint64, logf func(format string, args ...any)) Recheck {
	return func(ctx context.Context, id string) (float64, error) {
		ev, err := a.Invasion(ctx, id)
		if err != nil {
			return 0, err
		}
		more, err := a.InvasionOn(ctx, id, seeds)
		if err != nil {
			return 0, fmt.Errorf("recheck %.12s: %w", id, err)
		}
		score := math.Inf(-1)
		if ev.Status == store.StatusOK && more.Status == store.StatusOK {
			n1, n2 := float64(len(ev.PerSeed)), float64(len(more.PerSeed))
			score = (ev.Invader*n1 + more.Invader*n2) / (n1 + n2)
		}
		if logf != nil {
			if math.IsInf(score, -1) {
				logf("rechecked %.12s as an invader: it failed on a seed, so it cannot lead", id)
			} else {
				logf("rechecked %.12s as an invader: return %.1f on the %d evaluation seeds, %.1f on %d more, %.1f over both",
					id, ev.Invader, len(ev.PerSeed), more.Invader, len(more.PerSeed), score)
			}
		}
		return score, nil
	}
}
