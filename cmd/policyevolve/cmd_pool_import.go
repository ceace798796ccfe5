package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"policyevolve/baselines/qlearn"
	"policyevolve/envs/ssd"
	"policyevolve/evolve/arena"
	"policyevolve/pool"
	"policyevolve/sandbox"
)

func cmdPoolImport(ctx context.Context, args []string, stdout, stderr io.Writer) (err error) {
	var so storeOptions
	var eo envOptions
	var sbo sandboxOptions
	var name, evalSeeds, matchSeeds string
	var rngSeed uint64
	objective := pool.DefaultObjective
	fs := newFlagSet("pool import", "FILE.go|qlearn:FILE [flags]", `
Admit a hand-written policy into the global pool of an environment and an
objective (welfare by default: the pool evolve breeds from unless told
otherwise): the sandbox's admission check (rules, compilation, 50-step
smoke test, determinism probe), a self-play evaluation, games against
opponents drawn from the pool (softmax over Elo) that set its rating —
under welfare its self-play against theirs seed by seed, under elo mixed
matches — then eviction if the pool is over capacity. A new pool starts
with the built-in baselines.

A Q-table written by "policyevolve qlearn train" (qlearn:FILE, or any
FILE.json) joins as a baseline instead: stored in the store by its content,
played in-process (no sandbox), then evaluated and rated the same way.`, stdout)
	so.register(fs)
	eo.register(fs)
	sbo.register(fs)
	objectiveFlag(fs, &objective, "the objective whose global pool the policy joins (default welfare)")
	fs.StringVar(&name, "name", "", "a label for the policy (default: the file name)")
	fs.StringVar(&evalSeeds, "seeds", "0-4", "self-play evaluation seeds")
	fs.StringVar(&matchSeeds, "match-seeds", "0", "seeds of the rating matches")
	fs.Uint64Var(&rngSeed, "seed", 0, "seed of the opponent draw")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("want one policy file")
	}
	if err := noTarget(objective); err != nil {
		return err
	}
	path, isTable := qlearnFile(pos[0])
	if strings.HasSuffix(pos[0], ".json") {
		isTable = true
	}
	if name == "" {
		name = path
	}
	var src []byte
	var tab *qlearn.Table
	if isTable {
		game, err := ssd.ParseGame(eo.game)
		if err != nil {
			return usagef("--game: %v", err)
		}
		if tab, err = loadQTable(path, game); err != nil {
			return usagef("%v", err)
		}
	} else if src, err = readSource(pos[0]); err != nil {
		return usagef("%v", err)
	}
	_, statErr := os.Stat(so.path)
	fresh := errors.Is(statErr, os.ErrNotExist)
	ar, err := openArena(&so, createStore, &eo, &sbo, evalSeeds, matchSeeds, stderr)
	if err != nil {
		return err
	}
	defer ar.Close()
	defer func() {
		// A store this import made is not left behind, empty, when the
		// import fails (an interrupted one keeps what it stored).
		if fresh && err != nil && !errors.Is(err, context.Canceled) {
			removeStore(so.path)
		}
	}()
	ar.Objective = objective
	defer watchArena(ar, "pool import", "admitting, evaluating and rating "+pos[0], stderr)()
	var rep *arena.ImportReport
	if isTable {
		rep, err = ar.ImportQTable(ctx, tab, name, rngSeed)
	} else {
		rep, err = ar.Import(ctx, src, name, rngSeed)
	}
	if err != nil {
		var ve *sandbox.ValidationError
		if errors.As(err, &ve) {
			ve.File = pos[0]
		}
		return err
	}
	verb := "imported"
	if !rep.New {
		verb = "already stored:"
	}
	ev := rep.Evaluation
	fmt.Fprintf(stdout, "%s %.12s (%s) into %s\n", verb, rep.ID, name, ar.GlobalPool())
	fmt.Fprintf(stdout, "self-play over seeds %v: %s; efficiency %.3f, equality %.3f, sustainability %.1f, peace %.2f\n",
		ev.Seeds, ev.Status, ev.Mean.Efficiency, ev.Mean.Equality, ev.Mean.Sustainability, ev.Mean.Peace)
	for _, g := range rep.Rating.Games {
		fmt.Fprintf(stdout, "  vs %.12s seed %d: %.2f to %.2f, %s\n", g.Opponent, g.Seed, g.Score, g.OpponentScore, outcomeWord(g.Outcome))
	}
	fmt.Fprintf(stdout, "win rate %.2f over %d %s; elo %.1f\n", rep.Rating.WinRate(), len(rep.Rating.Games), ar.Objective.GamesCounted(), rep.Rating.Elo)
	for _, id := range rep.Evicted {
		fmt.Fprintf(stdout, "evicted %.12s (pool over capacity %d)\n", id, ar.Pool.Capacity)
	}
	return nil
}
