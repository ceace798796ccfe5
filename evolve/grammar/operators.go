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

// Child returns the best of ranked (best first) that plays differently
// from every one of avoid (another print than theirs, where ranked has
// them), else the best that at least differs from them as a genome, and
// false when there is none. A child that plays exactly like its parent
// would spend a planner call on a policy already known.
func Child(ranked []Scored, avoid ...Genome) (Scored, bool) {
	known := map[string]bool{}
	for _, s := range ranked {
		if isOneOf(s.Genome, avoid) && s.Print != "" {
			known[s.Print] = true
		}
	}
	var fallback *Scored
	for i, s := range ranked {
		if isOneOf(s.Genome, avoid) {
			continue
		}
		if !known[s.Print] {
			return s, true
		}
		if fallback == nil {
			fallback = &ranked[i]
		}
	}
	if fallback != nil {
		return *fallback, true
	}
	return Scored{}, false
}

// isOneOf reports whether g is one of gs (as canonical genomes).
func isOneOf(g Genome, gs []Genome) bool {
	for _, a := range gs {
		if g.Canonical() == a.Canonical() {
			return true
		}
	}
	return false
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
