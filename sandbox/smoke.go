package sandbox

import (
	"context"
	"fmt"
	"time"

	"policyevolve/envs"
	"policyevolve/envs/ssd"
)

// SmokeSteps is the length of the smoke test, as in the paper.
const SmokeSteps = 50

// Smoke is the paper's 50-step test plus a determinism probe and a cost
// check: every agent of the game's default map plays the program for
// SmokeSteps steps from seed 0, twice, each time with a fresh instance.
// Both runs must finish and choose the same actions; a difference is an
// ErrNondeterministic PolicyError naming the first step and agent that
// differ. A policy whose CPU time per step, projected over an episode,
// exceeds the cost budget is an ErrCost PolicyError with advice a planner
// can act on.
func (p *Program) Smoke(ctx context.Context, game ssd.Game) error {
	_, err := p.SmokeTest(ctx, game)
	return err
}

// SmokeReport is what the smoke test measured.
type SmokeReport struct {
	Steps   int           // steps played, both runs together
	Agents  int           // agents per step
	CPU     time.Duration // CPU time the policy used on them
	PerStep time.Duration // CPU time per step, for all agents
	Budget  time.Duration // the cost budget per step for as many agents; 0: none
	// Compared are the backends whose actions the cross-check compared,
	// this Sandbox's first: one alone when it did not compare (see
	// CrossNote). Set by CheckReport only.
	Compared []Backend
	// CrossNote says why the other backend was not compared, or was
	// compared on part of the smoke test only; "" when it chose the same
	// actions at every step.
	CrossNote string
}

// SmokeTest is Smoke, and reports what it measured (also when the policy
// failed, as far as it got).
func (p *Program) SmokeTest(ctx context.Context, game ssd.Game) (*SmokeReport, error) {
	rep, _, err := p.smoke(ctx, game)
	return rep, err
}

// smokeConfig is the episode of the smoke test on game.
func smokeConfig(game ssd.Game) (envs.Config, error) {
	m, err := envs.BuiltinMap(game, envs.DefaultMap(game))
	if err != nil {
		return envs.Config{}, err
	}
	return envs.Config{Map: m, Agents: envs.DefaultAgents, MaxSteps: SmokeSteps}, nil
}

// smoke is SmokeTest, which also returns the first run's result.
func (p *Program) smoke(ctx context.Context, game ssd.Game) (*SmokeReport, *envs.Result, error) {
	cfg, err := smokeConfig(game)
	if err != nil {
		return nil, nil, err
	}
	var runs [2]*envs.Result
	rep := &SmokeReport{Agents: cfg.Agents, Budget: p.sb.costPerAgentStep(p.Backend) * time.Duration(cfg.Agents)}
	for k := range runs {
		// The episode is not stopped for its cost: the verdict below is
		// made on the whole smoke test.
		res, cpu, err := p.selfPlay(ctx, cfg, envs.Options{Seed: 0, Record: true}, false)
		if err != nil {
			return rep, nil, fmt.Errorf("smoke test: %w", err)
		}
		rep.CPU += cpu
		rep.Steps += res.Steps
		rep.PerStep = rep.CPU / time.Duration(rep.Steps)
		runs[k] = res
	}
	if err := p.costError(rep, nil); err != nil {
		return rep, nil, fmt.Errorf("smoke test: %w", err)
	}
	for t := range runs[0].Trajectory.Steps {
		a, b := runs[0].Trajectory.Steps[t].Actions, runs[1].Trajectory.Steps[t].Actions
		for i := range a {
			if a[i] != b[i] {
				return rep, nil, &PolicyError{Kind: ErrNondeterministic, Agent: i, Step: t, Program: p.ID,
					Detail: fmt.Sprintf("(step %d, agent %d: %d vs %d) — e.g. ranging over a map, whose iteration order is random", t, i, a[i], b[i])}
			}
		}
	}
	return rep, runs[0], nil
}

// costError returns the admission verdict on what the smoke test measured:
// nil when it fits the budget (and stopped is nil), else an ErrCost
// PolicyError with advice a planner can act on.
func (p *Program) costError(rep *SmokeReport, stopped error) error {
	if rep.Steps == 0 || rep.Budget == 0 || (stopped == nil && rep.PerStep <= rep.Budget) {
		return stopped
	}
	return &PolicyError{Kind: ErrCost, Agent: -1, Step: -1, Program: p.ID,
		Detail: p.sb.costAdvice(p.Backend, rep.PerStep, rep.Agents)}
}

// Check compiles src and runs the smoke test on game, then, when both
// backends are available, the cross-check (see SkipCrossCheck): the
// whole admission test a candidate policy must pass before it is
// evaluated.
func (s *Sandbox) Check(ctx context.Context, src []byte, game ssd.Game) (*Program, error) {
	p, _, err := s.CheckReport(ctx, src, game)
	return p, err
}

// CheckReport is Check, and reports what the smoke test measured and
// which backends it compared (as far as it got when the policy failed;
// nil when it did not compile).
func (s *Sandbox) CheckReport(ctx context.Context, src []byte, game ssd.Game) (*Program, *SmokeReport, error) {
	p, err := s.Compile(ctx, src)
	if err != nil {
		return nil, nil, err
	}
	rep, first, err := p.smoke(ctx, game)
	if err == nil {
		err = s.crossCheck(ctx, src, game, rep, first)
	}
	if err != nil {
		return nil, rep, err
	}
	return p, rep, nil
}
