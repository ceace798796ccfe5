package sandbox

import (
	"context"
	"testing"

	"policyevolve/envs"
	"policyevolve/envs/ssd"
)

// hiddenReads are package-level initializers that read a variable
// initialised after them through a path Go's initialisation order does
// not follow, so that in a fresh process they see its zero value: each
// sets early, which must be 1 in every episode. A reset that reran the
// initializers without zeroing first made them see the previous
// episode's value (a seed's score then depended on what the worker
// played before it: 2.086 alone, 0 after three other seeds).
var hiddenReads = map[string]string{
	"interface method call": `type getter interface{ get() int }
type impl struct{}

func (impl) get() int { return later }

var g getter = impl{}
var early = g.get() + 1`,
	"interface method value": `type getter interface{ get() int }
type impl struct{}

func (impl) get() int { return later }

var g getter = impl{}
var read = g.get
var early = read() + 1`,
	"interface in a slice": `type getter interface{ get() int }
type impl struct{ k int }

func (i impl) get() int { return later * i.k }

var table = []getter{impl{1}, impl{2}}
var early = table[1].get() + 1`,
	"closure over an interface": `type getter interface{ get() int }
type impl struct{}

func (*impl) get() int { return later }

var g getter = &impl{}
var read = func() int { return g.get() }
var early = read() + 1`,
	"interface in a struct field": `type getter interface{ get() int }
type impl struct{}

func (impl) get() int { return later }

type holder struct{ g getter }

var h = holder{impl{}}
var early = h.g.get() + 1`,
}

// hiddenReadPolicy is a policy with one of hiddenReads: it stands still
// when early is not 1, and counts its steps in later.
func hiddenReadPolicy(decls string) string {
	return "package policy\n\nimport \"ssd\"\n\n" + decls + "\n\nvar later = 5\n\n" +
		"func Policy(v *ssd.View, agent int) int {\n\tlater++\n\tif early != 1 {\n\t\treturn ssd.Stand\n\t}\n\treturn v.GreedyAction(agent)\n}\n"
}

// TestEpisodesStartAsAFreshProcess: a policy whose initializers read a
// later variable through an interface (called, as a method value, in a
// slice, through a closure, in a struct) plays seed 3 the same in a fresh
// worker and after seeds 0, 1 and 2 in the same worker, on both backends.
func TestEpisodesStartAsAFreshProcess(t *testing.T) {
	m, _ := envs.BuiltinMap(ssd.Gathering, "small")
	cfg := envs.Config{Map: m, Agents: 3, MaxSteps: 60}
	for _, be := range backends {
		sb := newSandbox(t, be)
		for name, decls := range hiddenReads {
			t.Run(string(be)+"/"+name, func(t *testing.T) {
				prog := compile(t, sb, hiddenReadPolicy(decls))
				if !prog.reusable {
					t.Fatal("not made resettable: every episode would get a fresh worker, and this test would prove nothing")
				}
				play := func(seed uint64) *envs.Result {
					t.Helper()
					res, err := prog.SelfPlay(context.Background(), cfg, envs.Options{Seed: seed, Record: true})
					if err != nil {
						t.Fatalf("seed %d: %v", seed, err)
					}
					return res
				}
				alone := play(3)
				if allStand(alone) {
					t.Fatal("in a fresh worker the policy stood still: early is not 1 in a fresh process")
				}
				prog.Close() // the next episodes in one worker
				for _, seed := range []uint64{0, 1, 2} {
					play(seed)
				}
				after := play(3)
				if d := firstDifference(actionsOf(after), actionsOf(alone)); d != "" {
					t.Fatalf("seed 3 after seeds 0-2 in one worker differs from seed 3 alone: %s (returns %v vs %v)", d, after.Returns, alone.Returns)
				}
			})
		}
	}
}

func allStand(res *envs.Result) bool {
	for _, s := range res.Trajectory.Steps {
		for _, a := range s.Actions {
			if a != ssd.Stand {
				return false
			}
		}
	}
	return true
}

// TestResetFallsBackToFreshWorkers: a variable whose type the reset
// cannot write as the policy's file means it (a predeclared name the
// policy redeclares) is not reset by a generated function: the policy
// gets a fresh worker per episode instead, never a wrong reset.
func TestResetFallsBackToFreshWorkers(t *testing.T) {
	for _, c := range []struct {
		name, src string
		reusable  bool
	}{
		{"typed by its initializer", policyWith("return v.GreedyAction(agent) + n - 7") + "\nvar n = 7\n", true},
		{"rune redeclared", policyWith("return v.GreedyAction(agent) + int(x) - 'a'") + "\nvar x = 'a'\n\nfunc rune() {}\n", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := prepare([]byte(c.src), Native)
			if err != nil {
				t.Fatal(err)
			}
			if p.reusable != c.reusable || p.reset != c.reusable {
				t.Errorf("reusable %v, reset %v; want both %v", p.reusable, p.reset, c.reusable)
			}
		})
	}
}
