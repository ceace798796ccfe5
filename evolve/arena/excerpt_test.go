package arena

import (
	"context"
	"strings"
	"testing"

	"policyevolve/envs"
	"policyevolve/envs/ssd"
)

// TestRenderExcerpt: the sampled steps are evenly spaced from the first
// to the last, and each line carries the recorded actions, rewards,
// positions and the river's waste.
func TestRenderExcerpt(t *testing.T) {
	m, _ := envs.BuiltinMap(ssd.Cleanup, "small")
	e, err := envs.New(envs.Config{Map: m, Agents: 3, MaxSteps: 50})
	if err != nil {
		t.Fatal(err)
	}
	f, _ := envs.Builtin("bfs")
	res, err := envs.Run(context.Background(), e, []envs.Seat{{Actor: &envs.PolicyActor{New: f}, Agents: []int{0, 1, 2}}}, envs.Options{Seed: 4, Record: true})
	if err != nil {
		t.Fatal(err)
	}
	text := RenderExcerpt(res.Trajectory, 5)
	lines := strings.Split(strings.TrimSpace(text), "\n")
	if len(lines) != 6 || !strings.HasPrefix(lines[0], "seed 4, 3 agents, 50 steps recorded") {
		t.Fatalf("excerpt:\n%s", text)
	}
	for i, want := range []string{"step 0:", "step 12:", "step 24:", "step 36:", "step 49:"} {
		if !strings.HasPrefix(lines[i+1], want) || !strings.Contains(lines[i+1], ", waste ") {
			t.Errorf("line %d: %q, want %q…", i+1, lines[i+1], want)
		}
	}
	st := res.Trajectory.Steps[49]
	first := " 0:" + ssd.ActionName(st.Actions[0])
	if !strings.Contains(lines[5], first) {
		t.Errorf("step 49 %q lacks agent 0's action %q", lines[5], first)
	}
	if RenderExcerpt(&envs.Trajectory{Layout: res.Trajectory.Layout}, 5) != "" {
		t.Error("an empty trajectory has an excerpt")
	}
}
