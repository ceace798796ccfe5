package population

import (
	"math/rand/v2"
	"slices"
	"testing"

	"policyevolve/pool"
)

// TestParentOrder: with a score, each Pareto front is ordered by it,
// best first; without, in the order drawn from the seed (which, for this
// seed, does not put the best first); fronts stay in rank order either
// way.
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
	shuffled := ParentOrder(sources, rand.New(rand.NewPCG(seed, 0)), nil)
	best := ParentOrder(sources, rand.New(rand.NewPCG(seed, 0)), func(m pool.Member) float64 { return m.Efficiency })
	if want := []string{"b", "c", "a", "d"}; !slices.Equal(best, want) {
		t.Errorf("best first: %v, want %v", best, want)
	}
	if shuffled[0] == "b" || shuffled[3] != "d" {
		t.Errorf("shuffled: %v; want the front drawn in another order than best first, d last", shuffled)
	}
}

// TestParentAt: without lead candidate k takes the k-th parent; with it
// the first half of the candidates (rounded up) take the first, the rest
// the next ones.
func TestParentAt(t *testing.T) {
	for _, tc := range []struct {
		n    int
		lead bool
		want []int
	}{
		{4, false, []int{0, 1, 2, 3}},
		{4, true, []int{0, 0, 1, 2}},
		{5, true, []int{0, 0, 0, 1, 2}},
		{1, true, []int{0}},
		{2, true, []int{0, 1}},
	} {
		var got []int
		for k := 0; k < tc.n; k++ {
			got = append(got, ParentAt(k, tc.n, tc.lead))
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%d candidates, lead %v: parents %v, want %v", tc.n, tc.lead, got, tc.want)
		}
	}
}
