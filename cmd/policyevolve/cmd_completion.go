package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
)

func init() {
	// Here rather than in the table: completion reads the table.
	commands["completion"] = command{"print a shell completion script for bash, zsh or fish", cmdCompletion}
}

func cmdCompletion(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("completion", "bash|zsh|fish", `
Print a script that completes this program's commands, subcommands, flags
and some flags' values in a shell. It is written from the command table
and the commands' flags, so it knows every command of this version.

  bash:  source <(policyevolve completion bash)       (in ~/.bashrc)
  zsh:   policyevolve completion zsh > "${fpath[1]}/_policyevolve"
  fish:  policyevolve completion fish > ~/.config/fish/completions/policyevolve.fish

The scripts complete the command named policyevolve: the installed one
(go install ./cmd/policyevolve).`, stdout)
	shell, err := oneArg(fs, args, "one shell (bash, zsh or fish)")
	if err != nil {
		return err
	}
	spec := completionSpec()
	switch shell {
	case "bash":
		writeBash(stdout, spec)
	case "zsh":
		writeZsh(stdout, spec)
	case "fish":
		writeFish(stdout, spec)
	default:
		return usagef("unknown shell %q: bash, zsh or fish%s", shell, didYouMean(shell, []string{"bash", "zsh", "fish"}, ""))
	}
	return nil
}

// compCommand is a command (or subcommand) as completion sees it.
type compCommand struct {
	name, summary string
	subs          []compCommand // a group's subcommands
	flags         []compFlag
}

type compFlag struct {
	name, usage string
	takesValue  bool
	numeric     bool     // its value is a number or a duration
	values      []string // the values it takes, when they are a few words
}

// flagValues are the values of the flags that take one of a few words.
var flagValues = map[string][]string{
	"game":          {"gathering", "cleanup"},
	"mode":          {"population", "chain", "gepa"},
	"backend":       {"auto", "native", "yaegi"},
	"feedback":      {"sparse", "dense", "critic", "raw"},
	"critic":        {"analytic", "llm"},
	"prompt-style":  {"standard", "naive", "cot", "react"},
	"reasoning":     {"max", "high", "medium", "low", "none"},
	"sort":          {"elo", "efficiency", "equality", "sustainability"},
	"suite":         {"paper"},
	"planner":       {"grammar"},
	"gepa-feedback": {"sparse", "dense", "critic"},
}

// completionSpec reads the command table and every command's flags.
func completionSpec() []compCommand {
	sets := commandFlagSets()
	flagsOf := func(path string) []compFlag { return completionFlags(sets[path]) }
	var out []compCommand
	for _, name := range slices.Sorted(slices.Values(mapKeys(commands))) {
		c := compCommand{name: name, summary: commands[name].summary}
		if subs, ok := groups[name]; ok {
			for _, sub := range slices.Sorted(slices.Values(mapKeys(subs))) {
				c.subs = append(c.subs, compCommand{name: sub, summary: subs[sub].summary, flags: flagsOf(name + " " + sub)})
			}
		} else {
			c.flags = flagsOf(name)
		}
		out = append(out, c)
	}
	return append(out, compCommand{name: "help", summary: "list the commands, or show one's flags"})
}

// completionFlags are a flag set's flags as completion sees them.
func completionFlags(fs *flagSet) []compFlag {
	if fs == nil {
		return nil
	}
	var out []compFlag
	fs.VisitAll(func(f *flag.Flag) {
		bf, isBool := f.Value.(interface{ IsBoolFlag() bool })
		out = append(out, compFlag{name: f.Name, usage: firstLine(f.Usage), takesValue: !(isBool && bf.IsBoolFlag()),
			numeric: kindOf(f.Value) != "", values: flagValues[f.Name]})
	})
	return out
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return oneLine(s, 70)
}

// flagWords are the flags as typed: --name (-o for one letter).
func flagWords(fs []compFlag) string {
	w := make([]string, len(fs))
	for i, f := range fs {
		w[i] = dashes(f.name)
	}
	return strings.Join(w, " ")
}

func names(cs []compCommand) string {
	w := make([]string, len(cs))
	for i, c := range cs {
		w[i] = c.name
	}
	return strings.Join(w, " ")
}

func writeBash(w io.Writer, spec []compCommand) {
	fmt.Fprintf(w, `# bash completion for policyevolve, written by "policyevolve completion bash".
_policyevolve() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
  local cmd="" sub="" i
  for ((i = 1; i < COMP_CWORD; i++)); do
    case ${COMP_WORDS[i]} in
      -*) ;;
      *) if [[ -z $cmd ]]; then cmd=${COMP_WORDS[i]}; elif [[ -z $sub ]]; then sub=${COMP_WORDS[i]}; fi ;;
    esac
  done
  if [[ -z $cmd ]]; then
    COMPREPLY=($(compgen -W %q -- "$cur"))
    return
  fi
  local path=$cmd flags=""
`, names(spec))
	fmt.Fprintln(w, "  case $cmd in")
	for _, c := range spec {
		if len(c.subs) == 0 {
			continue
		}
		fmt.Fprintf(w, "    %s)\n      if [[ -z $sub ]]; then COMPREPLY=($(compgen -W %q -- \"$cur\")); return; fi\n      path=\"$cmd $sub\" ;;\n", c.name, names(c.subs))
	}
	fmt.Fprintln(w, "  esac")
	fmt.Fprintln(w, "  case $path in")
	for _, c := range spec {
		if len(c.subs) == 0 {
			fmt.Fprintf(w, "    %q) flags=%q ;;\n", c.name, flagWords(c.flags))
		}
		for _, s := range c.subs {
			fmt.Fprintf(w, "    %q) flags=%q ;;\n", c.name+" "+s.name, flagWords(s.flags))
		}
	}
	fmt.Fprintln(w, "  esac")
	fmt.Fprintln(w, "  case $prev in")
	for _, name := range slices.Sorted(slices.Values(mapKeys(flagValues))) {
		fmt.Fprintf(w, "    --%s) COMPREPLY=($(compgen -W %q -- \"$cur\")); return ;;\n", name, strings.Join(flagValues[name], " "))
	}
	fmt.Fprintln(w, "  esac")
	fmt.Fprintln(w, `  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$flags" -- "$cur"))
  fi
}
complete -o default -F _policyevolve policyevolve`)
}

// zshQuote makes s fit a zsh _arguments or _describe item.
func zshQuote(s string) string {
	r := strings.NewReplacer("'", "", "[", "(", "]", ")", ":", " -", "\\", "")
	return r.Replace(s)
}

func writeZsh(w io.Writer, spec []compCommand) {
	fmt.Fprintln(w, `#compdef policyevolve
# zsh completion for policyevolve, written by "policyevolve completion zsh".`)
	describe := func(indent, what string, cs []compCommand) {
		fmt.Fprintf(w, "%slocal -a items\n%sitems=(\n", indent, indent)
		for _, c := range cs {
			fmt.Fprintf(w, "%s  '%s:%s'\n", indent, c.name, zshQuote(c.summary))
		}
		fmt.Fprintf(w, "%s)\n%s_describe '%s' items\n", indent, indent, what)
	}
	args := func(indent string, fs []compFlag) {
		fmt.Fprintf(w, "%s_arguments -s \\\n", indent)
		for _, f := range fs {
			spec := fmt.Sprintf("'%s[%s]", dashes(f.name), zshQuote(f.usage))
			if f.takesValue {
				action := "_files"
				switch {
				case len(f.values) > 0:
					action = "(" + strings.Join(f.values, " ") + ")"
				case f.numeric:
					action = " "
				}
				spec += ":" + f.name + ":" + action
			}
			fmt.Fprintf(w, "%s  %s' \\\n", indent, spec)
		}
		fmt.Fprintf(w, "%s  '*:file:_files'\n", indent)
	}
	fmt.Fprintln(w, "_policyevolve() {")
	fmt.Fprintln(w, "  if (( CURRENT == 2 )); then")
	describe("    ", "command", spec)
	fmt.Fprintln(w, "    return\n  fi\n  case $words[2] in")
	for _, c := range spec {
		fmt.Fprintf(w, "    %s)\n", c.name)
		if len(c.subs) == 0 {
			shift := "      (( CURRENT -= 1 )); shift words\n"
			fmt.Fprint(w, shift)
			args("      ", c.flags)
			fmt.Fprintln(w, "      ;;")
			continue
		}
		fmt.Fprintln(w, "      if (( CURRENT == 3 )); then")
		describe("        ", "subcommand", c.subs)
		fmt.Fprintln(w, "        return\n      fi\n      case $words[3] in")
		for _, s := range c.subs {
			fmt.Fprintf(w, "        %s)\n          (( CURRENT -= 2 )); shift 2 words\n", s.name)
			args("          ", s.flags)
			fmt.Fprintln(w, "          ;;")
		}
		fmt.Fprintln(w, "      esac\n      ;;")
	}
	fmt.Fprintln(w, "  esac\n}\n\ncompdef _policyevolve policyevolve")
}

// fishQuote quotes s for fish, in single quotes.
func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

func writeFish(w io.Writer, spec []compCommand) {
	fmt.Fprintln(w, `# fish completion for policyevolve, written by "policyevolve completion fish".`)
	top := names(spec)
	flagLine := func(cond string, f compFlag) {
		opt := "-l " + f.name
		if len(f.name) == 1 {
			opt = "-s " + f.name
		}
		line := fmt.Sprintf("complete -c policyevolve -n %s %s -d %s", fishQuote(cond), opt, fishQuote(f.usage))
		switch {
		case len(f.values) > 0:
			line += " -x -a " + fishQuote(strings.Join(f.values, " "))
		case f.numeric:
			line += " -x"
		case f.takesValue:
			line += " -r -F"
		}
		fmt.Fprintln(w, line)
	}
	for _, c := range spec {
		fmt.Fprintf(w, "complete -c policyevolve -n %s -a %s -d %s\n", fishQuote("not __fish_seen_subcommand_from "+top), c.name, fishQuote(c.summary))
	}
	for _, c := range spec {
		cond := "__fish_seen_subcommand_from " + c.name
		for _, f := range c.flags {
			flagLine(cond, f)
		}
		if len(c.subs) == 0 {
			continue
		}
		subs := names(c.subs)
		for _, s := range c.subs {
			fmt.Fprintf(w, "complete -c policyevolve -n %s -a %s -d %s\n",
				fishQuote(cond+"; and not __fish_seen_subcommand_from "+subs), s.name, fishQuote(s.summary))
			for _, f := range s.flags {
				flagLine(cond+"; and __fish_seen_subcommand_from "+s.name, f)
			}
		}
	}
}
