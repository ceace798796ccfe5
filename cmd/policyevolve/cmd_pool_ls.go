package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"text/tabwriter"

	"policyevolve/elo"
	"policyevolve/evolve/episode"
	"policyevolve/internal/plural"
	"policyevolve/pool"
	"policyevolve/store"
)

type poolRow struct {
	ID             string  `json:"id"`
	Name           string  `json:"name,omitempty"`
	Elo            float64 `json:"elo"`
	Games          int     `json:"games"`
	Wins           int     `json:"wins"`
	Draws          int     `json:"draws"`
	Losses         int     `json:"losses"`
	Efficiency     float64 `json:"efficiency"`
	Equality       float64 `json:"equality"`
	Sustainability float64 `json:"sustainability"`
	Peace          float64 `json:"peace"`
	// Seeds are the self-play seeds the metrics are the mean over: every
	// seed the member was played on in the pool's environment.
	Seeds     []uint64 `json:"seeds,omitempty"`
	Evaluated bool     `json:"evaluated"`
	Status    string   `json:"status,omitempty"`
	Operator  string   `json:"operator,omitempty"`
	Reason    string   `json:"reason,omitempty"`
}

type poolListing struct {
	Pool string `json:"pool"`
	// Objective is the one whose games rate the pool's members (elo for
	// the untagged pools, as before objectives existed).
	Objective string    `json:"objective"`
	Members   []poolRow `json:"members"`
}

func cmdPoolLs(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var so storeOptions
	var game, mapArg, sortBy, tag string
	var objective pool.Objective
	var agents int
	var asJSON bool
	fs := newFlagSet("pool ls", "[flags]", `
List the global pools (one per environment and objective) and their
members: Elo and record from the pool's ratings — games of the pool's
objective: mixed matches in an elo pool, self-play compared seed by seed
in a welfare pool — and social metrics from each member's self-play on
that environment, the mean over every seed it was played on there (the
seeds column: a run's evaluation seeds, and a champion's recheck seeds
too), the same figure pool show gives. Members are listed best first
by the pool's objective (its score: Elo, or self-play efficiency for
welfare) unless --sort says otherwise. Safe to run while a job writes to
the store. Runs with a pool of their own (compare's) are listed with
--tag.`, stdout)
	fs.StringVar(&tag, "tag", "", "list the pools of this tag (a run's own pool, e.g. compare's), or all")
	so.register(fs)
	fs.StringVar(&game, "game", "", "only pools of this game")
	fs.StringVar(&mapArg, "map", "", "only pools on this map (a built-in name or a map file)")
	fs.IntVar(&agents, "agents", 0, "only pools with this many agents")
	fs.StringVar(&sortBy, "sort", "", "order: elo, efficiency, equality, sustainability, peace or games (default: the pool's objective's score)")
	objectiveFlag(fs, &objective, "only the pools of this objective (default: every objective's)")
	fs.BoolVar(&asJSON, "json", false, "print JSON")
	if err := parseFlags(fs, args, false); err != nil {
		return err
	}
	less := map[string]func(a, b poolRow) bool{
		"elo":            func(a, b poolRow) bool { return a.Elo > b.Elo },
		"efficiency":     func(a, b poolRow) bool { return a.Efficiency > b.Efficiency },
		"equality":       func(a, b poolRow) bool { return a.Equality > b.Equality },
		"sustainability": func(a, b poolRow) bool { return a.Sustainability > b.Sustainability },
		"peace":          func(a, b poolRow) bool { return a.Peace > b.Peace },
		"games":          func(a, b poolRow) bool { return a.Games > b.Games },
	}
	if sortBy != "" && less[sortBy] == nil {
		return usagef("--sort: unknown order %q (want elo, efficiency, equality, sustainability, peace or games)%s", sortBy, didYouMean(sortBy, mapKeys(less), ""))
	}
	if _, err := os.Stat(mapArg); mapArg != "" && err == nil {
		// A map file: pools on it are keyed by a hash of its text.
		g := game
		if g == "" {
			g = "gathering"
		}
		key, err := episode.MapKey(g, mapArg)
		if err != nil && game == "" {
			key, err = episode.MapKey("cleanup", mapArg)
		}
		if err != nil {
			return usagef("--map: %v", err)
		}
		mapArg = key
	}
	s, err := so.open(readStore)
	if err != nil {
		return err
	}
	var listings []poolListing
	err = s.View(func(tx *store.Tx) error {
		pools, err := tx.Pools()
		if err != nil {
			return err
		}
		for _, name := range pools {
			key, ok := store.ParseGlobalPool(name)
			env := key.Env
			if !ok || (tag != "all" && key.Tag != tag) {
				continue
			}
			if (game != "" && env.Game != game) || (mapArg != "" && env.Map != mapArg) || (agents != 0 && env.Agents != agents) {
				continue
			}
			if objective != "" && pool.Stored(pool.Objective(key.Objective)) != objective {
				continue
			}
			l, err := listPool(tx, name)
			if err != nil {
				return err
			}
			by := sortBy
			if by == "" {
				by = pool.Objective(l.Objective).ScoreColumn()
			}
			sort.SliceStable(l.Members, func(i, j int) bool { return less[by](l.Members[i], l.Members[j]) })
			listings = append(listings, l)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if asJSON {
		if listings == nil {
			listings = []poolListing{}
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(listings)
	}
	if len(listings) == 0 {
		fmt.Fprintln(stdout, "no global pools match")
		return nil
	}
	for k, l := range listings {
		if k > 0 {
			fmt.Fprintln(stdout)
		}
		o := pool.Objective(l.Objective)
		fmt.Fprintf(stdout, "pool %s, objective %s (%s): Elo counts %s; the objective's score is %s\n",
			l.Pool, o, plural.N(len(l.Members), "member"), o.GamesCounted(), o.ScoreColumn())
		if o.InvasionTest() {
			fmt.Fprintln(stdout, "  (every evolved member resisted invasion by the pool's members when it joined)")
		}
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  id\telo\tw/d/l\tefficiency\tequality\tsustainability\tpeace\tseeds\torigin\tname")
		for _, r := range l.Members {
			metrics := "-\t-\t-\t-\t-"
			if r.Evaluated {
				metrics = fmt.Sprintf("%.3f\t%.3f\t%.1f\t%.2f\t%s", r.Efficiency, r.Equality, r.Sustainability, r.Peace, seedWords(r.Seeds))
				if r.Status == store.StatusFailed {
					metrics += " (failed)"
				}
			}
			fmt.Fprintf(tw, "  %.12s\t%.1f\t%d/%d/%d\t%s\t%s\t%s\n", r.ID, r.Elo, r.Wins, r.Draws, r.Losses, metrics, r.Operator, r.Name)
		}
		tw.Flush()
	}
	return nil
}

// listPool reads one pool's members with their ratings and evaluations.
func listPool(tx *store.Tx, name string) (poolListing, error) {
	key, _ := store.ParseGlobalPool(name)
	l := poolListing{Pool: name, Objective: key.Objective, Members: []poolRow{}}
	members, err := tx.Members(name)
	if err != nil {
		return l, err
	}
	env := key.Env
	for _, m := range members {
		row := poolRow{ID: m.Policy, Elo: elo.DefaultInitial, Reason: m.Reason}
		if p, err := tx.Policy(m.Policy); err == nil {
			row.Name, row.Operator = p.Name, p.Origin.Operator
		}
		if r, err := tx.Rating(name, m.Policy); err == nil {
			row.Elo, row.Games, row.Wins, row.Draws, row.Losses = r.Elo, r.Games, r.Wins, r.Draws, r.Losses
		}
		evs, err := tx.EvaluationsOf(m.Policy)
		if err != nil {
			return l, err
		}
		// Every seed it was played on here (a champion's recheck seeds
		// too), named beside the figure: the same figure pool show and
		// the report give.
		if pooled, ok := store.PoolEvaluations(evs, env); ok {
			row.Evaluated, row.Status, row.Seeds = true, store.StatusOK, pooled.Seeds
			if pooled.Failed {
				row.Status = store.StatusFailed
			}
			row.Efficiency, row.Equality = pooled.Mean.Efficiency, pooled.Mean.Equality
			row.Sustainability, row.Peace = pooled.Mean.Sustainability, pooled.Mean.Peace
		}
		l.Members = append(l.Members, row)
	}
	return l, nil
}
