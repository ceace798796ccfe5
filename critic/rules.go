package critic

import (
	"slices"
	"strings"

	"policyevolve/envs/ssd"
)

// undid reports whether agent i's step from s1 to s2 undid its step from
// s0 to s1: it stands and faces as at s0, and had moved or turned at s1.
func undid(s0, s1, s2 *ssd.State, i int) bool {
	back := s2.Pos[i] == s0.Pos[i] && s2.Orient[i] == s0.Orient[i]
	moved := s1.Pos[i] != s0.Pos[i] || s1.Orient[i] != s0.Orient[i]
	return back && moved
}

func density(waste []bool) float64 {
	if len(waste) == 0 {
		return 0
	}
	n := 0
	for _, w := range waste {
		if w {
			n++
		}
	}
	return float64(n) / float64(len(waste))
}

// regrowthProb is the probability that a dead apple regrows at a step
// ending at waste density d: the clean-river rate at or below the
// restoration threshold, nothing at or above the depletion threshold, a
// straight line between (as the environment computes it).
func regrowthProb(p ssd.Params, d float64) float64 {
	switch {
	case d >= p.ThresholdDepletion:
		return 0
	case d <= p.ThresholdRestoration:
		return p.AppleRespawnProb
	}
	frac := (d - p.ThresholdRestoration) / (p.ThresholdDepletion - p.ThresholdRestoration)
	return (1 - frac) * p.AppleRespawnProb
}

// regrowthCandidates counts the apples that could regrow at the step from
// before to after: dead before it, with no agent standing on them after
// the agents moved.
func regrowthCandidates(lay *ssd.Layout, before, after *ssd.State) int {
	n := 0
	for k, alive := range before.AppleAlive {
		if !alive && !slices.Contains(after.Pos, lay.Apples[k]) {
			n++
		}
	}
	return n
}

// supply is the apples per agent-step the map could give: every spawn
// harvested as soon as it reappears (Gathering), or regrowing at a clean
// river's rate (Cleanup); at most 1.
func supply(lay *ssd.Layout) float64 {
	if lay.NumAgents == 0 {
		return 0
	}
	s, n := float64(len(lay.Apples)), float64(lay.NumAgents)
	v := s / (n * float64(max(1, lay.Params.AppleRespawnTime)))
	if lay.Game == ssd.Cleanup {
		v = s * lay.Params.AppleRespawnProb / n
	}
	return min(1, v)
}

// coverageMap draws the grid with the harvest per apple spawn.
func coverageMap(lay *ssd.Layout, collected []float64) []string {
	grid := make([][]byte, lay.Height)
	for r := range grid {
		grid[r] = make([]byte, lay.Width)
		for c := range grid[r] {
			grid[r][c] = ' '
			if lay.Walls[r*lay.Width+c] {
				grid[r][c] = '@'
			}
		}
	}
	for _, q := range lay.River {
		grid[q.R][q.C] = '~'
	}
	for _, q := range lay.Stream {
		grid[q.R][q.C] = '='
	}
	most := slices.Max(append([]float64{0}, collected...))
	for k, q := range lay.Apples {
		ch := byte('.')
		if collected[k] > 0 {
			ch = '1' + byte(8*collected[k]/most)
		}
		grid[q.R][q.C] = ch
	}
	out := make([]string, lay.Height)
	for r, row := range grid {
		out[r] = strings.TrimRight(string(row), " ")
	}
	return out
}
