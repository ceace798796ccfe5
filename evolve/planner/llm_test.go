package planner_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"policyevolve/critic"
	"policyevolve/evolve/internal/evolvetest"
	"policyevolve/evolve/planner"
	"policyevolve/llm"
	"policyevolve/sandbox"
	"policyevolve/store"
)

// TestReplayEndToEnd: prompt → an answer whose policy does not compile →
// the fix prompt carries the compiler's message → a valid policy →
// evaluated and stored with its origin. Then the same request again in
// the same run is answered from the store: no call, same policy.
func TestReplayEndToEnd(t *testing.T) {
	a, p, loop, path := evolvetest.LLMSetup(t, "run-7", evolvetest.BadAnswer, evolvetest.ValidAnswer)
	loop.Planner = p
	ctx := context.Background()
	task := planner.Task{Env: a.Env, Run: "run-7", Iteration: 0, Iterations: 3}
	out, err := loop.Init(ctx, planner.InitRequest{Task: task})
	if err != nil {
		t.Fatal(err)
	}
	if out.Policy == nil || len(out.Attempts) != 2 {
		t.Fatalf("outcome %+v, want a policy after 2 attempts", out)
	}
	var ve *sandbox.ValidationError
	if first := out.Attempts[0].Problem; !errors.As(first, &ve) || !strings.Contains(first.Error(), "Nowhere") {
		t.Fatalf("first attempt's problem %v, want a validation error about ssd.Nowhere", first)
	}
	o := out.Policy.Origin
	if o.Planner != "llm:replay:"+path || o.Operator != planner.OpInit || o.Run != "run-7" || o.Prompt != "llm-call:2" {
		t.Errorf("origin %+v", o)
	}
	if out.Usage.LLMCalls != 2 {
		t.Errorf("usage %+v, want 2 calls", out.Usage)
	}
	cs := evolvetest.Calls(t, a.Store, "run-7")
	if len(cs) != 2 {
		t.Fatalf("%d calls recorded, want 2", len(cs))
	}
	if !strings.Contains(cs[0].System, "Gathering game") || !strings.Contains(cs[0].Prompt, "Iteration 0/3: write the initial policy") {
		t.Errorf("first call: system %.80q…, prompt %.80q…", cs[0].System, cs[0].Prompt)
	}
	// The fix request goes on with the conversation: the failed answer as
	// the model's turn, the compiler's message (line:column counted in
	// that answer: its line 4 is the code's line 2) as the reply.
	fix := cs[1]
	if fix.Prompt != cs[0].Prompt || fix.System != cs[0].System || len(fix.Turns) != 2 {
		t.Fatalf("fix request: prompt changed %v, %d turns", fix.Prompt != cs[0].Prompt, len(fix.Turns))
	}
	if fix.Turns[0].Role != llm.RoleAssistant || fix.Turns[0].Text != evolvetest.BadAnswer {
		t.Errorf("the model's turn %+v, want its failed answer", fix.Turns[0])
	}
	if reply := fix.Turns[1].Text; fix.Turns[1].Role != llm.RoleUser || !strings.HasPrefix(reply, "ERROR from attempt 1 of 3") ||
		!strings.Contains(reply, "line 4:13: undefined: ssd.Nowhere") || !strings.Contains(reply, "count the lines of your answer above") {
		t.Errorf("the reply does not carry the compiler's message in the answer's lines:\n%s", reply)
	}
	if cs[0].Answer != evolvetest.BadAnswer || cs[1].Answer != evolvetest.ValidAnswer || cs[1].Purpose != planner.OpFix {
		t.Errorf("recorded answers %q / %q, purpose %q", cs[0].Answer, cs[1].Answer, cs[1].Purpose)
	}
	ev, err := a.Evaluate(ctx, out.Policy.ID)
	if err != nil || ev.Status != store.StatusOK {
		t.Fatalf("evaluation %+v %v", ev, err)
	}
	// Resume: the replay file is spent, but the store answers both calls.
	again, err := loop.Init(ctx, planner.InitRequest{Task: task})
	if err != nil || again.Policy == nil || again.Policy.ID != out.Policy.ID || again.Usage.LLMCalls != 0 || again.New {
		t.Fatalf("resumed: %+v %v; want the same policy at no call", again, err)
	}
	if n := len(evolvetest.Calls(t, a.Store, "run-7")); n != 2 {
		t.Errorf("%d calls after resuming, want 2", n)
	}
}

func TestNoPolicyIsFedBack(t *testing.T) {
	a, p, loop, _ := evolvetest.LLMSetup(t, "", "I would write a greedy policy.", evolvetest.ValidAnswer)
	loop.Planner = p
	out, err := loop.Init(context.Background(), planner.InitRequest{Task: planner.Task{Env: a.Env}})
	if err != nil || out.Policy == nil {
		t.Fatalf("%+v %v", out, err)
	}
	if !errors.Is(out.Attempts[0].Problem, planner.ErrNoPolicy) || out.Attempts[0].Proposal.Notes != "I would write a greedy policy." {
		t.Errorf("first attempt %+v", out.Attempts[0])
	}
	cs := evolvetest.Calls(t, a.Store, "")
	if len(cs[1].Turns) != 2 || cs[1].Turns[0].Text != "I would write a greedy policy." {
		t.Fatalf("fix request turns %+v, want the answer and the reply", cs[1].Turns)
	}
	if reply := cs[1].Turns[1].Text; !strings.Contains(reply, "could not find the policy") || !strings.Contains(reply, "You MUST give exactly one ```go code block") {
		t.Errorf("fix reply:\n%s", reply)
	}
}

func TestEveryAttemptFails(t *testing.T) {
	a, p, loop, _ := evolvetest.LLMSetup(t, "", evolvetest.BadAnswer, evolvetest.BadAnswer, evolvetest.BadAnswer, evolvetest.ValidAnswer)
	loop.Planner = p
	out, err := loop.Init(context.Background(), planner.InitRequest{Task: planner.Task{Env: a.Env}})
	if err != nil {
		t.Fatalf("a failing candidate is a result, not an error: %v", err)
	}
	if out.Policy != nil || len(out.Attempts) != planner.MaxAttempts || out.Problem() == nil || out.Usage.LLMCalls != 3 {
		t.Fatalf("outcome %+v, want no policy after %d attempts", out, planner.MaxAttempts)
	}
	if n := len(evolvetest.Calls(t, a.Store, "")); n != 3 {
		t.Errorf("%d calls, want 3", n)
	}
}

// TestImproveFeedbackLevels: sparse shows rewards only, dense the social
// metrics too, critic the reflections as well, raw a trajectory excerpt
// instead; the parent is recorded.
func TestImproveFeedbackLevels(t *testing.T) {
	a := evolvetest.LLMArena(t)
	ctx := context.Background()
	rep, err := a.Import(ctx, evolvetest.Example(t, "bfs"), "bfs.go", 1)
	if err != nil {
		t.Fatal(err)
	}
	var parent store.Policy
	a.Store.View(func(tx *store.Tx) error {
		p, err := tx.Policy(rep.ID)
		parent = *p
		return err
	})
	scored := planner.Scored{Policy: parent, Eval: rep.Evaluation, Elo: 1210, Rated: true}
	refl := []critic.Reflection{{Code: "idle", Text: "Agents stood still half the time.", Stake: 1}}
	excerpt, err := a.Excerpt(ctx, rep.ID)
	if err != nil || !strings.Contains(excerpt, "step 0:") {
		t.Fatalf("excerpt %q, %v", excerpt, err)
	}
	for _, fb := range []planner.Feedback{planner.Sparse, planner.Dense, planner.Critic, planner.Raw} {
		path := filepath.Join(t.TempDir(), "a.txt")
		os.WriteFile(path, []byte(llm.FormatReplay([]string{evolvetest.ValidAnswer})), 0o644)
		p := evolvetest.PlannerFor(t, a, "replay:"+path, "run-"+string(fb))
		loop := &planner.FixLoop{Planner: p, Sandbox: a.Sandbox, Store: a.Store}
		out, err := loop.Improve(ctx, planner.ImproveRequest{Task: planner.Task{Env: a.Env, Run: "run-" + string(fb), Feedback: fb, Iteration: 1, Iterations: 3},
			Parent: scored, History: []planner.Scored{scored}, Reflections: refl, Excerpt: excerpt})
		if err != nil || out.Policy == nil {
			t.Fatalf("%s: %+v %v", fb, out, err)
		}
		prompt := evolvetest.Calls(t, a.Store, "run-"+string(fb))[0].Prompt
		hasMetrics := strings.Contains(prompt, "efficiency ")
		hasRefl := strings.Contains(prompt, "Agents stood still half the time.")
		hasExcerpt := strings.Contains(prompt, excerpt)
		if hasMetrics != (fb != planner.Sparse) || hasRefl != (fb == planner.Critic) || hasExcerpt != (fb == planner.Raw) || !strings.Contains(prompt, "Iteration 1/3: write an improved policy") ||
			!strings.Contains(prompt, "reward per agent") || !strings.Contains(prompt, strings.TrimSpace(string(evolvetest.Example(t, "bfs")))[:40]) {
			t.Errorf("%s: metrics %v, reflections %v in prompt:\n%s", fb, hasMetrics, hasRefl, prompt)
		}
	}
}

func TestCrossoverRecordsBothParents(t *testing.T) {
	a, p, loop, _ := evolvetest.LLMSetup(t, "", evolvetest.ValidAnswer)
	loop.Planner = p
	ctx := context.Background()
	var pols []store.Policy
	for _, name := range []string{"bfs", "voronoi"} {
		pol := store.Policy{Source: string(evolvetest.Example(t, name)), Name: name}
		a.Store.Update(func(tx *store.Tx) error { _, err := tx.PutPolicy(&pol); return err })
		pols = append(pols, pol)
	}
	out, err := loop.Crossover(ctx, planner.CrossoverRequest{Task: planner.Task{Env: a.Env}, A: planner.Scored{Policy: pols[0]}, B: planner.Scored{Policy: pols[1]}})
	if err != nil || out.Policy == nil {
		t.Fatalf("%+v %v", out, err)
	}
	o := out.Policy.Origin
	if o.Operator != planner.OpCrossover || len(o.Parents) != 2 || o.Parents[0] != pols[0].ID || o.Parents[1] != pols[1].ID {
		t.Errorf("origin %+v", o)
	}
	prompt := evolvetest.Calls(t, a.Store, "")[0].Prompt
	if !strings.Contains(prompt, "### Parent A: bfs") || !strings.Contains(prompt, "### Parent B: voronoi") {
		t.Errorf("prompt:\n%s", prompt)
	}
}

// TestSameRequestOncePerRun: the same request twice in one run makes one
// call; another sample index, or another run, makes another.
func TestSameRequestOncePerRun(t *testing.T) {
	a := evolvetest.LLMArena(t)
	dir := t.TempDir()
	count := filepath.Join(dir, "count")
	answer := filepath.Join(dir, "answer.txt")
	os.WriteFile(answer, []byte(evolvetest.ValidAnswer), 0o644)
	spec := "exec:echo call >> " + count + "; cat " + answer
	ctx := context.Background()
	n := func() int {
		b, _ := os.ReadFile(count)
		return strings.Count(string(b), "call")
	}
	p := evolvetest.PlannerFor(t, a, spec, "run-1")
	for i, tc := range []struct {
		sample, calls int
		cached        bool
	}{{0, 1, false}, {0, 1, true}, {1, 2, false}, {1, 2, true}} {
		prop, err := p.Init(ctx, planner.InitRequest{Task: planner.Task{Env: a.Env, Run: "run-1", Sample: tc.sample}})
		if err != nil || prop.Source == nil {
			t.Fatalf("request %d: %+v %v", i, prop, err)
		}
		if n() != tc.calls || (prop.Usage.LLMCalls == 0) != tc.cached {
			t.Errorf("request %d (sample %d): %d calls so far, usage %+v; want %d calls, cached %v", i, tc.sample, n(), prop.Usage, tc.calls, tc.cached)
		}
	}
	p2 := evolvetest.PlannerFor(t, a, spec, "run-2")
	if _, err := p2.Init(ctx, planner.InitRequest{Task: planner.Task{Env: a.Env, Run: "run-2"}}); err != nil || n() != 3 {
		t.Errorf("another run: %d calls, %v; want a third call", n(), err)
	}
}

// TestAddedClauseIsStoredFormatted: a block without package clause or
// imports is checked with them added on its first line (so that errors
// keep the model's line numbers), and stored gofmt'ed.
func TestAddedClauseIsStoredFormatted(t *testing.T) {
	a, p, loop, _ := evolvetest.LLMSetup(t, "", "```go\nfunc Policy(v *ssd.View, agent int) int {\n\treturn v.GreedyAction(agent)\n}\n```")
	loop.Planner = p
	out, err := loop.Init(context.Background(), planner.InitRequest{Task: planner.Task{Env: a.Env}})
	if err != nil || out.Policy == nil {
		t.Fatalf("%+v %v", out, err)
	}
	want := "package policy\n\nimport \"ssd\"\n\nfunc Policy(v *ssd.View, agent int) int {\n\treturn v.GreedyAction(agent)\n}\n"
	if out.Policy.Source != want || out.Program.ID != out.Policy.ID {
		t.Errorf("stored %q (program %.12s, policy %.12s)", out.Policy.Source, out.Program.ID, out.Policy.ID)
	}
}

// TestFixLoopHoldsTheCallBudget: with one planner call left in the run's
// budget, a proposal that fails is not sent back for a fix (that would be
// a call over the budget); with more left, it is.
func TestFixLoopHoldsTheCallBudget(t *testing.T) {
	for _, left := range []int{1, 2} {
		a, p, loop, _ := evolvetest.LLMSetup(t, "run-b", evolvetest.BadAnswer, evolvetest.ValidAnswer)
		loop.Planner = p
		out, err := loop.Init(context.Background(), planner.InitRequest{Task: planner.Task{Env: a.Env, Run: "run-b", CallsLeft: left}})
		if err != nil {
			t.Fatal(err)
		}
		if calls := len(evolvetest.Calls(t, a.Store, "run-b")); out.Calls() != left || calls != left || (out.Policy != nil) != (left == 2) {
			t.Errorf("%d calls left: %d attempts, %d calls made, policy %v", left, out.Calls(), calls, out.Policy != nil)
		}
	}
}
