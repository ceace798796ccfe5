package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"policyevolve/internal/plural"
	"policyevolve/pool"
	"policyevolve/store"
)

// leagueOrder says what the league's table is ordered by.
func leagueOrder(o pool.Objective, evalSeeds []uint64) string {
	if !o.Rated() {
		return fmt.Sprintf("self-play efficiency on seeds %v", evalSeeds)
	}
	return "the mixed matches' rating"
}

func cmdLeague(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var so storeOptions
	var eo envOptions
	var sbo sandboxOptions
	var seeds, evalSeeds string
	var asJSON bool
	objective := pool.DefaultObjective
	fs := newFlagSet("league", "[flags]", `
Play a round robin of mixed matches among the members of an environment's
global pool (every pair, every seed; matches already stored are reused)
and print order-independent Bradley–Terry ratings, the payoff matrix
(row's mean per-agent return against column) and each member's worst
matchup. Beside the rating stands the objective's score — self-play
efficiency on --eval-seeds for welfare — and members are listed best
first by the objective, so the pool reads either way: who wins mixed
matches, and whose group does best.`, stdout)
	so.register(fs)
	eo.register(fs)
	sbo.register(fs)
	objectiveFlag(fs, &objective, "whose global pool to play, and the order of the table (default welfare)")
	fs.StringVar(&seeds, "match-seeds", "0", "match seeds")
	fs.alias("seeds", "match-seeds")
	fs.StringVar(&evalSeeds, "eval-seeds", "0-4", "self-play seeds of the welfare score (evaluations already stored are reused)")
	fs.BoolVar(&asJSON, "json", false, "print JSON")
	if err := parseFlags(fs, args, false); err != nil {
		return err
	}
	if err := noTarget(objective); err != nil {
		return err
	}
	arena, err := openArena(&so, createStore, &eo, &sbo, evalSeeds, seeds, stderr)
	if err != nil {
		return err
	}
	defer arena.Close()
	arena.Objective = objective
	defer watchArena(arena, "league", "a round robin of "+arena.GlobalPool(), stderr)()
	if err := arena.EnsureBaselines(ctx); err != nil {
		return err
	}
	var members []store.Member
	names := map[string]string{}
	if err := arena.Store.View(func(tx *store.Tx) (err error) {
		members, err = tx.Members(arena.GlobalPool())
		for _, m := range members {
			if p, err := tx.Policy(m.Policy); err == nil {
				names[m.Policy] = p.Name
			}
		}
		return err
	}); err != nil {
		return err
	}
	if len(members) < 2 {
		return fmt.Errorf("pool %s has %s; a league needs 2", arena.GlobalPool(), plural.N(len(members), "member"))
	}
	ids := make([]string, len(members))
	for i, m := range members {
		ids[i] = m.Policy
	}
	l, err := arena.League(ctx, ids, arena.MatchSeeds)
	if err != nil {
		return err
	}
	ex := l.Exploitability()
	welfare := make([]float64, len(ids))
	for i, id := range ids {
		ev, err := arena.Evaluate(ctx, id)
		if err != nil {
			return err
		}
		welfare[i] = ev.Mean.Efficiency
	}
	score := l.Ratings
	if !objective.Rated() {
		score = welfare
	}
	order := make([]int, len(ids))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return score[order[a]] > score[order[b]] })
	if asJSON {
		type row struct {
			ID     string  `json:"id"`
			Name   string  `json:"name,omitempty"`
			Rating float64 `json:"rating"`
			// Efficiency is the welfare objective's score: self-play
			// efficiency on the evaluation seeds.
			Efficiency float64   `json:"efficiency"`
			Payoff     []float64 `json:"payoff"`
			Points     []float64 `json:"points"`
			Worst      string    `json:"worst_opponent,omitempty"`
			Margin     float64   `json:"worst_margin"`
		}
		out := struct {
			Pool      string         `json:"pool"`
			Objective pool.Objective `json:"objective"` // the order of the rows
			Columns   []string       `json:"columns"`
			Rows      []row          `json:"rows"`
		}{Pool: arena.GlobalPool(), Objective: objective, Columns: ids}
		for _, i := range order {
			r := row{ID: ids[i], Name: names[ids[i]], Rating: l.Ratings[i], Efficiency: welfare[i], Payoff: l.Payoff[i], Points: l.Points[i], Margin: ex[i].Margin}
			if ex[i].Opponent >= 0 {
				r.Worst = ids[ex[i].Opponent]
			}
			out.Rows = append(out.Rows, r)
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	fmt.Fprintf(stdout, "league of %s, %d members, match seeds %v; ordered by the objective %s (%s)\n\n",
		arena.GlobalPool(), len(ids), arena.MatchSeeds, objective, leagueOrder(objective, arena.EvalSeeds))
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  #\tid\trating\tefficiency\tworst opponent\tmargin\tname")
	for k, i := range order {
		worst := "-"
		if ex[i].Opponent >= 0 {
			worst = ids[ex[i].Opponent][:12]
		}
		fmt.Fprintf(tw, "  %d\t%.12s\t%.1f\t%.3f\t%s\t%+.2f\t%s\n", k+1, ids[i], l.Ratings[i], welfare[i], worst, ex[i].Margin, names[ids[i]])
	}
	tw.Flush()
	fmt.Fprintln(stdout, "\npayoff (row's mean per-agent return against column):")
	tw = tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := []string{""}
	for _, j := range order {
		head = append(head, ids[j][:8])
	}
	fmt.Fprintln(tw, strings.Join(head, "\t")+"\t")
	for _, i := range order {
		cells := []string{ids[i][:8]}
		for _, j := range order {
			if i == j {
				cells = append(cells, "-")
			} else {
				cells = append(cells, fmt.Sprintf("%.1f", l.Payoff[i][j]))
			}
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t")
	}
	return tw.Flush()
}
