package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"policyevolve/evolve/episode"
	"policyevolve/pool"
	"policyevolve/store"
)

func cmdPoolShow(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var so storeOptions
	fs := newFlagSet("pool show", "ID [flags]", `
Show everything the store knows of a policy: its source and origin, the
pools it is in with its rating history, every evaluation with per-seed
metrics, and every match it played.`, stdout)
	so.register(fs)
	pos, err := policyArgs(fs, args, 1)
	if err != nil {
		return err
	}
	stdout = termSafeWriter{stdout} // the source, its name, its failures
	s, err := so.open(readStore)
	if err != nil {
		return err
	}
	return s.View(func(tx *store.Tx) error {
		p, err := findPolicy(tx, pos[0])
		if err != nil {
			return err
		}
		id := p.ID
		fmt.Fprintf(stdout, "policy   %s\n", p.ID)
		if p.Name != "" {
			fmt.Fprintf(stdout, "name     %s\n", p.Name)
		}
		fmt.Fprintf(stdout, "created  %s\n", p.Created.Format("2006-01-02 15:04:05 UTC"))
		fmt.Fprintf(stdout, "origin   %s\n", p.Origin.Describe(12))
		pools, _ := tx.PoolsOf(id)
		for _, pl := range pools {
			r, err := tx.Rating(pl, id)
			if err != nil {
				fmt.Fprintf(stdout, "pool     %s (unrated)\n", pl)
				continue
			}
			key, _ := store.ParseGlobalPool(pl)
			fmt.Fprintf(stdout, "pool     %s: elo %.1f, %s\n", pl, r.Elo, pool.GamesLabel(pool.Objective(key.Objective), r.Wins, r.Draws, r.Losses, r.Games))
			for _, h := range r.History {
				fmt.Fprintf(stdout, "           %s  elo %.1f after %s vs %.12s (seed %d)\n",
					h.Time.Format("2006-01-02 15:04:05"), h.Elo, outcomeWord(h.Outcome), h.Opponent, h.Seed)
			}
		}
		evs, err := tx.EvaluationsOf(id)
		if err != nil {
			return err
		}
		// One figure per environment, over every seed it was played on
		// there (pool ls gives the same), then each evaluation.
		var envs []store.EnvConfig
		for _, e := range evs {
			if !slices.Contains(envs, e.Env) {
				envs = append(envs, e.Env)
			}
		}
		for _, env := range envs {
			if pooled, ok := store.PoolEvaluations(evs, env); ok && len(pooled.Seeds) > 0 {
				m := pooled.Mean
				fmt.Fprintf(stdout, "self-play on %s, seeds %s (all its evaluations there; the figure pool ls gives): efficiency %.3f, equality %.3f, sustainability %.1f, peace %.2f\n",
					env, seedWords(pooled.Seeds), m.Efficiency, m.Equality, m.Sustainability, m.Peace)
			}
		}
		for _, e := range evs {
			fmt.Fprintf(stdout, "evaluation on %s, seeds %v: %s", e.Env, e.Seeds, e.Status)
			if e.Error != "" {
				fmt.Fprintf(stdout, " (%s)", e.Error)
			}
			if p.Builtin == "" {
				fmt.Fprintf(stdout, "\n  scored by: %s", backendWords(e.Backend))
			}
			fmt.Fprintf(stdout, "\n  mean: efficiency %.3f, equality %.3f, sustainability %.1f, peace %.2f\n",
				e.Mean.Efficiency, e.Mean.Equality, e.Mean.Sustainability, e.Mean.Peace)
			for _, sr := range e.PerSeed {
				if sr.Status != store.StatusOK {
					fmt.Fprintf(stdout, "  seed %d: failed after %d steps: %s\n", sr.Seed, sr.Steps, sr.Error)
					continue
				}
				fmt.Fprintf(stdout, "  seed %d: efficiency %.3f, equality %.3f, sustainability %.1f, peace %.2f, returns %v\n",
					sr.Seed, sr.Metrics.Efficiency, sr.Metrics.Equality, sr.Metrics.Sustainability, sr.Metrics.Peace, sr.Returns)
			}
		}
		ms, err := tx.MatchesOf(id)
		if err != nil {
			return err
		}
		if len(ms) > 0 {
			fmt.Fprintf(stdout, "matches (%d, mixed: half the agents each, sides swapped; counted only by an elo pool's rating):\n", len(ms))
		}
		for _, m := range ms {
			other, score, theirs, outcome := m.B, m.ScoreA, m.ScoreB, m.Outcome
			if m.B == id {
				other, score, theirs, outcome = m.A, m.ScoreB, m.ScoreA, 1-m.Outcome
			}
			line := fmt.Sprintf("  vs %.12s on %s seed %d: %.2f to %.2f, %s", other, m.Env, m.Seed, score, theirs, outcomeWord(outcome))
			if m.Backend != "" {
				line += " [" + m.Backend + "]"
			}
			if m.Error != "" {
				line += " (" + m.Error + ")"
			}
			fmt.Fprintln(stdout, line)
		}
		if p.Builtin == episode.QLearnBuiltin {
			fmt.Fprintln(stdout, "source:   "+describeQTable(p))
			return nil
		}
		fmt.Fprintln(stdout, "source:")
		for _, l := range strings.Split(strings.TrimRight(p.Source, "\n"), "\n") {
			fmt.Fprintln(stdout, "  "+l)
		}
		return nil
	})
}

// backendWords names the backend that scored an evaluation of a source
// policy; a yaegi-only result is provisional (docs/yaegi.md).
func backendWords(b string) string {
	switch b {
	case "":
		return "not recorded (evaluated before evaluations named their backend)"
	case "yaegi":
		return "yaegi (interpreted: provisional where no Go toolchain compared it with the native backend)"
	}
	return b
}
