package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Exit codes.
const (
	exitOK        = 0
	exitFailure   = 1
	exitUsage     = 2
	exitCancelled = 130
)

// command is one subcommand: a function a test can call.
type command struct {
	summary string
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

var commands = map[string]command{
	"evolve":     {"run an evolution job: population search (default) or the paper's chain; resumable", cmdEvolve},
	"compare":    {"chain against population search on the same budget of planner calls: a Table-1-style report", cmdCompare},
	"experiment": {"the paper's Table 1 for a game in one command (compare --suite paper): every method, transfer, invaders", cmdExperiment},
	"runs":       {"list evolution runs, or show one with its iterations and candidates (ls, show)", cmdRuns},
	"play":       {"run a built-in or source policy on a game and print the social metrics", cmdPlay},
	"validate":   {"check a policy source: rules, compilation, 50-step smoke test, determinism", cmdValidate},
	"pool":       {"inspect and edit the pools of the store (ls, show, diff, lineage, export, import, rm)", cmdPool},
	"match":      {"play two stored policies against each other", cmdMatch},
	"invade":     {"seat k agents of policy A among policy B: does B resist invasion, does A free-ride", cmdInvade},
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

// usageError is a wrong flag or value: reported in one line, exit 2.
// cmd, when set, is the (sub)command whose help to point at.
type usageError struct{ msg, cmd string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// run dispatches args to a subcommand and turns its error into a message
// and an exit code, in one place.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" || args[0] == "-help" {
		if len(args) > 1 {
			if _, ok := commands[args[1]]; ok {
				return run(ctx, []string{args[1], "--help"}, stdout, stderr)
			}
			fmt.Fprintf(stderr, "policyevolve: unknown command %q (run policyevolve help)\n", args[1])
			return exitUsage
		}
		printHelp(stdout)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	name := args[0]
	cmd, ok := commands[name]
	if !ok {
		fmt.Fprintf(stderr, "policyevolve: unknown command %q (run policyevolve help)\n", name)
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
		fmt.Fprintf(stderr, "policyevolve %s: %v (see policyevolve %s --help)\n", name, err, help)
		return exitUsage
	case errors.Is(err, context.Canceled):
		fmt.Fprintf(stderr, "policyevolve %s: interrupted\n", name)
		return exitCancelled
	default:
		fmt.Fprintf(stderr, "policyevolve %s: %v\n", name, err)
		return exitFailure
	}
}

func printHelp(w io.Writer) {
	fmt.Fprintln(w, "policyevolve — population-based evolutionary search of programmatic policies")
	fmt.Fprintln(w, "for Sequential Social Dilemmas (Gathering, Cleanup).")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Usage: policyevolve COMMAND [flags]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Commands:")
	listCommands(w, commands)
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run 'policyevolve COMMAND --help' for a command's flags.")
}

// flagSet is a subcommand's flags with the help text printed by --help.
type flagSet struct {
	*flag.FlagSet
	help func()
}

// listCommands prints commands and their summaries, sorted by name.
func listCommands(w io.Writer, cmds map[string]command) {
	names := make([]string, 0, len(cmds))
	for n := range cmds {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, cmds[n].summary)
	}
}

// newFlagSet returns a FlagSet that reports errors through parseFlags
// instead of printing them, and prints its help to stdout on --help.
func newFlagSet(name, synopsis, description string, stdout io.Writer) *flagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {} // parse errors become one-line usage errors instead
	help := func() {
		fmt.Fprintf(stdout, "Usage: policyevolve %s %s\n\n%s\n\nFlags:\n", name, synopsis, strings.TrimSpace(description))
		fs.SetOutput(stdout)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}
	return &flagSet{fs, help}
}

// oneArg parses flags around exactly one positional argument, what it
// names in the usage error ("one policy (ID, FILE.go or built-in name)").
func oneArg(fs *flagSet, args []string, what string) (string, error) {
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return "", err
	}
	if len(pos) != 1 {
		return "", usagef("want %s, got %d arguments", what, len(pos))
	}
	return pos[0], nil
}

// parseInterspersed parses flags that may come before, between or after
// positional arguments (as in "validate FILE.go --game cleanup") and
// returns the positional ones.
func parseInterspersed(fs *flagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := parseFlags(fs, args, true); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// parseFlags parses args and turns a flag error into a usage error;
// --help prints the help and returns flag.ErrHelp. Positional arguments
// are refused unless allowed.
func parseFlags(fs *flagSet, args []string, positional bool) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.help()
			return err
		}
		return &usageError{msg: err.Error()}
	}
	if !positional && fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	return nil
}

// runGroup dispatches a command with subcommands ("pool ls"): help when
// asked (or when the subcommand is missing, then a usage error), else the
// subcommand.
func runGroup(ctx context.Context, group, about string, cmds map[string]command, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprintf(stdout, "Usage: policyevolve %s SUBCOMMAND [flags]\n\n%s\n\n", group, about)
		listCommands(stdout, cmds)
		if len(args) == 0 {
			return usagef("missing subcommand")
		}
		return nil
	}
	sub, ok := cmds[args[0]]
	if !ok {
		return usagef("unknown subcommand %q", args[0])
	}
	err := sub.run(ctx, args[1:], stdout, stderr)
	if ue, ok := err.(*usageError); ok && ue.cmd == "" {
		ue.cmd = group + " " + args[0]
	}
	return err
}

// policyArgs parses flags and exactly n policy ids (in any order with the
// flags).
func policyArgs(fs *flagSet, args []string, n int) ([]string, error) {
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return nil, err
	}
	if len(pos) != n {
		word := "one policy id"
		if n == 2 {
			word = "two policy ids"
		}
		return nil, usagef("want %s, got %d arguments", word, len(pos))
	}
	return pos, nil
}
