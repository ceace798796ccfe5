package qlearn

import (
	"context"
	"fmt"

	"policyevolve/envs"
	"policyevolve/envs/ssd"
)

// EvalSeed is the first evaluation seed of the reference (episode k of an
// evaluation plays seed EvalSeed+k).
const EvalSeed = 9999

// Evaluation is the reference's evaluate_policy for the table in
// self-play: every agent plays it greedily, one episode per seed.
type Evaluation struct {
	Episodes []EpisodeResult
	// AvgTeamReward is the mean over episodes of the sum of the returns.
	AvgTeamReward float64
	// Metrics are the means over episodes of each social metric.
	Metrics envs.Metrics
	// Cleanup only: the mean over episodes of the per-step waste density
	// and of the number of clean actions.
	AvgWaste  float64
	AvgCleans float64
}

// EpisodeResult is one evaluation episode.
type EpisodeResult struct {
	Seed    uint64
	Returns []float64
	Metrics envs.Metrics
	// Cleanup only: the mean waste density after each step, and how many
	// times an agent chose to clean.
	AvgWaste float64
	Cleans   int
}

// Evaluate plays the table in self-play on m with the given number of
// agents and steps per episode (0: envs.DefaultMaxSteps), one episode per
// seed, and averages as the reference does (numpy means), so the numbers
// match its evaluate_policy bit for bit.
func Evaluate(ctx context.Context, t *Table, m *envs.Map, agents, steps int, seeds []uint64) (*Evaluation, error) {
	if m.Game != t.Game {
		return nil, fmt.Errorf("evaluate: the Q-table was trained on %s, the map is a %s map", t.Game, m.Game)
	}
	env, err := envs.New(envs.Config{Map: m, Agents: agents, MaxSteps: steps})
	if err != nil {
		return nil, fmt.Errorf("evaluate: %w", err)
	}
	all := make([]int, agents)
	for i := range all {
		all[i] = i
	}
	seats := []envs.Seat{{Actor: NewActor(t), Agents: all}}
	ev := &Evaluation{}
	var team, eff, equ, sus, peace, waste, cleans []float64
	for _, seed := range seeds {
		res, err := envs.Run(ctx, env, seats, envs.Options{Seed: seed, Record: m.Game == ssd.Cleanup})
		if err != nil {
			return nil, fmt.Errorf("evaluate: seed %d: %w", seed, err)
		}
		er := EpisodeResult{Seed: seed, Returns: res.Returns, Metrics: res.Metrics}
		if tr := res.Trajectory; tr != nil {
			density := make([]float64, len(tr.Steps))
			for k, s := range tr.Steps {
				density[k] = wasteDensity(s.State.Waste)
				for _, a := range s.Actions {
					if a == ssd.Clean {
						er.Cleans++
					}
				}
			}
			er.AvgWaste = envs.Mean(density)
		}
		ev.Episodes = append(ev.Episodes, er)
		var sum float64
		for _, r := range res.Returns {
			sum += r
		}
		team = append(team, sum)
		eff = append(eff, res.Metrics.Efficiency)
		equ = append(equ, res.Metrics.Equality)
		sus = append(sus, res.Metrics.Sustainability)
		peace = append(peace, res.Metrics.Peace)
		waste = append(waste, er.AvgWaste)
		cleans = append(cleans, float64(er.Cleans))
	}
	ev.AvgTeamReward = envs.Mean(team)
	ev.Metrics = envs.Metrics{Efficiency: envs.Mean(eff), Equality: envs.Mean(equ),
		Sustainability: envs.Mean(sus), Peace: envs.Mean(peace)}
	if m.Game == ssd.Cleanup {
		ev.AvgWaste, ev.AvgCleans = envs.Mean(waste), envs.Mean(cleans)
	}
	return ev, nil
}

// wasteDensity is the reference's _compute_waste_density over a waste
// vector: polluted cells / river cells, 0 without a river.
func wasteDensity(waste []bool) float64 {
	if len(waste) == 0 {
		return 0
	}
	k := 0
	for _, w := range waste {
		if w {
			k++
		}
	}
	return float64(k) / float64(len(waste))
}
