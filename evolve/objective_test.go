package evolve

import (
	"fmt"
	"testing"

	"policyevolve/pool"
)

// TestDescribeObjective: the one sentence runs show and the run report
// say of a run's objective — the pool's part from the objective, the
// rechecked best only when the run rechecks, and no pool for a chain or
// GEPA run whatever the objective.
func TestDescribeObjective(t *testing.T) {
	seeds := func(s []uint64) string { return fmt.Sprintf("%d..%d", s[0], s[len(s)-1]) }
	rechecked := "the best in self-play (each contender rechecked on seeds 5..24 as well)"
	for _, tc := range []struct {
		cfg  JobConfig
		want string
	}{
		{JobConfig{Mode: ModePopulation, Objective: pool.Welfare, Recheck: On(20)},
			"its pool's games compare self-play seed by seed; the champion is " + rechecked},
		{JobConfig{Mode: ModePopulation, Objective: pool.Welfare, Recheck: Off[int]()},
			"its pool's games compare self-play seed by seed; the champion is the best in self-play"},
		{JobConfig{Mode: ModePopulation, Objective: pool.Elo, Recheck: On(20)},
			"its pool's games are mixed matches; the champion is its top-rated candidate in the pool"},
		{JobConfig{Mode: ModePopulation, Objective: pool.Robust, RobustMargin: 0.05, Recheck: On(20)},
			"its pool's games compare self-play seed by seed, and only a candidate no pool member invades by more than 0.05 of the residents' return joins it; the champion is " + rechecked + " among those that resist invasion"},
		{JobConfig{Mode: ModeChain, Objective: pool.Elo, Recheck: On(20)},
			"a chain run has no pool: its champion is " + rechecked},
		{JobConfig{Mode: ModeGEPA, Objective: pool.Welfare, Recheck: On(20)},
			"a gepa run has no pool: its champion is the policy of its accepted candidate with the best mean score over its seeds"},
	} {
		if got := tc.cfg.DescribeObjective(seeds); got != tc.want {
			t.Errorf("%s run under %s:\n  %q\nwant\n  %q", tc.cfg.Mode, tc.cfg.Objective, got, tc.want)
		}
	}
}
