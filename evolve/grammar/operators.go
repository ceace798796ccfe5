package grammar

import (
	"context"
	"errors"
)

// ErrBug marks a failure that only a bug in the grammar can cause: a
// genome whose rendering fails validation, the smoke test or an episode.
var ErrBug = errors.New("bug in the grammar planner")

// TrainSeeds are the default seeds on which the planner scores candidates
// in process: apart from the arena's evaluation seeds (0-4 by default),
// which then measure the planner's proposals on episodes it never saw.
var TrainSeeds = []uint64{1000, 1001, 1002}

// Child returns the best of ranked (best first) that differs from every
// one of avoid, and false when there is none.
func Child(ranked []Scored, avoid ...Genome) (Scored, bool) {
	for _, s := range ranked {
		fresh := true
		for _, a := range avoid {
			if s.Genome.Canonical() == a.Canonical() {
				fresh = false
				break
			}
		}
		if fresh {
			return s, true
		}
	}
	return Scored{}, false
}

// Crossovers returns every child that takes each family's whole module
// from a or from b, except those equal to a or b, in a fixed order.
func Crossovers(a, b Genome) []Genome {
	var out []Genome
	n := len(families(a.Game))
	seen := map[Genome]bool{a.Canonical(): true, b.Canonical(): true}
	for mask := 1; mask < 1<<n-1; mask++ {
		c := Cross(a, b, mask)
		if !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	return out
}

// Best scores genomes with ev and returns the best (the first on ties).
func Best(ctx context.Context, ev *Evaluator, genomes []Genome) (Scored, error) {
	var best Scored
	for i, g := range genomes {
		s, err := ev.Score(ctx, g)
		if err != nil {
			return Scored{}, err
		}
		if i == 0 || s > best.Score {
			best = Scored{Genome: g.Canonical(), Score: s}
		}
	}
	return best, nil
}
