package sandbox

import (
	"context"
	"fmt"

	"policyevolve/envs"
	"policyevolve/envs/ssd"
)

// SmokeSteps is the length of the smoke test, as in the paper.
const SmokeSteps = 50

// Smoke is the paper's 50-step test plus a determinism probe: every agent
// of the game's default map plays the program for SmokeSteps steps from
// seed 0, twice, each time with a fresh instance. Both runs must finish
// and choose the same actions; a difference is an ErrNondeterministic
// PolicyError naming the first step and agent that differ.
func (p *Program) Smoke(ctx context.Context, game ssd.Game) error {
	m, err := envs.BuiltinMap(game, envs.DefaultMap(game))
	if err != nil {
		return err
	}
	env, err := envs.New(envs.Config{Map: m, Agents: envs.DefaultAgents, MaxSteps: SmokeSteps})
	if err != nil {
		return err
	}
	all := make([]int, envs.DefaultAgents)
	for i := range all {
		all[i] = i
	}
	var runs [2]*envs.Result
	for k := range runs {
		res, err := envs.Run(ctx, env, []envs.Seat{{Actor: p.Actor(), Agents: all}},
			envs.Options{Seed: 0, Record: true, Verify: true})
		if err != nil {
			return fmt.Errorf("smoke test: %w", err)
		}
		runs[k] = res
	}
	for t := range runs[0].Trajectory.Steps {
		a, b := runs[0].Trajectory.Steps[t].Actions, runs[1].Trajectory.Steps[t].Actions
		for i := range a {
			if a[i] != b[i] {
				return &PolicyError{Kind: ErrNondeterministic, Agent: i, Step: t, Program: p.ID,
					Detail: fmt.Sprintf("(step %d, agent %d: %d vs %d) — e.g. ranging over a map, whose iteration order is random", t, i, a[i], b[i])}
			}
		}
	}
	return nil
}

// Check compiles src and runs the smoke test on game: the whole admission
// test a candidate policy must pass before it is evaluated.
func (s *Sandbox) Check(ctx context.Context, src []byte, game ssd.Game) (*Program, error) {
	p, err := s.Compile(ctx, src)
	if err != nil {
		return nil, err
	}
	if err := p.Smoke(ctx, game); err != nil {
		return nil, err
	}
	return p, nil
}
