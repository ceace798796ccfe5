package evolve

import "fmt"

// DescribeObjective says in one sentence what the run's objective
// decided (pool.Objective.Describe): what its pool's games compare, who
// joined the pool, who is champion. A chain or GEPA run has no pool: its
// champion is its best in self-play, except under an objective that
// Exploits (the best invader; the target is said too). A champion
// picked in self-play is said rechecked on the recheck seeds when the run
// has them, seeds writing them as the caller writes seed lists. runs show
// and the run report say this sentence.
func (c JobConfig) DescribeObjective(seeds func([]uint64) string) string {
	best := "the best in self-play"
	if rs := c.RecheckSeeds(); len(rs) > 0 {
		best += fmt.Sprintf(" (each contender rechecked on seeds %s as well)", seeds(rs))
	}
	if c.Objective.Exploits() {
		target := fmt.Sprintf(" (%d invader(s) among residents running %.12s, on the evaluation seeds)", c.Invaders, c.Against)
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
