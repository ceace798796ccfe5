package evolve

import (
	"context"
	"fmt"
	"strings"

	"policyevolve/envs"
	"policyevolve/envs/ssd"
)

// TrySeeds is how many of the Arena's evaluation seeds Try plays.
const TrySeeds = 2

// Try is the ReAct prompt style's tool (Task.Try): it admits a draft as
// the sandbox would (validation, compilation, smoke test) and plays it for
// every agent on the first TrySeeds evaluation seeds, and describes the
// outcome for the model — the mean reward per agent of each seed and, at
// the dense levels, the four social metrics; or why the draft could not
// run. Nothing is stored: a draft is not a proposal. An error of the
// system (a cancelled context) is described too; the caller checks its
// context.
func (a *Arena) Try(ctx context.Context, src []byte, fb Feedback) string {
	a.defaults()
	game, err := ssd.ParseGame(a.Env.Config.Game)
	if err != nil {
		return "it could not be played: " + err.Error()
	}
	prog, err := a.Sandbox.Check(ctx, src, game)
	if err != nil {
		return "it could not run: " + describeBriefly(err)
	}
	defer prog.Close()
	cfg := envs.Config{Map: a.Env.Map, Agents: a.Env.Config.Agents, MaxSteps: a.Env.Config.MaxSteps}
	var b strings.Builder
	for _, seed := range a.EvalSeeds[:min(TrySeeds, len(a.EvalSeeds))] {
		res, err := prog.SelfPlay(ctx, cfg, envs.Options{Seed: seed})
		a.episodes.Add(1)
		if err != nil {
			fmt.Fprintf(&b, "- seed %d: it failed: %s\n", seed, describeBriefly(err))
			continue
		}
		var sum float64
		for _, r := range res.Returns {
			sum += r
		}
		fmt.Fprintf(&b, "- seed %d: reward per agent %.1f", seed, sum/float64(len(res.Returns)))
		if fb.dense() {
			m := res.Metrics
			fmt.Fprintf(&b, " | efficiency %.3f, equality %.3f, sustainability %.1f, peace %.1f",
				m.Efficiency, m.Equality, m.Sustainability, m.Peace)
		}
		b.WriteByte('\n')
	}
	return strings.TrimRight(b.String(), "\n")
}

// describeBriefly is a problem's summary and the start of its detail.
func describeBriefly(err error) string {
	pr := DescribeProblem(err)
	s := pr.Summary
	if d := strings.TrimSpace(pr.Detail); d != "" {
		if len(d) > 600 {
			d = d[:600] + "…"
		}
		s += "\n" + d
	}
	return s
}
