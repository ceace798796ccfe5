package main

import (
	"context"
	"io"
)

// groups are the commands that have subcommands, with their tables.
var groups = map[string]map[string]command{
	"pool":   poolCommands,
	"runs":   runsCommands,
	"store":  storeCommands,
	"llm":    llmCommands,
	"qlearn": qlearnCommands,
}

// flagCollector is handed to a command as its stdout to learn its flags:
// the command's flag set, once its flags are registered, is collected
// instead of parsed (parseFlags), and the command returns at once.
type flagCollector struct {
	io.Writer
	sets []*flagSet
}

func (c *flagCollector) add(fs *flagSet) { c.sets = append(c.sets, fs) }

// commandFlagSets returns the flag set of every command, subcommands by
// their path ("pool ls"): what completion and the tests of every flag
// read. Nothing runs but the commands' flag registration.
func commandFlagSets() map[string]*flagSet {
	out := map[string]*flagSet{}
	for name, c := range commands {
		if subs, ok := groups[name]; ok {
			for sub, sc := range subs {
				if fs := collectFlags(sc); fs != nil {
					out[name+" "+sub] = fs
				}
			}
			continue
		}
		if fs := collectFlags(c); fs != nil {
			out[name] = fs
		}
	}
	return out
}

func collectFlags(c command) *flagSet {
	col := &flagCollector{Writer: io.Discard}
	c.run(context.Background(), []string{"--help"}, col, io.Discard)
	if len(col.sets) == 0 {
		return nil
	}
	return col.sets[0]
}
