package gepa

import (
	"math/rand/v2"
	"slices"
	"testing"

	"policyevolve/store"
)

func TestParetoFrontAndParent(t *testing.T) {
	seeds := []uint64{0, 1, 2}
	pool := []Scored{
		{ID: 0, Scores: []float64{1, 1, 1}},
		{ID: 1, Scores: []float64{3, 0, 1}}, // best on seed 0
		{ID: 2, Scores: []float64{0, 2, 2}}, // best on seeds 1 and 2
		{ID: 3, Scores: []float64{0, 2, 1}}, // ties on seed 1 only: dominated by 2
	}
	front := Front(seeds, pool)
	want := []store.FrontSeed{{Seed: 0, Best: 3, Candidates: []int{1}}, {Seed: 1, Best: 2, Candidates: []int{2, 3}},
		{Seed: 2, Best: 2, Candidates: []int{2}}}
	for k := range want {
		if front[k].Seed != want[k].Seed || front[k].Best != want[k].Best || !slices.Equal(front[k].Candidates, want[k].Candidates) {
			t.Fatalf("front %+v, want %+v", front, want)
		}
	}
	if d := dominated(front, pool); !d[3] || d[1] || d[2] || len(d) != 1 {
		t.Errorf("dominated %v, want only 3", d)
	}
	// Candidate 2 stands on two fronts, 1 on one: drawn 2:1.
	const seed = 9
	t.Logf("seed: %d", seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	count := map[int]int{}
	for i := 0; i < 3000; i++ {
		count[SelectParent(front, pool, rng)]++
	}
	if count[0] != 0 || count[3] != 0 || count[2] < 1800 || count[2] > 2200 {
		t.Errorf("parents drawn %v, want about 1000 of 1 and 2000 of 2", count)
	}
}
