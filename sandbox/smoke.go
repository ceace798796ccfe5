package sandbox

import (
	"context"
	"errors"
	"fmt"
	"time"

	"policyevolve/envs"
	"policyevolve/envs/ssd"
)

// SmokeSteps is the length of the smoke test, as in the paper.
const SmokeSteps = 50

// Smoke is the paper's 50-step test plus a determinism probe and a cost
// check: every agent of the game's default map plays the program for
// SmokeSteps steps from a seed the policy cannot predict (see
// admissionSeed), twice, each time from the policy's fresh state.
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
	// compared on part of the episode only; "" when it chose the same
	// actions at every step.
	CrossNote string
	// CrossSteps is how many steps of the episode the cross-check
	// compared the backends' actions on (fewer than the episode's when
	// one stopped first, for its cost); 0 when it compared none.
	CrossSteps int
	// Episode is the length of the whole episode that admission played
	// twice (the determinism check) and on the other backend (the
	// cross-check), steps; 0 when it played the smoke test only. Set by
	// CheckReport only.
	Episode int
	// Replayed is how many of its steps the determinism check compared
	// and found the same (fewer when the policy stopped first); 0 when
	// it did not pass.
	Replayed int
	// Seed is the seed of the smoke test; EpisodeSeed that of the whole
	// episode (see admissionSeed).
	Seed, EpisodeSeed uint64
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
	rep := &SmokeReport{Agents: cfg.Agents, Budget: p.sb.costPerAgentStep(p.Backend) * time.Duration(cfg.Agents),
		Seed: p.sb.admissionSeed(p.ID, "smoke")}
	for k := range runs {
		// The episode is not stopped for its cost: the verdict below is
		// made on the whole smoke test.
		res, cpu, err := p.selfPlay(ctx, cfg, envs.Options{Seed: rep.Seed, Record: true}, 0)
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
	cfg, _ := smokeConfig(game)
	if err == nil && s.cfg.AdmissionSteps > 0 {
		cfg = s.admissionEnv(cfg)
		first, err = p.wholeEpisode(ctx, cfg, rep)
	}
	if err == nil {
		err = s.crossCheck(ctx, p, cfg, rep, first)
	}
	if err != nil {
		p.Close()
		return nil, rep, err
	}
	return p, rep, nil
}

// wholeEpisode is the determinism check over a whole episode: it plays
// cfg from a seed the policy cannot predict (see admissionSeed) twice —
// first in a fresh worker, then in the same worker after episodesBetween
// others of other seeds — and refuses a policy whose actions differ at
// any step (ErrNondeterministic): a map ranged over late in an episode,
// which the smoke test's 50 steps do not reach, is caught here, and so is
// state carried from one episode into the next. A run stops at
// AdmissionCPU (or the cost budget), and then the steps both played are
// compared. A policy that fails in this episode (a panic at step 150) is
// not refused here: its evaluation records the failure, as for any
// episode. It returns the first run's result, for the cross-check.
func (p *Program) wholeEpisode(ctx context.Context, cfg envs.Config, rep *SmokeReport) (*envs.Result, error) {
	rep.Episode = cfg.MaxSteps
	seed := p.sb.admissionSeed(p.ID, "episode")
	rep.EpisodeSeed = seed
	run := func(cfg envs.Config, seed uint64, limit time.Duration) (*envs.Result, error) {
		res, _, err := p.selfPlay(ctx, cfg, envs.Options{Seed: seed, Record: true}, limit)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var pe *PolicyError
		if err != nil && !errors.As(err, &pe) || res == nil || res.Trajectory == nil {
			return nil, fmt.Errorf("whole episode (%d steps, seed %d): %w", cfg.MaxSteps, seed, err)
		}
		return res, nil
	}
	p.Close() // the first run in a fresh worker
	var runs [2]*envs.Result
	var err error
	if runs[0], err = run(cfg, seed, p.sb.cfg.AdmissionCPU); err != nil {
		return nil, err
	}
	short := cfg
	short.MaxSteps = betweenSteps
	for k := range episodesBetween {
		if _, err := run(short, p.sb.admissionSeed(p.ID, fmt.Sprintf("between %d", k)), p.sb.cfg.AdmissionCPU); err != nil {
			return nil, err
		}
	}
	if runs[1], err = run(cfg, seed, p.sb.cfg.AdmissionCPU); err != nil {
		return nil, err
	}
	a, b := runs[0].Trajectory.Steps, runs[1].Trajectory.Steps
	if t, i, differ := firstDivergence(runs[0].Trajectory, runs[1].Trajectory); differ {
		return nil, &PolicyError{Kind: ErrNondeterministic, Agent: i, Step: t, Program: p.ID,
			Detail: fmt.Sprintf("(step %d of a whole %d-step episode, agent %d: %d vs %d, the same seed in a fresh worker and after %d other episodes) — e.g. ranging over a map, whose iteration order is random, or state kept from one episode into the next",
				t, cfg.MaxSteps, i, a[t].Actions[i], b[t].Actions[i], episodesBetween+1)}
	}
	rep.Replayed = min(len(a), len(b))
	return runs[0], nil
}

// episodesBetween is how many short episodes (betweenSteps each) of
// other seeds the whole-episode check plays between its two runs, in the
// worker of the first: with the first run, the second is the fifth
// episode of its worker (a policy that carried state across episodes
// once played its first four honestly).
const (
	episodesBetween = 3
	betweenSteps    = 10
)
