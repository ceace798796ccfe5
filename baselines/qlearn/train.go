package qlearn

import (
	"context"
	"fmt"

	"policyevolve/envs"
	"policyevolve/envs/ssd"
)

// Train runs the reference's training loop and returns the learned table.
// Every episode e resets the game with seed Seed+e and plays all its
// steps; at each step every active agent (not tagged out before the step)
// picks an ε-greedy action from the shared table, tagged-out agents stand,
// the game steps, each agent's reward is shaped, every agent's next state
// is read, and the active agents' table entries are updated in agent
// order. Float operations are written one rounding at a time (explicit
// conversions forbid fused multiply-adds), so results match numpy's.
//
// Training stops with ctx's error between episodes.
func Train(ctx context.Context, cfg Config) (*Table, error) {
	c, err := cfg.withDefaults()
	if err != nil {
		return nil, fmt.Errorf("qlearn: %w", err)
	}
	env, err := envs.New(envs.Config{Map: c.Map, Agents: c.Agents, MaxSteps: c.MaxSteps})
	if err != nil {
		return nil, fmt.Errorf("qlearn: %w", err)
	}
	game := c.Map.Game
	p := *c.Params
	l := &learner{t: NewTable(game), p: p, rng: envs.NewRNG(c.Seed)}
	l.t.Info = Info{Map: c.MapName, Agents: c.Agents, Episodes: c.Episodes, Seed: c.Seed, MaxSteps: c.MaxSteps, Params: p}
	f := newFeaturizer(env.Layout())

	n := c.Agents
	states, next := make([]int32, n), make([]int32, n)
	actions, active, shaped := make([]int, n), make([]bool, n), make([]float64, n)
	var st ssd.State
	for ep := 0; ep < c.Episodes; ep++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		env.Reset(c.Seed + uint64(ep))
		env.Snapshot(&st)
		for i := range states {
			states[i] = f.key(&st, i)
		}
		eps := p.epsilon(ep)
		var team float64
		for !env.Done() {
			for i := range actions {
				active[i] = env.Timeout(i) == 0
				actions[i] = ssd.Stand
				if active[i] {
					actions[i] = l.choose(states[i], eps)
				}
			}
			rewards, err := env.Step(actions)
			if err != nil {
				return nil, fmt.Errorf("qlearn: episode %d: %w", ep, err)
			}
			done := env.Done()
			l.shape(shaped, rewards, actions, states)
			env.Snapshot(&st)
			for i := range next {
				next[i] = f.key(&st, i)
			}
			for i := range active {
				if active[i] {
					l.update(states[i], actions[i], shaped[i], next[i], done)
				}
			}
			states, next = next, states
			var sum float64
			for _, r := range rewards {
				sum += r
			}
			team += sum
		}
		if c.OnEpisode != nil {
			c.OnEpisode(EpisodeStats{Episode: ep, Episodes: c.Episodes, TeamReward: team, Epsilon: eps, States: l.t.Len()})
		}
	}
	return l.t, nil
}

// learner is the reference's TabularQLearner.
type learner struct {
	t   *Table
	p   Params
	rng *envs.RNG // the learner's own generator, numpy.random.default_rng(seed)
}

// epsilon is the exploration rate of episode ep: linear from EpsStart to
// EpsEnd over EpsDecay episodes, then EpsEnd.
func (p Params) epsilon(ep int) float64 {
	frac := min(float64(ep)/float64(max(p.EpsDecay, 1)), 1.0)
	return p.EpsStart + float64((p.EpsEnd-p.EpsStart)*frac)
}

// choose is select_action: one uniform draw; below eps, a uniformly random
// action (a second draw), else the greedy one (which gives the state a row).
func (l *learner) choose(key int32, eps float64) int {
	if l.rng.Random() < eps {
		return int(l.rng.Integers(int64(l.t.actions)))
	}
	return argmax(l.t.values(key))
}

// update is the one-step Q-learning update. As in the reference, the next
// state's row is read (and created) before the current state's.
func (l *learner) update(key int32, action int, reward float64, next int32, done bool) {
	target := reward
	if !done {
		target += float64(l.p.Gamma * maxOf(l.t.values(next)))
	}
	row := l.t.values(key)
	row[action] += float64(l.p.Alpha * (target - row[action]))
}

// canCleanFeature is the index of Cleanup's "clean beam reaches waste"
// feature, which the shaping reads from the state before the step.
const canCleanFeature = 5

// shape writes the shaped rewards: w_ind·r_i + w_team·mean(r), minus the
// beam penalty for firing; in Cleanup plus the clean bonus for cleaning
// from a state where the clean beam reached waste.
func (l *learner) shape(out, rewards []float64, actions []int, states []int32) {
	var sum float64
	for _, r := range rewards {
		sum += r
	}
	mean := sum / float64(len(rewards))
	cleanup := l.t.Game == ssd.Cleanup
	for i, r := range rewards {
		s := float64(l.p.WInd*r) + float64(l.p.WTeam*mean)
		if cleanup && actions[i] == ssd.Clean && l.t.sp.feature(states[i], canCleanFeature) != 0 {
			s += l.p.CleanBonus
		}
		if actions[i] == ssd.Beam {
			s -= l.p.BeamPenalty
		}
		out[i] = s
	}
}
