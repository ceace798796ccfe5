package main

import (
	"errors"
	"fmt"

	"policyevolve/evolve"
	"policyevolve/evolve/episode"
	"policyevolve/pool"
	"policyevolve/store"
)

// championMembership says where a population run's champion is found in
// its global pool, or why it is not a member: "member of pool P (pool ls
// lists it)", "not a member of pool P: not promoted in iteration 2 (win
// rate 0.50; promotion needs above 0.60)", "… promoted in iteration 1,
// since trimmed from the pool". "" for a chain or GEPA run (no pool) or
// a run without a champion.
func championMembership(tx *store.Tx, run *store.Run, cfg evolve.JobConfig, its []store.Iteration) (string, error) {
	if run.Champion == "" || run.Mode != evolve.ModePopulation {
		return "", nil
	}
	env, err := episode.ResolveEnv(cfg.Game, cfg.Map, cfg.Agents, cfg.Steps)
	if err != nil {
		return "", nil // a map file moved since: nothing to say
	}
	name := store.PoolKey{Env: env.Config, Objective: string(pool.Stored(cfg.Objective)), Tag: cfg.PoolTag}.String()
	members, err := tx.Members(name)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return "", err
	}
	for _, m := range members {
		if m.Policy == run.Champion {
			return fmt.Sprintf("member of pool %s (pool ls lists it)", name), nil
		}
	}
	why := "it was not one of the run's candidates (a pool member crowned before the run)"
	for _, it := range its {
		for _, c := range it.Candidates {
			if c.Policy != run.Champion {
				continue
			}
			switch c.Status {
			case store.CandidatePromoted:
				why = fmt.Sprintf("promoted in iteration %d, since trimmed from the pool (capacity %d)", it.Index, cfg.Pool.WithDefaults().Capacity)
			case store.CandidateRejected:
				why = fmt.Sprintf("not promoted in iteration %d (win rate %.2f; promotion needs above %.2f): the objective crowns the best in self-play, member or not",
					it.Index, c.WinRate, cfg.Pool.WithDefaults().PromoteThreshold)
			default:
				why = fmt.Sprintf("%s in iteration %d", c.Status, it.Index)
			}
		}
	}
	return fmt.Sprintf("not a member of pool %s: %s", name, why), nil
}
