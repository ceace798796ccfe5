package arena

import (
	"context"
	"fmt"
	"strings"

	"policyevolve/elo"
	"policyevolve/pool"
	"policyevolve/store"
)

// Game is one game of a candidate against an opponent, as the arena's
// Objective counts it (docs/objectives.md):
//
//   - elo: the mixed match on a match seed (Match); the scores are the
//     sides' mean per-agent returns in it.
//   - exploit: the two policies each as the K invaders among the same
//     residents (Against) on an evaluation seed (Invasion), compared by
//     the invaders' mean per-agent returns, with a match's draw tolerance.
//   - welfare and robust: the two policies' self-play on an evaluation
//     seed, compared;
//     the scores are each one's mean per-agent return in its own
//     self-play episode (efficiency × steps / agents), decided with a
//     match's draw tolerance (elo.Outcome). No episode is played for it:
//     the evaluations hold them.
//
// A side that failed loses (both failing: a draw).
type Game struct {
	Opponent             string
	Seed                 uint64
	Score, OpponentScore float64
	Outcome              float64 // the candidate's: elo.Win, elo.Draw or elo.Loss
	Error                string  // a failure, when a side failed
}

// Games returns the candidate's games against one opponent under the
// arena's Objective, in seed order, playing (and storing) only what the
// store does not hold.
func (a *Arena) Games(ctx context.Context, candidate, opponent string) ([]Game, error) {
	a.defaults()
	var out []Game
	switch a.Objective.Game() {
	case pool.MixedMatch:
		for _, seed := range a.MatchSeeds {
			m, err := a.Match(ctx, candidate, opponent, seed)
			if err != nil {
				return nil, err
			}
			out = append(out, Game{Opponent: opponent, Seed: seed, Score: m.ScoreA, OpponentScore: m.ScoreB, Outcome: m.Outcome, Error: m.Error})
		}
	case pool.SelfPlay:
		mine, err := a.Evaluate(ctx, candidate)
		if err != nil {
			return nil, err
		}
		theirs, err := a.Evaluate(ctx, opponent)
		if err != nil {
			return nil, err
		}
		for _, seed := range a.EvalSeeds {
			out = append(out, welfareGame(opponent, seed, seedResult(mine, seed), seedResult(theirs, seed)))
		}
	case pool.Invasion:
		mine, err := a.Invasion(ctx, candidate)
		if err != nil {
			return nil, err
		}
		theirs, err := a.Invasion(ctx, opponent)
		if err != nil {
			return nil, err
		}
		for _, seed := range a.EvalSeeds {
			out = append(out, invasionGame(opponent, seed, a.Invaders, seedResult(mine, seed), seedResult(theirs, seed)))
		}
	default:
		return nil, fmt.Errorf("games under objective %q: no such objective", a.Objective)
	}
	return out, nil
}

// welfareGame compares two self-play episodes on one seed (nil: the
// evaluation has no such seed, which counts as failing).
func welfareGame(opponent string, seed uint64, mine, theirs *store.SeedResult) Game {
	g := Game{Opponent: opponent, Seed: seed}
	okA, okB := mine != nil && mine.Status == store.StatusOK, theirs != nil && theirs.Status == store.StatusOK
	if okA {
		g.Score = perAgent(mine.Returns)
	}
	if okB {
		g.OpponentScore = perAgent(theirs.Returns)
	}
	switch {
	case okA && okB:
		g.Outcome = elo.Outcome(g.Score, g.OpponentScore)
	case okA:
		g.Outcome, g.Error = elo.Win, "the opponent's self-play failed on this seed"
	case okB:
		g.Outcome, g.Error = elo.Loss, "the candidate's self-play failed on this seed"
	default:
		g.Outcome, g.Error = elo.Draw, "both self-plays failed on this seed"
	}
	return g
}

// invasionGame compares two invasions of the same residents on one seed,
// by the k invaders' returns; a failed side loses, as in welfareGame.
func invasionGame(opponent string, seed uint64, k int, mine, theirs *store.SeedResult) Game {
	invaders := func(sr *store.SeedResult) *store.SeedResult {
		if sr == nil || len(sr.Returns) < k {
			return sr
		}
		c := *sr
		c.Returns = sr.Returns[:k]
		return &c
	}
	g := welfareGame(opponent, seed, invaders(mine), invaders(theirs))
	g.Error = strings.ReplaceAll(g.Error, "self-play", "invasion")
	return g
}

// seedResult is the evaluation's episode on seed, or nil.
func seedResult(ev *store.Evaluation, seed uint64) *store.SeedResult {
	for k := range ev.PerSeed {
		if ev.PerSeed[k].Seed == seed {
			return &ev.PerSeed[k]
		}
	}
	return nil
}

// perAgent is the mean of an episode's returns.
func perAgent(returns []float64) float64 {
	if len(returns) == 0 {
		return 0
	}
	sum := 0.0
	for _, r := range returns {
		sum += r
	}
	return sum / float64(len(returns))
}
