package experiment

import (
	"context"

	"policyevolve/envs/ssd"
	"policyevolve/evolve/arena"
	"policyevolve/store"
)

// addRefusals sums the refusals of a row's runs' candidates.
func addRefusals(s *store.Store, row *Row) error {
	return s.View(func(tx *store.Tx) error {
		for _, id := range row.Runs {
			its, err := tx.Iterations(id)
			if err != nil {
				return err
			}
			for _, it := range its {
				for _, c := range it.Candidates {
					for k, n := range c.Refusals {
						if row.Refusals == nil {
							row.Refusals = map[string]int{}
						}
						row.Refusals[k] += n
					}
				}
			}
		}
		return nil
	})
}

// addTransfer plays every champion of the row on each map of the game.
func addTransfer(ctx context.Context, a *arena.Arena, row *Row, maps []string) error {
	g, err := ssd.ParseGame(a.Env.Config.Game)
	if err != nil {
		return err
	}
	for _, c := range row.Champions {
		actor, err := a.Actor(ctx, c)
		if err != nil {
			return err
		}
		rows, err := arena.Transfer(ctx, g, maps, a.Env.Config.Agents, a.Env.Config.MaxSteps, actor, a.EvalSeeds)
		if err != nil {
			return err
		}
		for _, r := range rows {
			if row.Transfer == nil {
				row.Transfer = map[string]Stat{}
			}
			st := row.Transfer[r.Map]
			st.Add(r.Metrics.Efficiency)
			row.Transfer[r.Map] = st
		}
	}
	return nil
}

// addInvaders finds each champion's worst invader among the players.
func addInvaders(ctx context.Context, a *arena.Arena, row *Row, players []string, name func(string) string) error {
	for _, c := range row.Champions {
		worst, gain, err := a.WorstInvader(ctx, c, players)
		if err != nil {
			return err
		}
		row.WorstInvader = append(row.WorstInvader, name(worst))
		row.InvaderGain.Add(gain)
	}
	return nil
}
