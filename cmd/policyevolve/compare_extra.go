package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"policyevolve/envs/ssd"
	"policyevolve/evolve"
	"policyevolve/store"
)

// The experiment's extra columns, per row (compare --suite paper, or
// --transfer and --invaders): what the runs' candidates had refused or
// failed on the way, by kind; the champions' self-play efficiency on every
// map of the game; and each champion's worst invader among the league's
// players (k = 1) with its margin.
type compareExtras struct {
	Refusals     map[string]int  `json:"refusals,omitempty"`
	Transfer     map[string]stat `json:"transfer,omitempty"` // map → efficiency over champions
	WorstInvader []string        `json:"worst_invader,omitempty"`
	InvaderGain  stat            `json:"invader_gain"` // the worst invader's per-agent margin over the residents
}

// addRefusals sums the refusals of a row's runs' candidates.
func addRefusals(s *store.Store, row *compareRow) error {
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
func addTransfer(ctx context.Context, a *evolve.Arena, row *compareRow, maps []string) error {
	g, err := ssd.ParseGame(a.Env.Config.Game)
	if err != nil {
		return err
	}
	for _, c := range row.Champions {
		actor, err := a.Actor(ctx, c)
		if err != nil {
			return err
		}
		rows, err := evolve.Transfer(ctx, g, maps, a.Env.Config.Agents, a.Env.Config.MaxSteps, actor, a.EvalSeeds)
		if err != nil {
			return err
		}
		for _, r := range rows {
			if row.Transfer == nil {
				row.Transfer = map[string]stat{}
			}
			st := row.Transfer[r.Map]
			st.add(r.Metrics.Efficiency)
			row.Transfer[r.Map] = st
		}
	}
	return nil
}

// addInvaders finds each champion's worst invader among the players.
func addInvaders(ctx context.Context, a *evolve.Arena, row *compareRow, players []string, name func(string) string) error {
	for _, c := range row.Champions {
		worst, gain, err := a.WorstInvader(ctx, c, players)
		if err != nil {
			return err
		}
		row.WorstInvader = append(row.WorstInvader, name(worst))
		row.InvaderGain.add(gain)
	}
	return nil
}

// writeCompareExtras prints the extra tables, when there are any.
func writeCompareExtras(w io.Writer, rep compareReport) {
	var mapNames []string
	refusals, invaders := false, false
	for _, r := range rep.Rows {
		for m := range r.Transfer {
			if !slices.Contains(mapNames, m) {
				mapNames = append(mapNames, m)
			}
		}
		refusals = refusals || len(r.Refusals) > 0
		invaders = invaders || len(r.WorstInvader) > 0
	}
	slices.Sort(mapNames)
	if len(mapNames) > 0 {
		fmt.Fprintf(w, "\nTransfer: self-play efficiency of the champions on every map (evolved on %s)\n\n", rep.Env.Map)
		fmt.Fprintf(w, "| method | %s |\n|---|%s\n", strings.Join(mapNames, " | "), strings.Repeat("---|", len(mapNames)))
		for _, r := range rep.Rows {
			cells := []string{r.Method}
			for _, m := range mapNames {
				cells = append(cells, r.Transfer[m].String())
			}
			fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
		}
	}
	if invaders {
		fmt.Fprintln(w, "\nWorst invader (one agent among the champion's, the league's players tried in turn; gain: its per-agent return minus the residents')")
		fmt.Fprintf(w, "\n| method | worst invader | gain |\n|---|---|---|\n")
		for _, r := range rep.Rows {
			names := make([]string, len(r.WorstInvader))
			for i, n := range r.WorstInvader {
				names[i] = orDash(n)
			}
			fmt.Fprintf(w, "| %s | %s | %s |\n", r.Method, strings.Join(names, ", "), r.InvaderGain)
		}
	}
	if refusals {
		fmt.Fprintln(w, "\nRefused or failed on the way, by kind, summed over the runs")
		fmt.Fprintf(w, "\n| method | refused or failed |\n|---|---|\n")
		for _, r := range rep.Rows {
			if r.Runs == nil {
				continue
			}
			kinds := slices.Sorted(maps.Keys(r.Refusals))
			parts := make([]string, len(kinds))
			for i, k := range kinds {
				parts[i] = fmt.Sprintf("%s %d", k, r.Refusals[k])
			}
			fmt.Fprintf(w, "| %s | %s |\n", r.Method, orDash(strings.Join(parts, ", ")))
		}
	}
}
