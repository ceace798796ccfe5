package pool

import (
	"math/rand/v2"
	"reflect"
	"testing"
)

// peel is the definition of Pareto fronts, slowly: the points no
// remaining point dominates, removed, again and again.
func peel(objs [][]float64) [][]int {
	left := map[int]bool{}
	for i := range objs {
		left[i] = true
	}
	var out [][]int
	for len(left) > 0 {
		var front []int
		for i := range objs {
			if !left[i] {
				continue
			}
			dominated := false
			for j := range objs {
				if w, _ := compare(objs[j], objs[i]); left[j] && j != i && w {
					dominated = true
				}
			}
			if !dominated {
				front = append(front, i)
			}
		}
		for _, i := range front {
			delete(left, i)
		}
		out = append(out, front)
	}
	return out
}

// TestFrontsAreTheDefinition: fronts gives the fronts of the definition,
// each in increasing order, on random points with ties (objectives drawn
// from a few values) and without.
func TestFrontsAreTheDefinition(t *testing.T) {
	const seed = 11
	t.Logf("seed: %d", seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	for trial := range 40 {
		n, dims, levels := 1+rng.IntN(60), 1+rng.IntN(7), 2+rng.IntN(4)
		objs := make([][]float64, n)
		for i := range objs {
			objs[i] = make([]float64, dims)
			for k := range objs[i] {
				if trial%2 == 0 {
					objs[i][k] = float64(rng.IntN(levels))
				} else {
					objs[i][k] = rng.Float64()
				}
			}
		}
		if got, want := fronts(objs), peel(objs); !reflect.DeepEqual(got, want) {
			t.Fatalf("trial %d: fronts %v, want %v", trial, got, want)
		}
	}
}
