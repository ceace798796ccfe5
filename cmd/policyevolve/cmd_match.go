package main

import (
	"context"
	"fmt"
	"io"
)

func cmdMatch(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var so storeOptions
	var eo envOptions
	var sbo sandboxOptions
	var seeds string
	fs := newFlagSet("match", "A B [flags]", `
Play policy A against policy B (ids from the store, unique prefixes
accepted): on each seed, two episodes with A on the even agents and B on the
odd ones, then swapped; each side scores the mean per-agent return of its
agents. Matches already in the store are not replayed. Ratings are not
changed: rating happens in pools.`, stdout)
	so.register(fs)
	eo.register(fs)
	sbo.register(fs)
	fs.StringVar(&seeds, "match-seeds", "0-4", "match seeds")
	fs.alias("seeds", "match-seeds")
	pos, err := policyArgs(fs, args, 2)
	if err != nil {
		return err
	}
	arena, err := openArena(&so, writeStore, &eo, &sbo, "0", seeds, stderr)
	if err != nil {
		return err
	}
	defer arena.Close()
	defer watchArena(arena, "match", "playing the match", stderr)()
	a, err := resolve(arena.Store, pos[0])
	if err != nil {
		return err
	}
	b, err := resolve(arena.Store, pos[1])
	if err != nil {
		return err
	}
	if len(arena.MatchSeeds) > 0 {
		if err := crossCheckStored(ctx, arena, &sbo, arena.MatchSeeds[0], stderr, a, b); err != nil {
			return err
		}
	}
	fmt.Fprintf(stdout, "%.12s (A) vs %.12s (B) on %s\n", a, b, arena.Env.Config)
	var points, sumA, sumB float64
	for _, seed := range arena.MatchSeeds {
		m, err := arena.Match(ctx, a, b, seed)
		if err != nil {
			return err
		}
		points += m.Outcome
		sumA += m.ScoreA
		sumB += m.ScoreB
		line := fmt.Sprintf("  seed %d: A %.2f, B %.2f: A %s", seed, m.ScoreA, m.ScoreB, outcomeWord(m.Outcome))
		if m.Error != "" {
			line += " (" + m.Error + ")"
		}
		fmt.Fprintln(stdout, line)
	}
	n := float64(len(arena.MatchSeeds))
	fmt.Fprintf(stdout, "A scored %.1f of %d points; mean scores A %.2f, B %.2f\n", points, len(arena.MatchSeeds), sumA/n, sumB/n)
	return nil
}
