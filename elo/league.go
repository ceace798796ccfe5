package elo

import (
	"context"
	"fmt"
	"math"
)

// MatchFunc plays one match between players i and j (i as side A) on a
// seed.
type MatchFunc func(ctx context.Context, i, j int, seed uint64) (*Result, error)

// League is the outcome of a round robin.
type League struct {
	N int
	// Points[i][j] is i's mean match score against j (Win 1, Draw 0.5,
	// Loss 0) over the seeds; the diagonal is unused.
	Points [][]float64
	// Payoff[i][j] is i's mean per-agent return in its matches against j.
	Payoff [][]float64
	// Games[i][j] is the number of matches between i and j.
	Games [][]int
	// Ratings are Bradley–Terry maximum-likelihood ratings on the Elo
	// scale, centred on DefaultInitial; they do not depend on the order in
	// which matches were played.
	Ratings []float64
}

// RoundRobin plays every pair of n players once per seed (i as side A,
// j > i as side B; each match already swaps sides) and fits ratings.
func RoundRobin(ctx context.Context, n int, seeds []uint64, play MatchFunc) (*League, error) {
	l := &League{N: n, Points: square(n), Payoff: square(n), Games: make([][]int, n)}
	for i := range l.Games {
		l.Games[i] = make([]int, n)
	}
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			for _, seed := range seeds {
				r, err := play(ctx, i, j, seed)
				if err != nil {
					return nil, fmt.Errorf("league: %d vs %d, seed %d: %w", i, j, seed, err)
				}
				l.Points[i][j] += r.Outcome
				l.Points[j][i] += 1 - r.Outcome
				l.Payoff[i][j] += r.ScoreA
				l.Payoff[j][i] += r.ScoreB
				l.Games[i][j]++
				l.Games[j][i]++
			}
		}
	}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if g := l.Games[i][j]; g > 0 {
				l.Points[i][j] /= float64(g)
				l.Payoff[i][j] /= float64(g)
			}
		}
	}
	wins := square(n)
	for i := range wins {
		for j := range wins[i] {
			wins[i][j] = l.Points[i][j] * float64(l.Games[i][j])
		}
	}
	l.Ratings = BradleyTerry(wins)
	return l, nil
}

func square(n int) [][]float64 {
	m := make([][]float64, n)
	for i := range m {
		m[i] = make([]float64, n)
	}
	return m
}

// BradleyTerry fits strengths p_i by maximum likelihood to a matrix of
// wins (wins[i][j] = games i won against j, draws counted half to each)
// and returns them on the Elo scale: 400·log10(p_i), shifted so that the
// mean is DefaultInitial. It uses Hunter's MM iteration. Every pair that
// met also gets one virtual draw, a weak prior that keeps an unbeaten or
// winless player's rating finite. Players who met nobody get
// DefaultInitial, and the others are centred on it.
func BradleyTerry(wins [][]float64) []float64 {
	n := len(wins)
	w := square(n)
	games := square(n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if i == j {
				continue
			}
			g := wins[i][j] + wins[j][i]
			if g > 0 {
				w[i][j] = wins[i][j] + 0.5
				games[i][j] = g + 1
			}
		}
	}
	connected := make([]bool, n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if games[i][j] > 0 {
				connected[i] = true
			}
		}
	}
	p := make([]float64, n)
	for i := range p {
		p[i] = 1
	}
	for iter := 0; iter < 10000; iter++ {
		change := 0.0
		next := make([]float64, n)
		for i := 0; i < n; i++ {
			var wi, denom float64
			for j := 0; j < n; j++ {
				if games[i][j] > 0 {
					wi += w[i][j]
					denom += games[i][j] / (p[i] + p[j])
				}
			}
			if denom == 0 {
				next[i] = p[i]
				continue
			}
			next[i] = wi / denom
		}
		// Normalise: geometric mean 1 over the players who met someone.
		logSum, met := 0.0, 0
		for i, x := range next {
			if connected[i] {
				logSum += math.Log(x)
				met++
			}
		}
		g := 1.0
		if met > 0 {
			g = math.Exp(logSum / float64(met))
		}
		for i := range next {
			if connected[i] {
				next[i] /= g
			}
			change = math.Max(change, math.Abs(math.Log(next[i])-math.Log(p[i])))
		}
		p = next
		if change < 1e-12 {
			break
		}
	}
	out := make([]float64, n)
	mean, met := 0.0, 0
	for i, x := range p {
		out[i] = 400 * math.Log10(x)
		if connected[i] {
			mean += out[i]
			met++
		}
	}
	if met > 0 {
		mean /= float64(met)
	}
	for i := range out {
		if connected[i] {
			out[i] += DefaultInitial - mean
		} else {
			out[i] = DefaultInitial
		}
	}
	return out
}

// Exploit describes a player's worst matchup.
type Exploit struct {
	Opponent int     // the opponent against which the player fares worst, -1 if it met none
	Margin   float64 // Payoff[i][opponent] - Payoff[opponent][i]: negative means exploited
}

// Exploitability returns, for each player, its worst-case opponent in the
// league by payoff margin.
func (l *League) Exploitability() []Exploit {
	out := make([]Exploit, l.N)
	for i := range out {
		out[i] = Exploit{Opponent: -1}
		for j := 0; j < l.N; j++ {
			if j == i || l.Games[i][j] == 0 {
				continue
			}
			m := l.Payoff[i][j] - l.Payoff[j][i]
			if out[i].Opponent < 0 || m < out[i].Margin {
				out[i] = Exploit{Opponent: j, Margin: m}
			}
		}
	}
	return out
}
