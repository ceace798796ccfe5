package planner_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"policyevolve/critic"
	"policyevolve/envs"
	"policyevolve/envs/ssd"
	"policyevolve/evolve/episode"
	"policyevolve/evolve/grammar"
	"policyevolve/evolve/internal/evolvetest"
	"policyevolve/evolve/planner"
	"policyevolve/sandbox"
	"policyevolve/store"
)

// TestGrammarPlannerFixLoop: the grammar planner in the fix loop every
// planner goes through, end to end: its proposals pass the sandbox's
// check at the first attempt, are stored with their origin, read back as
// genomes, and evaluate in the arena; improve and crossover name their
// parents.
func TestGrammarPlannerFixLoop(t *testing.T) {
	a := evolvetest.NewArena(t)
	ctx := context.Background()
	loop := &planner.FixLoop{Planner: &planner.GrammarPlanner{PopSize: 4, Generations: 1}, Sandbox: a.Sandbox, Store: a.Store}
	task := planner.Task{Env: a.Env, Run: "run-g", Iteration: 2, Seed: 7}
	accepted := func(out *planner.Outcome, op string, parents ...string) *store.Policy {
		t.Helper()
		if out.Policy == nil || len(out.Attempts) != 1 || !out.New {
			t.Fatalf("%s: outcome %+v, want a new policy at the first attempt (problem: %v)", op, out, out.Problem())
		}
		o := out.Policy.Origin
		if o.Planner != "grammar" || o.Operator != op || o.Run != "run-g" || o.Iteration != 2 || !reflect.DeepEqual(o.Parents, parents) {
			t.Fatalf("%s: origin %+v, want parents %v", op, o, parents)
		}
		if out.Usage != (planner.Usage{}) {
			t.Errorf("%s: usage %+v, want none", op, out.Usage)
		}
		if _, err := grammar.Parse([]byte(out.Policy.Source)); err != nil {
			t.Fatalf("%s: the stored source is not a genome: %v", op, err)
		}
		ev, err := a.Evaluate(ctx, out.Policy.ID)
		if err != nil || ev.Status != store.StatusOK {
			t.Fatalf("%s: evaluation %+v, %v", op, ev, err)
		}
		return out.Policy
	}
	out, err := loop.Init(ctx, planner.InitRequest{Task: task})
	if err != nil {
		t.Fatal(err)
	}
	p1 := accepted(out, planner.OpInit)
	out, err = loop.Improve(ctx, planner.ImproveRequest{Task: task, Parent: planner.Scored{Policy: *p1}})
	if err != nil {
		t.Fatal(err)
	}
	p2 := accepted(out, planner.OpImprove, p1.ID)
	out, err = loop.Crossover(ctx, planner.CrossoverRequest{Task: task, A: planner.Scored{Policy: *p1}, B: planner.Scored{Policy: *p2}})
	if err != nil {
		t.Fatal(err)
	}
	accepted(out, planner.OpCrossover, p1.ID, p2.ID)
}

// grammarTask is a quick environment for planner calls that need no
// sandbox.
func grammarTestTask(t *testing.T, game string, agents, steps int) planner.Task {
	t.Helper()
	env, err := episode.ResolveEnv(game, "small", agents, steps)
	if err != nil {
		t.Fatal(err)
	}
	return planner.Task{Env: env, Seed: 99}
}

func genomePolicy(t *testing.T, g grammar.Genome) planner.Scored {
	t.Helper()
	src, err := grammar.Render(g)
	if err != nil {
		t.Fatal(err)
	}
	return planner.Scored{Policy: store.Policy{ID: store.SourceID(string(src)), Source: string(src)}}
}

// scoredOf is a proposal as a parent to show the planner.
func scoredOf(p *planner.Proposal) planner.Scored {
	return planner.Scored{Policy: store.Policy{ID: store.SourceID(string(p.Source)), Source: string(p.Source)}}
}

// three is an init, an improvement of it and their crossover.
type three struct {
	init, imp, cross *planner.Proposal
	parent, other    planner.Scored // init's and imp's proposals as parents
}

func threeCalls(t *testing.T, p *planner.GrammarPlanner, task planner.Task) three {
	t.Helper()
	ctx := context.Background()
	var c three
	var err error
	if c.init, err = p.Init(ctx, planner.InitRequest{Task: task}); err != nil {
		t.Fatal(err)
	}
	c.parent = scoredOf(c.init)
	if c.imp, err = p.Improve(ctx, planner.ImproveRequest{Task: task, Parent: c.parent}); err != nil {
		t.Fatal(err)
	}
	c.other = scoredOf(c.imp)
	if c.cross, err = p.Crossover(ctx, planner.CrossoverRequest{Task: task, A: c.parent, B: c.other}); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestGrammarPlannerDeterministic: the same requests give the same
// proposals, byte for byte; another sample or seed gives another.
func TestGrammarPlannerDeterministic(t *testing.T) {
	task := grammarTestTask(t, "gathering", 4, 150)
	t.Logf("seed: %d", task.Seed)
	calls := func(task planner.Task) []*planner.Proposal {
		c := threeCalls(t, &planner.GrammarPlanner{PopSize: 4, Generations: 2, Workers: 2}, task)
		return []*planner.Proposal{c.init, c.imp, c.cross}
	}
	a, b := calls(task), calls(task)
	for i := range a {
		if string(a[i].Source) != string(b[i].Source) || a[i].Notes != b[i].Notes || !reflect.DeepEqual(a[i].Origin, b[i].Origin) {
			t.Fatalf("call %d (%s) differs between two identical runs", i, a[i].Origin.Operator)
		}
	}
	other := task
	other.Sample = 1
	c := calls(other)
	if string(c[0].Source) == string(a[0].Source) {
		t.Error("another sample drew the same initial genome")
	}
}

// TestGrammarPlannerForeignParent: a parent the grammar did not write is
// not evolved; the planner searches from random genomes and says so.
func TestGrammarPlannerForeignParent(t *testing.T) {
	ctx := context.Background()
	task := grammarTestTask(t, "gathering", 4, 100)
	parent := planner.Scored{Policy: store.Policy{ID: "abc123", Source: string(evolvetest.Example(t, "bfs"))}}
	prop, err := (&planner.GrammarPlanner{PopSize: 4, Generations: 1}).Improve(ctx, planner.ImproveRequest{Task: task, Parent: parent})
	if err != nil {
		t.Fatal(err)
	}
	if prop.Origin.Operator != planner.OpInit || len(prop.Origin.Parents) != 0 {
		t.Errorf("origin %+v: want init, no parents", prop.Origin)
	}
	if !strings.Contains(prop.Notes, "parent abc123 is not a genome the grammar can evolve") {
		t.Errorf("notes do not say why: %s", prop.Notes)
	}
	if _, err := sandbox.Validate(prop.Source); err != nil {
		t.Fatal(err)
	}
}

// TestGrammarPlannerFix: Fix re-renders a proposal whose source is not
// its genome's rendering, and reports a rendering that fails as a bug in
// the grammar instead of proposing it again.
func TestGrammarPlannerFix(t *testing.T) {
	ctx := context.Background()
	task := grammarTestTask(t, "gathering", 4, 100)
	p := &planner.GrammarPlanner{}
	prop, err := p.Init(ctx, planner.InitRequest{Task: task})
	if err != nil {
		t.Fatal(err)
	}
	problem := errors.New("smoke test: something odd")
	_, err = p.Fix(ctx, planner.FixRequest{Task: task, Failed: prop, Problem: problem, Attempt: 1})
	if !errors.Is(err, grammar.ErrBug) || !strings.Contains(err.Error(), "something odd") || !strings.Contains(err.Error(), fmt.Sprintf(`"v":%d`, grammar.Version)) {
		t.Fatalf("Fix of a rendering that failed: %v, want a grammar bug naming the genome and the problem", err)
	}
	damaged := *prop
	damaged.Source = []byte("package policy\n")
	fixed, err := p.Fix(ctx, planner.FixRequest{Task: task, Failed: &damaged, Problem: problem, Attempt: 1})
	if err != nil || string(fixed.Source) != string(prop.Source) || !reflect.DeepEqual(fixed.Origin, prop.Origin) {
		t.Fatalf("Fix of a damaged source: %v; want the genome's rendering with the same origin", err)
	}
	if _, err := p.Fix(ctx, planner.FixRequest{Task: task, Failed: &planner.Proposal{State: "chat"}, Problem: problem}); err == nil ||
		!strings.Contains(err.Error(), "another planner") {
		t.Fatalf("Fix of another planner's proposal: %v", err)
	}
}

// TestGrammarPlannerCriticBias: at the critic level, the diagnostics of a
// parent whose river stayed polluted steer Improve toward cleaning; at the
// sparse level they are not used.
func TestGrammarPlannerCriticBias(t *testing.T) {
	ctx := context.Background()
	task := grammarTestTask(t, "cleanup", 4, 300)
	parentG := grammar.Genome{Game: ssd.Cleanup, Harvest: grammar.Harvest{Kind: grammar.Nearest},
		Aggression: grammar.Aggression{Kind: grammar.Never}, Cleaning: grammar.Cleaning{Kind: grammar.NoCleaning}}
	env, err := envs.New(envs.Config{Map: task.Env.Map, Agents: 4, MaxSteps: 300})
	if err != nil {
		t.Fatal(err)
	}
	res, err := envs.Run(ctx, env, []envs.Seat{{Actor: parentG.Actor(), Agents: []int{0, 1, 2, 3}}}, envs.Options{Seed: 1, Record: true})
	if err != nil {
		t.Fatal(err)
	}
	d, err := critic.Diagnose([]critic.Episode{{Trajectory: res.Trajectory}}, critic.Config{})
	if err != nil {
		t.Fatal(err)
	}
	p := &planner.GrammarPlanner{PopSize: 6, Generations: 2}
	req := planner.ImproveRequest{Task: task, Parent: genomePolicy(t, parentG), Diagnostics: d}
	req.Feedback = planner.Critic
	prop, err := p.Improve(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	child := prop.State.(grammar.Genome)
	if !strings.Contains(prop.Notes, "mutations lean on the critic: waste at or above the depletion threshold") ||
		child.Cleaning.Kind == grammar.NoCleaning {
		t.Errorf("critic-level improve: cleaning %q, notes:\n%s", child.Cleaning.Kind, prop.Notes)
	}
	req.Feedback = planner.Sparse
	prop, err = p.Improve(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(prop.Notes, "mutations lean on the critic") {
		t.Errorf("sparse-level improve used the diagnostics:\n%s", prop.Notes)
	}
}

// TestGrammarPlannerSkipsWritten: told what the run has written
// (Task.Written), every operator proposes, of what its search met, a
// genome the run has not written, instead of spending a call on one the
// fix loop would refuse as a duplicate; the fix of a duplicate mutates to
// an unwritten genome too. With nothing written the proposals are those
// of a task without Written.
func TestGrammarPlannerSkipsWritten(t *testing.T) {
	ctx := context.Background()
	task := grammarTestTask(t, "gathering", 4, 150)
	p := &planner.GrammarPlanner{PopSize: 4, Generations: 2}
	c := threeCalls(t, p, task)
	init, imp, cross, parent, other := c.init, c.imp, c.cross, c.parent, c.other
	// Another sample's first genome: far enough from the first for
	// crossover to have mixes to choose from.
	sample1 := task
	sample1.Sample = 1
	far, err := p.Init(ctx, planner.InitRequest{Task: sample1})
	if err != nil {
		t.Fatal(err)
	}
	mate := scoredOf(far)
	mixes, err := p.Crossover(ctx, planner.CrossoverRequest{Task: task, A: parent, B: mate})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(mixes.Notes, "mixes of the parents' modules") {
		t.Fatalf("crossover of two samples' genomes: %s, want the best of their mixes", mixes.Notes)
	}
	calls := []struct {
		name string
		was  *planner.Proposal
		call func(planner.Task) (*planner.Proposal, error)
	}{
		{"init", init, func(t planner.Task) (*planner.Proposal, error) {
			return p.Init(ctx, planner.InitRequest{Task: t})
		}},
		{"improve", imp, func(t planner.Task) (*planner.Proposal, error) {
			return p.Improve(ctx, planner.ImproveRequest{Task: t, Parent: parent})
		}},
		{"crossover", cross, func(t planner.Task) (*planner.Proposal, error) {
			return p.Crossover(ctx, planner.CrossoverRequest{Task: t, A: parent, B: other})
		}},
		{"crossover of mixes", mixes, func(t planner.Task) (*planner.Proposal, error) {
			return p.Crossover(ctx, planner.CrossoverRequest{Task: t, A: parent, B: mate})
		}},
		{"fix of a duplicate", imp, func(t planner.Task) (*planner.Proposal, error) {
			return p.Fix(ctx, planner.FixRequest{Task: t, Failed: imp, Problem: planner.ErrDuplicate, Attempt: 1})
		}},
	}
	for _, c := range calls {
		t.Run(c.name, func(t *testing.T) {
			none := task
			none.Written = func([]byte) bool { return false }
			same, err := c.call(none)
			if err != nil {
				t.Fatal(err)
			}
			if c.name != "fix of a duplicate" && string(same.Source) != string(c.was.Source) {
				t.Error("with nothing written, the proposal differs from one without Written")
			}
			// Written before: the unconstrained proposal and, for the
			// improvement, the parent (already avoided) and the mate.
			seen := map[string]bool{string(c.was.Source): true, string(same.Source): true}
			var asked int
			told := task
			told.Written = func(src []byte) bool { asked++; return seen[string(src)] }
			prop, err := c.call(told)
			if err != nil {
				t.Fatal(err)
			}
			if asked == 0 {
				t.Fatal("the planner never asked what was written")
			}
			if seen[string(prop.Source)] {
				t.Fatalf("proposed a genome the run has written:\n%s", prop.Notes)
			}
			if _, err := grammar.Parse(prop.Source); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestFixLoopTellsWritten: the fix loop tells the planner what its Screen
// refuses, so that the grammar planner's second proposal of a genome the
// run has stored is another genome, accepted at the first attempt.
func TestFixLoopTellsWritten(t *testing.T) {
	a := evolvetest.NewArena(t)
	ctx := context.Background()
	stored := map[string]bool{}
	loop := &planner.FixLoop{Planner: &planner.GrammarPlanner{PopSize: 4, Generations: 1}, Sandbox: a.Sandbox, Store: a.Store,
		Screen: func(_ context.Context, src []byte) error {
			if stored[planner.NormalizedID(src)] {
				return planner.ErrDuplicate
			}
			return nil
		}}
	task := planner.Task{Env: a.Env, Run: "run-w", Iteration: 1, Seed: 7}
	first, err := loop.Init(ctx, planner.InitRequest{Task: task})
	if err != nil || first.Policy == nil {
		t.Fatalf("first init: %+v, %v", first, err)
	}
	stored[planner.NormalizedID([]byte(first.Policy.Source))] = true
	again, err := loop.Init(ctx, planner.InitRequest{Task: task})
	if err != nil {
		t.Fatal(err)
	}
	if again.Policy == nil || len(again.Attempts) != 1 || again.Calls() != 1 {
		t.Fatalf("the same request again: %d attempts (problem: %v), want another genome at the first", len(again.Attempts), again.Problem())
	}
	if again.Policy.ID == first.Policy.ID {
		t.Fatal("the same request again proposed the stored policy")
	}
}
