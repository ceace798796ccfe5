package scenario

import (
	"context"
	"fmt"

	"policyevolve/envs"
	"policyevolve/evolve/arena"
	"policyevolve/evolve/episode"
)

// Resolve turns a background reference into an actor. Run calls it once
// per distinct reference, in the suite's order, from its own goroutine.
type Resolve func(ctx context.Context, ref string) (envs.Actor, error)

// Result is one scenario's outcome, means over the seeds.
type Result struct {
	Scenario Scenario `json:"scenario"`
	// Focal and Background are each side's mean per-agent return and its
	// number of agents.
	Focal      arena.SideReturn `json:"focal"`
	Background arena.SideReturn `json:"background"`
	// Share is Focal's return over the focal policy's self-play per-agent
	// return on the same seeds; absent (nil) when that return is not
	// positive, where a ratio means nothing.
	Share *float64 `json:"share,omitempty"`
	// Efficiency is the group's welfare: the return of all agents per step
	// of the configured episode length (the paper's efficiency U).
	Efficiency float64 `json:"efficiency"`
	// Failed names the seeds whose episode stopped early because a policy
	// failed; the returns cover the steps played.
	Failed []string `json:"failed,omitempty"`
}

// Exploited reports whether the background agents out-earned the focal
// ones, per agent (the invasion test's verdict, without a margin).
func (r Result) Exploited() bool { return r.Background.Return > r.Focal.Return }

// Report is a suite played by one focal policy.
type Report struct {
	Suite Suite    `json:"suite"`
	Seeds []uint64 `json:"seeds"`
	// SelfPlay is the focal policy's per-agent return in self-play and
	// SelfPlayEfficiency its group's efficiency, on the same seeds.
	SelfPlay           float64 `json:"self_play"`
	SelfPlayEfficiency float64 `json:"self_play_efficiency"`
	// SelfPlayFailed names the self-play seeds a policy failure stopped.
	SelfPlayFailed []string `json:"self_play_failed,omitempty"`
	Results        []Result `json:"results"`
	// Worst is the index in Results of the scenario with the smallest
	// share (ties: the first), −1 when no share is defined; WorstShare is
	// that share.
	Worst      int      `json:"worst"`
	WorstShare *float64 `json:"worst_share,omitempty"`
}

// Run plays the suite for the focal actor on each seed: the focal policy's
// self-play first (the reference of every share), then each scenario as an
// invasion episode of arena.Invade — in Resident mode the background
// invades (agents 0…K−1), in Visitor mode the focal policy does. A
// scenario that does not fit env's agents, or a background that does not
// resolve, is an error before anything is played; a policy that fails
// mid-episode is recorded in its Result's Failed, as Invade records it.
func Run(ctx context.Context, env episode.Env, focal envs.Actor, resolve Resolve, s Suite, seeds []uint64) (*Report, error) {
	n := env.Config.Agents
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if err := s.Fits(n); err != nil {
		return nil, err
	}
	if len(seeds) == 0 {
		return nil, fmt.Errorf("scenarios: no seed")
	}
	actors := map[string]envs.Actor{}
	for _, sc := range s.Scenarios {
		if _, ok := actors[sc.Background]; ok {
			continue
		}
		a, err := resolve(ctx, sc.Background)
		if err != nil {
			return nil, fmt.Errorf("scenario %s: background %s: %w", sc.Label(), sc.Background, err)
		}
		actors[sc.Background] = a
	}
	steps := float64(env.Config.MaxSteps)
	self, err := arena.Invade(ctx, env, focal, focal, 0, seeds)
	if err != nil {
		return nil, fmt.Errorf("self-play: %w", err)
	}
	rep := &Report{Suite: s, Seeds: seeds, SelfPlay: self.B.Return,
		SelfPlayEfficiency: self.B.Return * float64(n) / steps, SelfPlayFailed: self.Failed, Worst: -1}
	for _, sc := range s.Scenarios {
		bg := actors[sc.Background]
		var inv *arena.Invasion
		r := Result{Scenario: sc}
		if sc.Mode == Visitor {
			if inv, err = arena.Invade(ctx, env, focal, bg, sc.K, seeds); err != nil {
				return nil, fmt.Errorf("scenario %s: %w", sc.Label(), err)
			}
			r.Focal, r.Background = inv.A, inv.B
		} else {
			if inv, err = arena.Invade(ctx, env, bg, focal, sc.K, seeds); err != nil {
				return nil, fmt.Errorf("scenario %s: %w", sc.Label(), err)
			}
			r.Focal, r.Background = inv.B, inv.A
		}
		r.Failed = inv.Failed
		r.Efficiency = (r.Focal.Return*float64(r.Focal.Agents) + r.Background.Return*float64(r.Background.Agents)) / steps
		if rep.SelfPlay > 0 {
			sh := r.Focal.Return / rep.SelfPlay
			r.Share = &sh
			if rep.WorstShare == nil || sh < *rep.WorstShare {
				rep.Worst, rep.WorstShare = len(rep.Results), &sh
			}
		}
		rep.Results = append(rep.Results, r)
	}
	return rep, nil
}
