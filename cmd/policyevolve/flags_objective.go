package main

import (
	"fmt"
	"strings"

	"policyevolve/evolve"
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

// gamesWord names the games an objective counts, as a plural noun.
func gamesWord(o pool.Objective) string {
	if o.OrElo() != pool.Elo {
		return "welfare games (self-play compared seed by seed)"
	}
	return "matches"
}

// objectiveSentence says what a run's objective decided, in a sentence.
func objectiveSentence(cfg evolve.JobConfig) string {
	best := "the best in self-play"
	if seeds := cfg.RecheckSeeds(); len(seeds) > 0 {
		best += fmt.Sprintf(" (each contender rechecked on seeds %s as well)", seedWords(seeds))
	}
	if cfg.Mode == evolve.ModeGEPA {
		return "a gepa run has no pool: its champion is the policy of its accepted candidate with the best mean score over its seeds"
	}
	if cfg.Mode != evolve.ModePopulation {
		return "a " + cfg.Mode + " run has no pool: its champion is " + best
	}
	switch cfg.Objective {
	case pool.Welfare:
		return "its pool's games compare self-play seed by seed; the champion is " + best
	case pool.Elo:
		return "its pool's games are mixed matches; the champion is its top-rated candidate in the pool"
	case pool.Robust:
		return fmt.Sprintf("its pool's games compare self-play seed by seed, and only a candidate no pool member invades by more than %g of the residents' return joins it; the champion is %s among those that resist invasion", cfg.RobustMargin, best)
	}
	return ""
}

// objectiveScore names the column of pool ls that is an objective's score:
// efficiency (self-play) for welfare, elo for elo.
func objectiveScore(o pool.Objective) string {
	if o.OrElo() != pool.Elo {
		return "efficiency"
	}
	return "elo"
}
