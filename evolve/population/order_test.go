package population

import (
	"math/rand/v2"
	"slices"
	"testing"

	"policyevolve/pool"
)

// TestParentOrder: with bestFirst, each Pareto front is ordered by
// self-play efficiency, best first; without, in the order drawn from the
// seed (which, for this seed, does not put the best first); fronts stay in
// rank order either way.
func TestParentOrder(t *testing.T) {
	// a, b, c trade efficiency against equality: one front. d is
	// dominated by c.
	sources := []pool.Member{
		{ID: "a", Efficiency: 3.0, Equality: 0.9},
		{ID: "b", Efficiency: 4.0, Equality: 0.7},
		{ID: "c", Efficiency: 3.5, Equality: 0.8},
		{ID: "d", Efficiency: 3.4, Equality: 0.6},
	}
	const seed = 1
	t.Logf("seed: %d", seed)
	shuffled := ParentOrder(sources, rand.New(rand.NewPCG(seed, 0)), false)
	best := ParentOrder(sources, rand.New(rand.NewPCG(seed, 0)), true)
	if want := []string{"b", "c", "a", "d"}; !slices.Equal(best, want) {
		t.Errorf("best first: %v, want %v", best, want)
	}
	if shuffled[0] == "b" || shuffled[3] != "d" {
		t.Errorf("shuffled: %v; want the front drawn in another order than best first, d last", shuffled)
	}
}
