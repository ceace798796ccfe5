package arena

import (
	"context"

	"policyevolve/envs"
	"policyevolve/envs/ssd"
)

// TrySeeds is how many of the Arena's evaluation seeds Try plays.
const TrySeeds = 2

// A Trial is what Try saw of a draft: why it could not be played, or its
// self-play on each seed it played.
type Trial struct {
	// Unplayable is set when the Arena's game does not parse (not for an
	// Env from episode.ResolveEnv); Refused when the sandbox refused the
	// draft (validation, compilation, smoke test). Either way no seed is
	// played.
	Unplayable, Refused error
	Seeds               []TrialSeed
}

// TrialSeed is a draft's self-play on one seed: its result, or why it
// failed.
type TrialSeed struct {
	Seed   uint64
	Result *envs.Result // nil when Err is set
	Err    error
}

// Try is the ReAct prompt style's tool (planner.Task.Try): it admits a
// draft as the sandbox would (validation, compilation, smoke test) and
// plays it for every agent on the first TrySeeds evaluation seeds.
// Nothing is stored: a draft is not a proposal. An error of the system (a
// cancelled context) is reported in the Trial like the policy's; the
// caller checks its context.
func (a *Arena) Try(ctx context.Context, src []byte) *Trial {
	a.defaults()
	game, err := ssd.ParseGame(a.Env.Config.Game)
	if err != nil {
		return &Trial{Unplayable: err}
	}
	prog, err := a.Sandbox.Check(ctx, src, game)
	if err != nil {
		return &Trial{Refused: err}
	}
	defer prog.Close()
	cfg := envs.Config{Map: a.Env.Map, Agents: a.Env.Config.Agents, MaxSteps: a.Env.Config.MaxSteps}
	t := &Trial{}
	for _, seed := range a.EvalSeeds[:min(TrySeeds, len(a.EvalSeeds))] {
		res, err := prog.SelfPlay(ctx, cfg, envs.Options{Seed: seed})
		a.episodes.Add(1)
		ts := TrialSeed{Seed: seed, Result: res, Err: err}
		if err != nil {
			ts.Result = nil
		}
		t.Seeds = append(t.Seeds, ts)
	}
	return t
}
