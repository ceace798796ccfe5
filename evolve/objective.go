package evolve

import (
	"fmt"

	"policyevolve/internal/plural"
)

// DescribeObjective says in one sentence what the run's objective
// decided (pool.Objective.Describe): what its pool's games compare, who
// joined the pool, who is champion. A chain run has no pool: its
// champion is its best in self-play, except under an objective that
// Exploits (the best invader; the target is said too); a GEPA run's
// is GEPA's own (its best mean score over its seeds). A champion
// picked in self-play is said rechecked on the recheck seeds when the run
// has them, seeds writing them as the caller writes seed lists. runs show
// and the run report say this sentence.
func (c JobConfig) DescribeObjective(seeds func([]uint64) string) string {
	best := "the best in self-play"
	if rs := c.RecheckSeeds(); len(rs) > 0 {
		best += fmt.Sprintf(" (each contender rechecked on seeds %s as well)", seeds(rs))
	}
	if c.Mode == ModeGEPA {
		return "a gepa run has no pool: its champion is the policy of its accepted candidate with the best mean score over its seeds"
	}
	if c.Objective.Exploits() {
		target := fmt.Sprintf(" (%s among residents running %.12s, on the evaluation seeds)", plural.N(c.Invaders, "invader"), c.Against)
		if c.Mode != ModePopulation {
			return "a " + c.Mode + " run has no pool: its champion is " + c.Objective.DescribeChampion(best) + target
		}
		return c.Objective.Describe(best, c.RobustMargin) + target
	}
	if c.Mode != ModePopulation {
		return "a " + c.Mode + " run has no pool: its champion is " + best
	}
	return c.Objective.Describe(best, c.RobustMargin)
}
