package planner_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"policyevolve/evolve/internal/evolvetest"
	"policyevolve/evolve/planner"
	"policyevolve/evolve/planner/prompts"
	"policyevolve/llm"
)

func TestInAnswer(t *testing.T) {
	fenced := "I reason first.\nThen more.\n```go\nfunc Policy(v *ssd.View, agent int) int {\n\treturn ssd.Nowhere\n}\n```\n"
	src, _, err := planner.Extract(fenced)
	if err != nil {
		t.Fatal(err)
	}
	firstLine, _, _ := strings.Cut(string(src), "\n")
	shift := strings.Index(firstLine, "func") // what Extract put in front
	unfenced := "package policy\nimport \"ssd\"\nfunc Policy(v *ssd.View, agent int) int { return x }\n"
	for _, tc := range []struct {
		name, words, answer string
		src                 []byte
		want                string
	}{
		{"a line of the block", "policy.go:2:9: undefined: ssd.Nowhere", fenced, src, "line 5:9: undefined: ssd.Nowhere"},
		// Extract put "package policy; import "ssd"; " in front of the
		// first line: its columns are the model's again.
		{"the first line", fmt.Sprintf("policy.go:1:%d: bad", shift+6), fenced, src, "line 4:6: bad"},
		{"no column", "panic at policy.go:3 (agent 2)", fenced, src, "panic at line 6 (agent 2)"},
		{"several", "policy.go:2:9: a\npolicy.go:3:1: b", fenced, src, "line 5:9: a\nline 6:1: b"},
		{"unfenced", "policy.go:3:50: undefined: x", unfenced, []byte(unfenced), "line 3:50: undefined: x"},
		{"no positions", "the smoke test failed", fenced, src, "the smoke test failed"},
		{"no policy in the answer", "policy.go:1:1: x", "no code", nil, "policy.go:1:1: x"},
	} {
		if got := planner.InAnswer(tc.words, tc.answer, tc.src); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestFixAfterAnEmptyAnswer: an empty answer cannot be the model's turn;
// the reply is appended to the first prompt instead.
func TestFixAfterAnEmptyAnswer(t *testing.T) {
	a, p, loop, _ := evolvetest.LLMSetup(t, "", "   ", evolvetest.ValidAnswer)
	loop.Planner = p
	out, err := loop.Init(context.Background(), planner.InitRequest{Task: planner.Task{Env: a.Env}})
	if err != nil || out.Policy == nil {
		t.Fatalf("%+v %v", out, err)
	}
	cs := evolvetest.Calls(t, a.Store, "")
	if len(cs) != 2 || len(cs[1].Turns) != 0 || !strings.HasPrefix(cs[1].Prompt, cs[0].Prompt) ||
		!strings.Contains(cs[1].Prompt[len(cs[0].Prompt):], "ERROR from attempt 1 of 3") {
		t.Fatalf("%d calls; the fix request after an empty answer: %d turns, prompt %q", len(cs), len(cs[1].Turns), cs[1].Prompt)
	}
}

// TestLegacyLedgerReplays: a run recorded before prompts were per game and
// fix requests conversations (a Gathering system message listing the
// Cleanup API, the fix appended to the first prompt) resumes from its
// ledger: both of its answers are found again, no call is made.
func TestLegacyLedgerReplays(t *testing.T) {
	a := evolvetest.LLMArena(t)
	ps, err := prompts.Load("")
	if err != nil {
		t.Fatal(err)
	}
	g, err := prompts.NewGame(a.Env.Map, a.Env.Config.Agents, a.Env.Config.MaxSteps)
	if err != nil {
		t.Fatal(err)
	}
	old, err := g.LegacyGame()
	if err != nil {
		t.Fatal(err)
	}
	// What the code of that time sent, recorded through a client of that
	// time's requests (single turn).
	sys, _ := ps.System(old)
	first, _ := ps.Init(prompts.InitData{Game: old, Iteration: 0, Iterations: 3})
	// The problem the bad answer's policy has, in the sandbox's words.
	sa, sp, sl, _ := evolvetest.LLMSetup(t, "", evolvetest.BadAnswer)
	sl.Planner, sl.MaxAttempts = sp, 1
	scratch, err := sl.Init(context.Background(), planner.InitRequest{Task: planner.Task{Env: sa.Env}})
	if err != nil {
		t.Fatal(err)
	}
	pr := planner.DescribeProblem(scratch.Problem())
	fix, _ := ps.Fix(prompts.FixData{Game: old, Kind: pr.Kind, Summary: pr.Summary, Error: pr.Detail, Attempt: 1, MaxAttempts: planner.MaxAttempts})
	path := filepath.Join(t.TempDir(), "then.txt")
	os.WriteFile(path, []byte(llm.FormatReplay([]string{evolvetest.BadAnswer, evolvetest.ValidAnswer})), 0o644)
	then, err := llm.New(llm.Config{Spec: "replay:" + path, Recorder: &planner.LLMRecorder{Store: a.Store, Run: "run-old"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []llm.Request{{System: sys, Prompt: first, Purpose: "init"}, {System: sys, Prompt: first + fix, Purpose: "fix"}} {
		if _, err := then.Generate(context.Background(), r); err != nil {
			t.Fatal(err)
		}
	}
	if !strings.Contains(sys, "CleanBeamCount") {
		t.Fatal("the legacy Gathering system message should list the Cleanup API")
	}
	// Today's planner with the same model (a replay file is named by its
	// path): were the answers not found in the ledger, it would call the
	// file again.
	_, p, loop, _ := evolvetest.LLMSetup(t, "unused", "no policy here")
	p.Client, _ = llm.New(llm.Config{Spec: "replay:" + path, Recorder: &planner.LLMRecorder{Store: a.Store, Run: "run-old"}})
	loop.Planner, loop.Sandbox, loop.Store = p, a.Sandbox, a.Store
	out, err := loop.Init(context.Background(), planner.InitRequest{Task: planner.Task{Env: a.Env, Run: "run-old", Iterations: 3}})
	if err != nil {
		t.Fatal(err)
	}
	if out.Policy == nil || len(out.Attempts) != 2 || out.Usage.LLMCalls != 0 {
		t.Fatalf("resumed from a ledger of the past: %d attempts, %d calls, policy %v", len(out.Attempts), out.Usage.LLMCalls, out.Policy != nil)
	}
	if n := len(evolvetest.Calls(t, a.Store, "run-old")); n != 2 {
		t.Errorf("%d calls in the ledger, want the 2 of the past", n)
	}
}

// gate admits the first n calls and refuses the others.
type gate struct{ n int }

func (g *gate) Admit(_ context.Context, a llm.Admission) (func(), error) {
	if g.n == 0 {
		return nil, fmt.Errorf("%w: the budget cannot afford a %s call", llm.ErrNotAdmitted, a.Purpose)
	}
	g.n--
	return func() {}, nil
}

// TestBudgetEndsTheRequest: a fix call the run's budget does not admit
// ends the request without an error: the attempt made stands, the
// outcome says why it stopped, and nothing more is sent or recorded.
func TestBudgetEndsTheRequest(t *testing.T) {
	a, p, loop, path := evolvetest.LLMSetup(t, "", evolvetest.BadAnswer, evolvetest.ValidAnswer)
	var err error
	p.Client, err = llm.New(llm.Config{Spec: "replay:" + path, Recorder: &planner.LLMRecorder{Store: a.Store}, Gate: &gate{n: 1}})
	if err != nil {
		t.Fatal(err)
	}
	loop.Planner = p
	out, err := loop.Init(context.Background(), planner.InitRequest{Task: planner.Task{Env: a.Env}})
	if err != nil {
		t.Fatalf("a budget reached is not a failure: %v", err)
	}
	if out.Policy != nil || len(out.Attempts) != 1 || !errors.Is(out.Stopped, llm.ErrNotAdmitted) || out.Usage.LLMCalls != 1 {
		t.Fatalf("outcome: policy %v, %d attempts, stopped %v, %d calls", out.Policy != nil, len(out.Attempts), out.Stopped, out.Usage.LLMCalls)
	}
	if n := len(evolvetest.Calls(t, a.Store, "")); n != 1 {
		t.Errorf("%d calls recorded, want 1", n)
	}
}
