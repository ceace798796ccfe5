package planner_test

import (
	"context"
	"testing"

	"policyevolve/evolve/internal/evolvetest"
	"policyevolve/evolve/planner"
)

// genericArrayAnswer holds a valid policy whose generic function takes an
// array of its type parameter: the host's size check once crashed on it
// (go/types asserts in Sizeof), and since a stored answer is admitted
// again on resume, a run whose model once wrote it crashed on every
// resume.
const genericArrayAnswer = "Keep the first of two.\n\n```go\npackage policy\n\nimport \"ssd\"\n\n" +
	"func first[T any](xs [2]T) T { return xs[0] }\n\n" +
	"func Policy(v *ssd.View, agent int) int {\n\treturn first([2]int{v.GreedyAction(agent), 0})\n}\n```\n"

// TestStoredGenericArrayAnswerResumes: the answer is admitted or refused
// with a message (never a crash), the run goes on to a policy, and
// resuming replays the stored answers to the same policy without a call.
func TestStoredGenericArrayAnswerResumes(t *testing.T) {
	a, p, loop, _ := evolvetest.LLMSetup(t, "run-g", genericArrayAnswer, evolvetest.ValidAnswer)
	loop.Planner = p
	ctx := context.Background()
	task := planner.Task{Env: a.Env, Run: "run-g", Iteration: 0, Iterations: 2}
	out, err := loop.Init(ctx, planner.InitRequest{Task: task})
	if err != nil {
		t.Fatal(err)
	}
	if out.Policy == nil {
		t.Fatalf("no policy after %d attempts: %v", len(out.Attempts), out.Problem())
	}
	for i, at := range out.Attempts {
		t.Logf("attempt %d: %v", i+1, at.Problem)
	}
	again, err := loop.Init(ctx, planner.InitRequest{Task: task})
	if err != nil || again.Policy == nil || again.Policy.ID != out.Policy.ID || again.Usage.LLMCalls != 0 {
		t.Fatalf("resumed: %+v %v; want the same policy at no call", again, err)
	}
}
