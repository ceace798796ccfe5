package evolve

import (
	"context"
	"strings"
	"testing"

	"policyevolve/evolve/internal/evolvetest"
	"policyevolve/evolve/planner"
	"policyevolve/evolve/planner/prompts"
	"policyevolve/evolve/search"
)

// reactDraft asks to play a draft that stands still.
const reactDraft = "Thought: does standing still score anything?\nAction: play\n```go\npackage policy\n\nimport \"ssd\"\n\nfunc Policy(v *ssd.View, agent int) int {\n\treturn ssd.Stand\n}\n```\n"

// reactBroken asks to play a draft that does not compile.
const reactBroken = "Thought: try a constant.\nAction: play\n```go\npackage policy\n\nimport \"ssd\"\n\nfunc Policy(v *ssd.View, agent int) int {\n\treturn ssd.Nowhere\n}\n```\n"

// TestReactTurns: a ReAct proposal tests drafts with the task's tool —
// each observation (the scores, or why the draft could not run) reaches
// the next turn's prompt — then answers; every turn is an LLM request and
// a planner call. At the last allowed turn, and when the run's budget
// leaves no call to spare, the prompt says no test is left and an answer
// that asks to play is taken as the answer.
func TestReactTurns(t *testing.T) {
	a, p, loop, _ := evolvetest.LLMSetup(t, "run-r", reactBroken, reactDraft, "Final: collect.\n"+evolvetest.ValidAnswer, reactDraft)
	p.Style = prompts.StyleReact
	loop.Planner = p
	ctx := context.Background()
	task := planner.Task{Env: a.Env, Run: "run-r", Iterations: 3, Feedback: planner.Dense,
		Try: func(ctx context.Context, src []byte) string { return describeTrial(a.Try(ctx, src), planner.Dense) }}
	out, err := loop.Init(ctx, planner.InitRequest{Task: task})
	if err != nil {
		t.Fatal(err)
	}
	if out.Policy == nil || len(out.Attempts) != 1 || out.Calls() != 3 || out.Usage.LLMCalls != 3 {
		t.Fatalf("outcome: policy %v, %d attempts, %d calls, usage %+v; want a policy from 1 attempt of 3 calls",
			out.Policy != nil, len(out.Attempts), out.Calls(), out.Usage)
	}
	if u := search.OutcomeUsage(out); u.Proposals != 3 || u.LLMCalls != 3 {
		t.Errorf("recorded usage %+v, want 3 planner calls", u)
	}
	cs := evolvetest.Calls(t, a.Store, "run-r")
	if len(cs) != 3 {
		t.Fatalf("%d calls recorded, want 3", len(cs))
	}
	first, second, third := cs[0].Prompt, cs[1].Prompt, cs[2].Prompt
	if !strings.Contains(cs[0].System, "Gathering") || !strings.Contains(first, "Action: play") || !strings.Contains(first, "2 tests left") {
		t.Errorf("first prompt does not offer the tool:\n%s", first[max(0, len(first)-600):])
	}
	if !strings.Contains(second, "## Observation 1\n\nit could not run") || !strings.Contains(second, "Nowhere") || !strings.Contains(second, "1 test left") {
		t.Errorf("second prompt lacks the compile error as observation:\n%s", second[max(0, len(second)-800):])
	}
	if !strings.Contains(third, "## Observation 2\n\n- seed 0: reward per agent 0.0 | efficiency 0.000") ||
		!strings.Contains(third, "- seed 1: reward per agent") || !strings.Contains(third, "No tests are left") {
		t.Errorf("third prompt lacks the draft's scores:\n%s", third[max(0, len(third)-800):])
	}
	if !strings.HasPrefix(second, first[:strings.LastIndex(first, "## Turn 1\n")]) ||
		!strings.HasPrefix(third, second[:strings.LastIndex(second, "## Turn 2\n")]) {
		t.Error("the turns do not extend one transcript")
	}

	// With one planner call left under the run's budget, no test is
	// offered; an answer asking to play is the answer.
	a2, p2, loop2, _ := evolvetest.LLMSetup(t, "run-s", reactDraft)
	p2.Style = prompts.StyleReact
	loop2.Planner = p2
	task2 := planner.Task{Env: a2.Env, Run: "run-s", Feedback: planner.Sparse, CallsLeft: 1,
		Try: func(ctx context.Context, src []byte) string { t.Error("the tool was used"); return "" }}
	out, err = loop2.Init(ctx, planner.InitRequest{Task: task2})
	if err != nil || out.Policy == nil || out.Calls() != 1 {
		t.Fatalf("one call left: %+v %v", out, err)
	}
	if cs := evolvetest.Calls(t, a2.Store, "run-s"); len(cs) != 1 || !strings.Contains(cs[0].Prompt, "No tests are left") {
		t.Errorf("one call left: the prompt offers tests")
	}
}
