package elo

import "math"

// Defaults of PolicyEvolve's rating.
const (
	DefaultK       = 32   // rating points at stake in one match
	DefaultInitial = 1200 // a new policy's rating
)

// Scores of an outcome, from the first side's point of view.
const (
	Win  = 1.0
	Draw = 0.5
	Loss = 0.0
)

// Expected is the expected score of a player rated ra against one rated
// rb: 1 / (1 + 10^((rb-ra)/400)).
func Expected(ra, rb float64) float64 {
	return 1 / (1 + math.Pow(10, (rb-ra)/400))
}

// Update returns both ratings after a match in which A scored scoreA (Win,
// Draw or Loss) against B: R' = R + K·(S − E). The update is zero-sum.
func Update(ra, rb, scoreA, k float64) (float64, float64) {
	ea := Expected(ra, rb)
	delta := k * (scoreA - ea)
	return ra + delta, rb - delta
}
