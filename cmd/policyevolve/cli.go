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

// usageError is a wrong flag or value: reported in one line, exit 2.
// cmd, when set, is the (sub)command whose help to point at.
type usageError struct{ msg, cmd string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// flagSet is a subcommand's flags with the help text printed by --help,
// and the tables a config file may hold besides flags (see table).
type flagSet struct {
	*flag.FlagSet
	help func()
	// tables are the config file's tables that are no flags (see table).
	tables map[string]func(map[string]any) error
	// aliases maps an old spelling of a flag to its name (alias).
	aliases map[string]string
	// ruled: the flags' rules are applied (applyRules); failed is the
	// last value a rule refused.
	ruled  bool
	failed error
	// collect, when set, receives the flag set instead of parsing it: how
	// completion and the tests learn a command's flags (see flagSetsOf).
	collect *flagCollector
}

// flagGiven reports whether the flag name was given, on the command line
// or in a config file.
func flagGiven(fs *flagSet, name string) bool {
	found := false
	if fs != nil {
		fs.Visit(func(f *flag.Flag) { found = found || f.Name == name })
	}
	return found
}

// table registers a config file's table (TOML [name.KEY], YAML name: KEY:
// …) that is no flag: set reads it.
func (fs *flagSet) table(name string, set func(map[string]any) error) {
	if fs.tables == nil {
		fs.tables = map[string]func(map[string]any) error{}
	}
	fs.tables[name] = set
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
	fs := &flagSet{FlagSet: flag.NewFlagSet(name, flag.ContinueOnError), aliases: map[string]string{}}
	fs.SetOutput(io.Discard)
	fs.Usage = func() {} // parse errors become one-line usage errors instead
	fs.help = func() {
		fmt.Fprintf(stdout, "Usage: %s %s %s\n\n%s\n", self(), name, synopsis, strings.TrimSpace(description))
		n := 0
		fs.VisitAll(func(*flag.Flag) { n++ })
		if n > 0 { // a command without flags (completion, version) lists none
			fmt.Fprintln(stdout, "\nFlags:")
			fs.printFlags(stdout)
		}
	}
	if c, ok := stdout.(*flagCollector); ok {
		fs.collect = c
	}
	return fs
}

// alias registers old as another spelling of the flag name (registered
// already): both set the same value; help lists old as an alias.
func (fs *flagSet) alias(old, name string) {
	fs.Var(fs.Lookup(name).Value, old, "alias of --"+name)
	fs.aliases[old] = name
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
	fs.applyRules()
	if fs.collect != nil {
		fs.collect.add(fs)
		return flag.ErrHelp
	}
	fs.failed = nil
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.help()
			return err
		}
		if fs.failed != nil {
			return &usageError{msg: fs.failed.Error()}
		}
		return &usageError{msg: fs.flagError(err)}
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
		fmt.Fprintf(stdout, "Usage: %s %s SUBCOMMAND [flags]\n\n%s\n\n", self(), group, about)
		listCommands(stdout, cmds)
		if len(args) == 0 {
			return usagef("missing subcommand")
		}
		return nil
	}
	sub, ok := cmds[args[0]]
	if !ok {
		return usagef("unknown subcommand %q%s", args[0], didYouMean(args[0], mapKeys(cmds), ""))
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
