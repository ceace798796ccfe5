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
	return transferEach(ctx, a, row, maps, a.EvalSeeds, func(r arena.TransferRow) {
		if row.Transfer == nil {
			row.Transfer = map[string]Stat{}
		}
		st := row.Transfer[r.Map]
		st.Add(r.Metrics.Efficiency)
		row.Transfer[r.Map] = st
	})
}

// addHeldOut replays every champion of the row in self-play on the
// held-out seeds, on the comparison's map (spec as given: "" is the
// game's default).
func addHeldOut(ctx context.Context, a *arena.Arena, row *Row, mapSpec string, seeds []uint64) error {
	return transferEach(ctx, a, row, []string{mapSpec}, seeds, func(r arena.TransferRow) {
		row.HeldOut.Add(r.Metrics.Efficiency)
		row.HeldOutChampions = append(row.HeldOutChampions, r.Metrics.Efficiency)
	})
}

// transferEach plays every champion of the row in self-play on each map
// and seed, and hands each map's result to add.
func transferEach(ctx context.Context, a *arena.Arena, row *Row, maps []string, seeds []uint64, add func(arena.TransferRow)) error {
	g, err := ssd.ParseGame(a.Env.Config.Game)
	if err != nil {
		return err
	}
	for _, c := range row.Champions {
		actor, err := a.Actor(ctx, c)
		if err != nil {
			return err
		}
		rows, err := arena.Transfer(ctx, g, maps, a.Env.Config.Agents, a.Env.Config.MaxSteps, actor, seeds)
		if err != nil {
			return err
		}
		for _, r := range rows {
			add(r)
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
