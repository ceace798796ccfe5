package critic

import (
	"fmt"
	"slices"

	"policyevolve/envs"
	"policyevolve/envs/ssd"
)

// Episode is one recorded episode for the critic.
type Episode struct {
	Trajectory *envs.Trajectory // from envs.Run with Options.Record
	// Mine are the agents the policy under study plays: nil for every
	// agent (self-play), the policy's seats in a match.
	Mine []int
	// Opponent names the policy playing the other agents in a match; ""
	// in self-play.
	Opponent string
}

// Config tunes Diagnose. The zero value gives the defaults.
type Config struct {
	// Bins is the number of equal slices of an episode in the time series
	// (default 10).
	Bins int
	// CollapseWindow is the number of final steps without any regrowth
	// that make a Cleanup episode count as collapsed (default a tenth of
	// the longest episode, at least 1).
	CollapseWindow int
	// StarveShare: an agent starves when its mean return is below this
	// share of the policy's mean per-agent return (default 0.25).
	StarveShare float64
}

func (c Config) withDefaults(steps int) Config {
	if c.Bins <= 0 {
		c.Bins = 10 // fine enough to see a collapse, short enough for a prompt
	}
	if c.CollapseWindow <= 0 {
		c.CollapseWindow = max(1, steps/10)
	}
	if c.StarveShare <= 0 {
		c.StarveShare = 0.25
	}
	return c
}

// Diagnose computes the diagnostics of a policy from its episodes:
// self-play episodes, matches, or both. Every episode must be of the same
// game, grid and number of agents; episodes may differ in length (one cut
// short by a failing policy counts with the steps it has).
//
// Beams, hits, tags and cleaning are reconstructed from actions and states
// (see Derive); a trajectory that does not follow the rules is an error.
func Diagnose(eps []Episode, cfg Config) (*Diagnostics, error) {
	if len(eps) == 0 {
		return nil, fmt.Errorf("diagnose: no episodes")
	}
	var first *ssd.Layout
	longest := 0
	for k, ep := range eps {
		tr := ep.Trajectory
		if tr == nil || tr.Layout == nil {
			return nil, fmt.Errorf("diagnose: episode %d has no trajectory", k)
		}
		l := tr.Layout
		if first == nil {
			first = l
		} else if !sameMap(l, first) {
			return nil, fmt.Errorf("diagnose: episode %d is %s %dx%d with %d agents, episode 0 %s %dx%d with %d (or another map of that size)",
				k, l.Game, l.Height, l.Width, l.NumAgents, first.Game, first.Height, first.Width, first.NumAgents)
		}
		longest = max(longest, len(tr.Steps))
	}
	cfg = cfg.withDefaults(longest)
	a := newAccumulator(first, cfg, longest)
	for k, ep := range eps {
		mine, err := mineSet(ep.Mine, first.NumAgents)
		if err != nil {
			return nil, fmt.Errorf("diagnose: episode %d: %w", k, err)
		}
		events, err := Derive(ep.Trajectory)
		if err != nil {
			return nil, fmt.Errorf("diagnose: episode %d (seed %d): %w", k, ep.Trajectory.Seed, err)
		}
		a.episode(ep, mine, events)
	}
	return a.finish(), nil
}

// mineSet turns a list of agent ids into flags; nil means every agent.
func mineSet(ids []int, n int) ([]bool, error) {
	mine := make([]bool, n)
	if ids == nil {
		for i := range mine {
			mine[i] = true
		}
		return mine, nil
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("the policy plays no agent")
	}
	for _, i := range ids {
		if i < 0 || i >= n {
			return nil, fmt.Errorf("agent %d of %d", i, n)
		}
		if mine[i] {
			return nil, fmt.Errorf("agent %d listed twice", i)
		}
		mine[i] = true
	}
	return mine, nil
}

// sameMap reports whether two layouts are the same game on the same map
// with the same agents and rules.
func sameMap(a, b *ssd.Layout) bool {
	return a.Game == b.Game && a.Height == b.Height && a.Width == b.Width && a.NumAgents == b.NumAgents &&
		a.Params == b.Params && slices.Equal(a.Walls, b.Walls) && slices.Equal(a.Apples, b.Apples) &&
		slices.Equal(a.River, b.River) && slices.Equal(a.Stream, b.Stream)
}
