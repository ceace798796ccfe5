package arena

import (
	"context"
	"fmt"
	"strings"

	"policyevolve/envs"
	"policyevolve/envs/ssd"
)

// ExcerptSteps is how many steps an excerpt samples.
const ExcerptSteps = 12

// Excerpt plays a policy's self-play episode on the arena's first
// evaluation seed and renders a compact excerpt of its raw trajectory:
// the raw feedback level's view of the episode, numbers as recorded with
// no analysis ("" when it failed before its first step).
func (a *Arena) Excerpt(ctx context.Context, id string) (string, error) {
	a.defaults()
	if len(a.EvalSeeds) == 0 {
		return "", nil
	}
	tr, _, err := a.record(ctx, id, a.EvalSeeds[0])
	if err != nil || tr == nil {
		return "", err
	}
	return RenderExcerpt(tr, ExcerptSteps), nil
}

// RenderExcerpt writes n steps of tr, evenly spaced from the first to the
// last: per step each agent's action, reward and position (or "out" when
// tagged out), the apples alive and, in Cleanup, the polluted river cells.
func RenderExcerpt(tr *envs.Trajectory, n int) string {
	steps := len(tr.Steps)
	if steps == 0 || n < 1 {
		return ""
	}
	var b strings.Builder
	lay := tr.Layout
	fmt.Fprintf(&b, "seed %d, %d agents, %d steps recorded; per agent: action reward position\n", tr.Seed, lay.NumAgents, steps)
	picked := map[int]bool{}
	for k := range n {
		t := 0
		if n > 1 {
			t = k * (steps - 1) / (n - 1)
		}
		if picked[t] {
			continue
		}
		picked[t] = true
		st := tr.Steps[t]
		fmt.Fprintf(&b, "step %d:", t)
		total := 0.0
		for i, act := range st.Actions {
			r := st.Rewards[i]
			total += r
			where := fmt.Sprintf("(%d,%d)", st.State.Pos[i].R, st.State.Pos[i].C)
			if st.State.Timeout[i] > 0 {
				where = "out"
			}
			fmt.Fprintf(&b, " %d:%s %g %s", i, ssd.ActionName(act), r, where)
		}
		alive := 0
		for _, ok := range st.State.AppleAlive {
			if ok {
				alive++
			}
		}
		fmt.Fprintf(&b, " | reward %g, apples %d/%d", total, alive, len(st.State.AppleAlive))
		if len(st.State.Waste) > 0 {
			w := 0
			for _, ok := range st.State.Waste {
				if ok {
					w++
				}
			}
			fmt.Fprintf(&b, ", waste %d/%d", w, len(st.State.Waste))
		}
		b.WriteByte('\n')
	}
	return b.String()
}
