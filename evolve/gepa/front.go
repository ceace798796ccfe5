package gepa

import (
	"math/rand/v2"
	"slices"

	"policyevolve/store"
)

// Scored is an accepted GEPA candidate with its per-seed scores, in the
// order of the run's evaluation seeds.
type Scored struct {
	ID     int
	Scores []float64
}

// Total is the sum of the candidate's scores.
func (p Scored) Total() float64 {
	var s float64
	for _, x := range p.Scores {
		s += x
	}
	return s
}

// Front is GEPA's front over instances, the instances being the
// evaluation seeds: for each seed, the best score an accepted candidate
// reached on it and every candidate that reached it (ids ascending).
func Front(seeds []uint64, pool []Scored) []store.FrontSeed {
	out := make([]store.FrontSeed, len(seeds))
	for k, seed := range seeds {
		out[k].Seed = seed
		for _, p := range pool {
			if k >= len(p.Scores) {
				continue
			}
			switch s := p.Scores[k]; {
			case len(out[k].Candidates) == 0 || s > out[k].Best:
				out[k].Best, out[k].Candidates = s, []int{p.ID}
			case s == out[k].Best:
				out[k].Candidates = append(out[k].Candidates, p.ID)
			}
		}
		slices.Sort(out[k].Candidates)
	}
	return out
}

// dominated returns the candidates GEPA drops from the front before it
// samples a parent: taking them from the lowest total score up (ties by
// id), a candidate is dominated when every seed's front that holds it
// holds another candidate not yet dropped; the sweep starts again after
// each drop, until none is found.
func dominated(front []store.FrontSeed, pool []Scored) map[int]bool {
	total := map[int]float64{}
	for _, p := range pool {
		total[p.ID] = p.Total()
	}
	var onFront []int
	for _, f := range front {
		for _, id := range f.Candidates {
			if !slices.Contains(onFront, id) {
				onFront = append(onFront, id)
			}
		}
	}
	slices.SortFunc(onFront, func(a, b int) int {
		switch {
		case total[a] < total[b]:
			return -1
		case total[a] > total[b]:
			return 1
		}
		return a - b
	})
	out := map[int]bool{}
	for found := true; found; {
		found = false
		for _, y := range onFront {
			if out[y] || !coveredElsewhere(y, front, out) {
				continue
			}
			out[y], found = true, true
			break
		}
	}
	return out
}

// coveredElsewhere says whether every front that holds y holds another
// candidate that is not dropped.
func coveredElsewhere(y int, front []store.FrontSeed, dropped map[int]bool) bool {
	for _, f := range front {
		if !slices.Contains(f.Candidates, y) {
			continue
		}
		other := false
		for _, id := range f.Candidates {
			if id != y && !dropped[id] {
				other = true
				break
			}
		}
		if !other {
			return false
		}
	}
	return true
}

// SelectParent draws the candidate to reflect on as GEPA does: among the
// front's candidates that are not dominated, with a probability
// proportional to the number of seeds on whose front it stands.
func SelectParent(front []store.FrontSeed, pool []Scored, rng *rand.Rand) int {
	drop := dominated(front, pool)
	var tickets []int // one per (seed, candidate) on the front, in seed order
	for _, f := range front {
		for _, id := range f.Candidates {
			if !drop[id] {
				tickets = append(tickets, id)
			}
		}
	}
	if len(tickets) == 0 {
		return pool[0].ID
	}
	return tickets[rng.IntN(len(tickets))]
}
