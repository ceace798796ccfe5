package sandbox

import (
	"context"
	"errors"
	"slices"
	"testing"

	"policyevolve/envs"
	"policyevolve/envs/ssd"
	"policyevolve/internal/golden"
)

// TestConformance is the suite every backend must pass: the reference
// policies, written as plain-Go source policies (examples/policies), replay
// every golden trace of their policy bit for bit through the sandbox, in
// reused workers, both ways: played inside the worker and replayed by the
// host with the worker's hashes checked after every step (SelfPlay), and
// step by step with the worker's replica checked against the host's state
// (Actor, with the environment and snapshot hashes also checked around
// every policy step).
func TestConformance(t *testing.T) {
	var eps []*golden.Episode
	for _, path := range golden.Files(t) {
		ep := golden.Load(t, path)
		if slices.Contains([]string{"bfs", "exploit", "coop"}, ep.Header.Policy) {
			eps = append(eps, ep)
		}
	}
	if len(eps) < 30 {
		t.Fatalf("only %d traces of source-written policies", len(eps))
	}
	for _, be := range backends {
		t.Run(string(be), func(t *testing.T) {
			for _, ep := range eps {
				prog := example(t, be, ep.Header.Policy)
				t.Run(ep.Name, func(t *testing.T) {
					t.Parallel()
					replayGolden(t, prog, ep)
				})
			}
		})
	}
}

func replayGolden(t *testing.T, prog *Program, ep *golden.Episode) {
	t.Helper()
	h := ep.Header
	m, err := envs.ParseMap(ep.Game(), h.Map, h.ASCIIMap)
	if err != nil {
		t.Fatal(err)
	}
	p := ep.Params()
	env, err := envs.New(envs.Config{Map: m, Agents: h.NAgents, MaxSteps: h.MaxSteps, Params: &p})
	if err != nil {
		t.Fatal(err)
	}
	all := make([]int, h.NAgents)
	for i := range all {
		all[i] = i
	}
	opt := envs.Options{Seed: h.Seed, Record: true, Verify: true}
	self, err := prog.SelfPlay(context.Background(), env.Config(), opt)
	checkGolden(t, prog, ep, "in the worker", self, err)
	lock, err := envs.Run(context.Background(), env, []envs.Seat{{Actor: prog.Actor(), Agents: all}}, opt)
	checkGolden(t, prog, ep, "step by step", lock, err)
}

func checkGolden(t *testing.T, prog *Program, ep *golden.Episode, how string, res *envs.Result, err error) {
	t.Helper()
	if err != nil {
		var pe *PolicyError
		if errors.As(err, &pe) {
			t.Logf("worker output:\n%s", pe.Output)
		}
		t.Fatalf("%s, %s: %v", ep.Name, how, err)
	}
	steps := make([]golden.Replayed, len(res.Trajectory.Steps))
	for k := range res.Trajectory.Steps {
		s := &res.Trajectory.Steps[k]
		steps[k] = golden.Replayed{Actions: s.Actions, Rewards: s.Rewards, State: &s.State}
	}
	if d := golden.CompareSteps(ep, &res.Trajectory.Reset, steps); d != "" {
		t.Fatalf("%s (%s, %s): %s", ep.Name, prog.Backend, how, d)
	}
	mm := res.Metrics
	if d := golden.CompareMetrics(ep, res.Returns, mm.Efficiency, mm.Equality, mm.Sustainability, mm.Peace); d != "" {
		t.Fatalf("%s (%s, %s): %s", ep.Name, prog.Backend, how, d)
	}
}

// TestFreshInstancePerEpisode: package-level state does not survive from
// one episode to the next (coop computes its zones at its first call; a
// reused instance would keep the previous episode's zones).
func TestFreshInstancePerEpisode(t *testing.T) {
	src := `package policy

import "ssd"

var calls int

func Policy(v *ssd.View, agent int) int {
	calls++
	if v.Step() == 0 && agent == 0 && calls != 1 {
		panic("state leaked from an earlier episode")
	}
	return ssd.Stand
}
`
	for _, be := range backends {
		prog := compile(t, newSandbox(t, be), src)
		m, _ := envs.BuiltinMap(ssd.Gathering, "small")
		env, _ := envs.New(envs.Config{Map: m, Agents: 2, MaxSteps: 5})
		a := prog.Actor()
		for ep := 0; ep < 3; ep++ {
			if _, err := envs.Run(context.Background(), env, []envs.Seat{{Actor: a, Agents: []int{0, 1}}}, envs.Options{Seed: uint64(ep)}); err != nil {
				t.Fatalf("%s episode %d: %v", be, ep, err)
			}
		}
	}
}
