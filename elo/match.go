package elo

import (
	"context"
	"fmt"
	"math"
)

// EpisodeFunc plays one episode in which agent i is played by side[i] (0
// for the first policy, 1 for the second) and returns every agent's
// return. It is called twice per match, with the sides swapped.
type EpisodeFunc func(ctx context.Context, side []int, seed uint64) ([]float64, error)

// Draw tolerance: two scores are a draw when they differ by at most
// max(DrawAbsolute, DrawRelative·max(|a|, |b|)). A tenth of an apple per
// agent, or 2% of the larger score: identical policies swapped between
// sides land inside it, a policy that reliably collects more does not.
const (
	DrawAbsolute = 0.1
	DrawRelative = 0.02
)

// Result is the outcome of one match.
type Result struct {
	ScoreA, ScoreB float64 // mean per-agent return of each side over both episodes
	Outcome        float64 // A's score: Win, Draw or Loss
	Returns        [2][]float64
}

// Sides returns the seating of the first episode of a match: agents at
// even indices play side 0 (A), odd ones side 1 (B). swapped gives the
// second episode's.
func Sides(agents int, swapped bool) []int {
	s := make([]int, agents)
	for i := range s {
		s[i] = i % 2
		if swapped {
			s[i] = 1 - s[i]
		}
	}
	return s
}

// Outcome decides a match from the two scores.
func Outcome(scoreA, scoreB float64) float64 {
	tol := math.Max(DrawAbsolute, DrawRelative*math.Max(math.Abs(scoreA), math.Abs(scoreB)))
	switch {
	case math.Abs(scoreA-scoreB) <= tol:
		return Draw
	case scoreA > scoreB:
		return Win
	}
	return Loss
}

// Play runs a match between A (side 0) and B (side 1): two episodes from
// seed, sides swapped in the second. It needs at least two agents.
func Play(ctx context.Context, run EpisodeFunc, agents int, seed uint64) (*Result, error) {
	if agents < 2 {
		return nil, fmt.Errorf("match: %d agents; a match needs at least 2", agents)
	}
	var sum [2]float64
	var n [2]int
	res := &Result{}
	for ep, swapped := range []bool{false, true} {
		side := Sides(agents, swapped)
		rets, err := run(ctx, side, seed)
		if err != nil {
			return nil, fmt.Errorf("match episode %d: %w", ep+1, err)
		}
		if len(rets) != agents {
			return nil, fmt.Errorf("match episode %d: %d returns for %d agents", ep+1, len(rets), agents)
		}
		res.Returns[ep] = rets
		for i, r := range rets {
			sum[side[i]] += r
			n[side[i]]++
		}
	}
	res.ScoreA = sum[0] / float64(n[0])
	res.ScoreB = sum[1] / float64(n[1])
	res.Outcome = Outcome(res.ScoreA, res.ScoreB)
	return res, nil
}
