package main

import (
	"strings"

	"policyevolve/pool"
)

// objectiveValue is an --objective flag: a name pool.ParseObjective
// accepts (an unknown one is a usage error that lists the valid ones), or
// empty when the flag may be left unset.
type objectiveValue struct{ o *pool.Objective }

func (v objectiveValue) String() string {
	if v.o == nil {
		return ""
	}
	return string(*v.o)
}

func (v objectiveValue) Set(s string) error {
	o, err := pool.ParseObjective(s)
	if err == nil {
		*v.o = o
	}
	return err
}

// objectiveFlag registers --objective into o, whose value when the flag
// is not given is the default the help shows.
func objectiveFlag(fs *flagSet, o *pool.Objective, usage string) {
	names := make([]string, len(pool.Objectives))
	for i, x := range pool.Objectives {
		names[i] = string(x)
	}
	fs.Var(objectiveValue{o}, "objective", usage+" ("+strings.Join(names, ", ")+"; docs/objectives.md)")
}

// noTarget refuses an objective that Exploits in a command that takes no
// target: such an objective scores against the policy evolve's --against
// names, which this command has no way to be told.
func noTarget(o pool.Objective) error {
	if o.Exploits() {
		return usagef("--objective %s needs a target (--against POLICY), which only evolve takes", o)
	}
	return nil
}
