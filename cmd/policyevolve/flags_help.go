package main

import (
	"flag"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
)

// printFlags writes the flags' help: each flag with its type, its help,
// its range (flagRules) and its default, said once (a help that states
// its own default, such as --store's, is not repeated); long flags with
// two dashes, aliases after the flag they spell.
func (fs *flagSet) printFlags(w io.Writer) {
	fs.applyRules()
	aliasesOf := map[string][]string{}
	for old, name := range fs.aliases {
		aliasesOf[name] = append(aliasesOf[name], old)
	}
	fs.VisitAll(func(f *flag.Flag) {
		if _, isAlias := fs.aliases[f.Name]; isAlias {
			return
		}
		value := f.Value
		if rv, ok := value.(*ruledValue); ok {
			value = rv.Value
		}
		typ, usage := flag.UnquoteUsage(&flag.Flag{Name: f.Name, Usage: f.Usage, Value: value})
		if typ == "value" {
			typ = "string"
			if k := kindOf(value); k != "" {
				typ = k
			}
		}
		line := "  " + dashes(f.Name)
		if typ != "" {
			line += " " + typ
		}
		var notes []string
		r, ruled := ruleFor(fs.Name(), f.Name)
		if ruled {
			if sp := r.span(kindOf(value)); sp != "" {
				notes = append(notes, sp)
			}
		}
		if showDefault(f, r, typ) && !strings.Contains(usage, "(default") {
			def := f.DefValue
			if typ == "string" {
				def = fmt.Sprintf("%q", def)
			}
			notes = append(notes, "default "+def)
		}
		if len(notes) > 0 {
			usage += " (" + strings.Join(notes, "; ") + ")"
		}
		fmt.Fprintf(w, "%s\n    \t%s\n", line, strings.ReplaceAll(usage, "\n", "\n    \t"))
		olds := aliasesOf[f.Name]
		sort.Strings(olds)
		for _, old := range olds {
			fmt.Fprintf(w, "  %s\n    \talias of %s\n", dashes(old), dashes(f.Name))
		}
	})
}

// showDefault reports whether a flag's default is worth printing: not a
// zero value, nor the value that stands for "not given". A text flag's
// "0" is a value (--match-seeds 0: seed 0), shown.
func showDefault(f *flag.Flag, r rule, typ string) bool {
	if f.DefValue == "0" && typ != "int" && typ != "float" && typ != "uint" && typ != "duration" {
		return r.unset != "0"
	}
	switch f.DefValue {
	case "", "0", "false", "0s", "[]", r.unset:
		return false
	}
	return true
}

// dashes spells a flag as it is best typed: -o, --store.
func dashes(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

var (
	undefinedFlag = regexp.MustCompile(`^flag provided but not defined: -+(.*)$`)
	oneDashFlag   = regexp.MustCompile(`(flag|for) -([A-Za-z][A-Za-z0-9-]+)`)
)

// flagError rewords an error of the flag package: flags with two dashes,
// and for a flag this command does not have, the one it may have meant.
// invalidValue is the flag package's message for a value a flag's Set
// refused: the value, the flag's name, the reason.
var invalidValue = regexp.MustCompile(`^invalid value "(.*)" for flag -(\S+): (.*)$`)

func (fs *flagSet) flagError(err error) string {
	msg := err.Error()
	if m := undefinedFlag.FindStringSubmatch(msg); m != nil {
		var names []string
		fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
		return fmt.Sprintf("unknown flag %s%s", dashes(m[1]), didYouMean(m[1], names, "--"))
	}
	if m := invalidValue.FindStringSubmatch(msg); m != nil {
		// As every other bad value is said: "--objective x: unknown
		// objective …", not the flag package's "invalid value … for flag".
		return fmt.Sprintf("%s %s: %s", dashes(m[2]), m[1], m[3])
	}
	return oneDashFlag.ReplaceAllStringFunc(msg, func(s string) string {
		m := oneDashFlag.FindStringSubmatch(s)
		return m[1] + " " + dashes(m[2])
	})
}
