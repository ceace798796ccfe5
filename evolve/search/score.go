package search

import (
	"context"
	"math"

	"policyevolve/evolve/arena"
	"policyevolve/store"
)

// Scored returns the evaluation a's Objective scores a policy by: its
// invasion of the target (arena.Invasion) when the objective Exploits,
// else its self-play (Evaluate). Score reads the number compared.
func Scored(ctx context.Context, a *arena.Arena, id string) (*store.Evaluation, error) {
	if a.Objective.Exploits() {
		return a.Invasion(ctx, id)
	}
	return a.Evaluate(ctx, id)
}

// Score is the number an evaluation of Scored ranks a policy by: the
// invaders' mean per-agent return for an invasion evaluation, else the
// mean self-play efficiency; -Inf when it failed.
func Score(ev *store.Evaluation) float64 {
	switch {
	case ev == nil || ev.Status != store.StatusOK:
		return math.Inf(-1)
	case ev.Against != "":
		return ev.Invader
	}
	return ev.Mean.Efficiency
}

// SeedScore is Score's number on one seed of ev: the k invaders' mean
// return for an invasion evaluation, else the seed's efficiency.
func SeedScore(ev *store.Evaluation, sr store.SeedResult) float64 {
	if ev.Against == "" {
		return sr.Metrics.Efficiency
	}
	if len(sr.Returns) < ev.K || ev.K == 0 {
		return 0
	}
	sum := 0.0
	for _, r := range sr.Returns[:ev.K] {
		sum += r
	}
	return sum / float64(ev.K)
}

// Invade scores candidate c by its invasion of the target when a's
// Objective Exploits (nothing otherwise): c.Invader is its invaders' mean
// per-agent return; an invasion that failed fails the candidate.
func Invade(ctx context.Context, a *arena.Arena, c *store.Candidate) error {
	if !a.Objective.Exploits() || c.Status != store.CandidateEvaluated {
		return nil
	}
	inv, err := a.Invasion(ctx, c.Policy)
	if err != nil {
		return err
	}
	if inv.Status != store.StatusOK {
		c.Status, c.Problem = store.CandidateFailed, "invasion: "+inv.Error
		return nil
	}
	r := inv.Invader
	c.Invader = &r
	return nil
}
