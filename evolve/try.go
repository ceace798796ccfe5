package evolve

import (
	"context"
	"fmt"
	"strings"

	"policyevolve/evolve/arena"
	"policyevolve/evolve/planner"
)

// TryFunc is the ReAct prompt style's tool (planner.Task.Try) on arena a:
// it plays a draft with a.Try and describes what it saw at feedback level
// fb. Nothing is stored.
func TryFunc(a *arena.Arena, fb planner.Feedback) func(ctx context.Context, src []byte) string {
	return func(ctx context.Context, src []byte) string { return describeTrial(a.Try(ctx, src), fb) }
}

// describeTrial is the ReAct tool's observation of a draft, as the model
// reads it (planner.Task.Try): the mean reward per agent of each seed
// played and, at the dense feedback levels, the four social metrics; or
// why the draft could not run.
func describeTrial(t *arena.Trial, fb planner.Feedback) string {
	switch {
	case t.Unplayable != nil:
		return "it could not be played: " + t.Unplayable.Error()
	case t.Refused != nil:
		return "it could not run: " + describeBriefly(t.Refused)
	}
	var b strings.Builder
	for _, s := range t.Seeds {
		if s.Err != nil {
			fmt.Fprintf(&b, "- seed %d: it failed: %s\n", s.Seed, describeBriefly(s.Err))
			continue
		}
		res := s.Result
		var sum float64
		for _, r := range res.Returns {
			sum += r
		}
		fmt.Fprintf(&b, "- seed %d: reward per agent %.1f", s.Seed, sum/float64(len(res.Returns)))
		if fb.ShowsMetrics() {
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
	pr := planner.DescribeProblem(err)
	s := pr.Summary
	if d := strings.TrimSpace(pr.Detail); d != "" {
		if len(d) > 600 {
			d = d[:600] + "…"
		}
		s += "\n" + d
	}
	return s
}
