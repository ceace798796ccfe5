package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"policyevolve/baselines/qlearn"
	"policyevolve/envs"
	"policyevolve/envs/ssd"
	"policyevolve/evolve/episode"
	"policyevolve/internal/outfile"
)

var qlearnCommands = map[string]command{
	"train": {"train a shared Q-table as the reference does and write it to a file", cmdQLearnTrain},
}

func cmdQLearn(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return runGroup(ctx, "qlearn", `The paper's tabular Q-learning baseline: one Q-table over hand-made discrete
features, shared by all agents, trained with ε-greedy self-play exactly as the
reference implementation does (same seed, same table). A trained table plays
as --policy qlearn:FILE in play, and joins a global pool with pool import.`,
		qlearnCommands, args, stdout, stderr)
}

// qlearnTrainOptions are the flags of "qlearn train".
type qlearnTrainOptions struct {
	game     string
	mapArg   string
	agents   int
	episodes int
	seed     uint64
	steps    int
	epsDecay int
	out      string
}

func cmdQLearnTrain(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var o qlearnTrainOptions
	fs := newFlagSet("qlearn train", "[flags] -o FILE", `
Train the tabular Q-learner of the paper's Table 1 and write its Q-table (JSON)
to FILE. Episode e plays seed SEED+e; the learner draws its exploration from a
generator seeded with SEED, so a run reproduces the reference's
gathering_qlearning.py / cleanup_qlearning.py bit for bit. The defaults are the
paper's run: 1000 episodes, 10 agents, seed 40, on the large Gathering map or
the default Cleanup map; α 0.1, γ 0.99, ε from 1 to 0.05 over 100 (Gathering)
or 200 (Cleanup) episodes.

Play the result with: policyevolve play --policy qlearn:FILE (the reference
evaluates on seeds 9999-10003).`, stdout)
	fs.StringVar(&o.game, "game", "gathering", "game: gathering or cleanup")
	fs.StringVar(&o.mapArg, "map", "", "built-in map name or map file (default: large for gathering, default for cleanup)")
	fs.IntVar(&o.agents, "agents", envs.DefaultAgents, "number of agents")
	fs.IntVar(&o.episodes, "episodes", qlearn.DefaultEpisodes, "training episodes")
	fs.Uint64Var(&o.seed, "seed", qlearn.DefaultSeed, "training seed")
	fs.IntVar(&o.steps, "steps", envs.DefaultMaxSteps, "steps per episode")
	fs.IntVar(&o.epsDecay, "eps-decay", 0, "episodes over which ε decays (default: 100 for gathering, 200 for cleanup)")
	fs.StringVar(&o.out, "o", "", "output file for the Q-table (required)")
	if err := parseFlags(fs, args, false); err != nil {
		return err
	}
	return runQLearnTrain(ctx, o, stdout, stderr)
}

func runQLearnTrain(ctx context.Context, o qlearnTrainOptions, stdout, stderr io.Writer) error {
	game, err := ssd.ParseGame(o.game)
	if err != nil {
		return usagef("--game: %v", err)
	}
	switch {
	case o.out == "":
		return usagef("-o FILE is required")
	}
	if o.mapArg == "" {
		o.mapArg = envs.DefaultMap(game)
	}
	m, err := episode.ResolveMap(game, o.mapArg)
	if err != nil {
		return usagef("--map: %v", err)
	}
	if _, err := envs.New(envs.Config{Map: m, Agents: o.agents, MaxSteps: o.steps}); err != nil {
		return usagef("%v", err)
	}
	params := qlearn.DefaultParams(game)
	if o.epsDecay > 0 {
		params.EpsDecay = o.epsDecay
	}
	// Claim the output before training, so that a bad path fails at once.
	out, err := outfile.Create(o.out)
	if err != nil {
		return usagef("-o: %v", err)
	}
	committed := false
	defer func() {
		if !committed {
			out.Discard()
		}
	}()

	prog := newTrainProgress(stderr, o.episodes)
	start := time.Now()
	tab, err := qlearn.Train(ctx, qlearn.Config{Map: m, MapName: o.mapArg, Agents: o.agents, Episodes: o.episodes,
		Seed: o.seed, MaxSteps: o.steps, Params: &params, OnEpisode: prog.episode})
	prog.finish()
	if err != nil {
		return err
	}
	elapsed := time.Since(start)
	data, err := tab.MarshalJSON()
	if err != nil {
		return err
	}
	if _, err := out.Write(data); err != nil {
		return err
	}
	committed = true
	if err := out.Commit(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "trained %s on %s, %d agents, %d episodes of %d steps from seed %d in %.1fs\n",
		game, o.mapArg, o.agents, o.episodes, o.steps, o.seed, elapsed.Seconds())
	fmt.Fprintf(stdout, "%d of %d states visited; wrote %s\n", tab.Len(), tab.StateSpace(), o.out)
	return nil
}
