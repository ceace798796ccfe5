package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
)

// commands are the subcommands, by name.
var commands = map[string]command{
	"evolve":     {"run an evolution job: population search (default), the paper's chain, or GEPA; resumable", cmdEvolve},
	"compare":    {"chain, population search, GEPA and the Q-learner on one budget of planner calls: a Table-1-style report", cmdCompare},
	"experiment": {"the paper's Table 1 for a game in one command (compare --suite paper): every method, transfer, invaders", cmdExperiment},
	"runs":       {"list evolution runs, or show one with its iterations and candidates (ls, show)", cmdRuns},
	"play":       {"run a built-in or source policy on a game and print the social metrics", cmdPlay},
	"validate":   {"check a policy source: rules, compilation, 50-step smoke test, determinism", cmdValidate},
	"pool":       {"inspect and edit the pools of the store (ls, show, diff, lineage, export, import, rm)", cmdPool},
	"match":      {"play two stored policies against each other", cmdMatch},
	"invade":     {"seat k agents of policy A among policy B: does B resist invasion, does A free-ride", cmdInvade},
	"scenarios":  {"score a policy among background populations (resident and visitor scenarios): its share of its self-play return", cmdScenarios},
	"league":     {"round robin of a global pool: ratings, payoff matrix, exploitability", cmdLeague},
	"critique":   {"play a policy, print the trajectory critic's diagnostics and ranked reflections", cmdCritique},
	"store":      {"check or compact the store", cmdStore},
	"render":     {"draw an episode as an animated GIF or as PNG frames", cmdRender},
	"report":     {"write a run (or a comparison) as one self-contained HTML page: charts, lineage, pool, champion", cmdReport},
	"serve":      {"serve the store as a live web view, read-only: runs updating as jobs go, policies, pools, replays", cmdServe},
	"llm":        {"the language models the planner calls (ping)", cmdLLM},
	"propose":    {"ask a model for one policy, check it (fixing up to 3 times), store and evaluate it", cmdPropose},
	"qlearn":     {"train the paper's tabular Q-learning baseline (qlearn train)", cmdQLearn},
	"transfer":   {"play a policy on every map of its game: a generalisation table", cmdTransfer},
	"tune":       {"tune a policy's numeric constants against self-play; kept only if it wins on held-out seeds", cmdTune},
	"worker":     {"serve as an evaluation worker for evolve --nats: play episodes from a NATS JetStream queue", cmdWorker},
	"workers":    {"list the evaluation workers connected to a NATS server and the depth of its queues", cmdWorkers},
}

// dispatch runs args: it hands them to a subcommand and turns its error
// into a message and an exit code, in one place.
func dispatch(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" || args[0] == "-help" {
		if len(args) > 1 {
			if _, ok := commands[args[1]]; ok {
				return dispatch(ctx, []string{args[1], "--help"}, stdout, stderr)
			}
			fmt.Fprintf(stderr, "policyevolve: unknown command %q%s (run %s help)\n", args[1], didYouMean(args[1], mapKeys(commands), ""), self())
			return exitUsage
		}
		printHelp(stdout)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	name := args[0]
	if name == "--version" || name == "-version" {
		name = "version"
	}
	cmd, ok := commands[name]
	if !ok {
		fmt.Fprintf(stderr, "policyevolve: unknown command %q%s (run %s help)\n", name, didYouMean(name, mapKeys(commands), ""), self())
		return exitUsage
	}
	err := cmd.run(ctx, args[1:], stdout, stderr)
	var ue *usageError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return exitOK
	case errors.As(err, &ue):
		help := name
		if ue.cmd != "" {
			help = ue.cmd
		}
		fmt.Fprintf(stderr, "policyevolve %s: %s (see %s %s --help)\n", name, termSafe(err.Error()), self(), help)
		return exitUsage
	case errors.Is(err, context.Canceled):
		fmt.Fprintf(stderr, "policyevolve %s: interrupted\n", name)
		return exitCancelled
	default:
		// An error may quote what a policy wrote (its panic).
		fmt.Fprintf(stderr, "policyevolve %s: %s\n", name, termSafe(err.Error()))
		return exitFailure
	}
}

func printHelp(w io.Writer) {
	fmt.Fprintln(w, "policyevolve — population-based evolutionary search of programmatic policies")
	fmt.Fprintln(w, "for Sequential Social Dilemmas (Gathering, Cleanup).")
	fmt.Fprintln(w)
	fmt.Fprintf(w, "Usage: %s COMMAND [flags]\n", self())
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Commands:")
	listCommands(w, commands)
	fmt.Fprintln(w)
	fmt.Fprintf(w, "Run '%s COMMAND --help' for a command's flags, '%s completion bash|zsh|fish' for shell completion.\n", self(), self())
}
