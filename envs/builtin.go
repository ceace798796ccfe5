package envs

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"policyevolve/envs/ssd"
)

// PolicyFactory makes a fresh policy instance for one episode.
type PolicyFactory func(info EpisodeInfo) ssd.Policy

// PolicyActor is an Actor that runs an in-process policy: a fresh instance
// from its factory at every Begin, called for each of its agents in id
// order every step. Use it only for trusted code (the built-in policies);
// untrusted source runs in the sandbox.
type PolicyActor struct {
	New PolicyFactory

	policy ssd.Policy
	agents []int
	view   *ssd.View
}

var _ Actor = (*PolicyActor)(nil)

func (p *PolicyActor) Begin(_ context.Context, info EpisodeInfo) error {
	p.policy = p.New(info)
	p.agents = info.Agents
	return nil
}

func (p *PolicyActor) Act(_ context.Context, st *ssd.State, actions []int) error {
	var err error
	if p.view == nil {
		p.view, err = ssd.NewView(st)
	} else {
		err = p.view.Update(st)
	}
	if err != nil {
		return err
	}
	for _, a := range p.agents {
		actions[a] = p.policy(p.view, a)
	}
	return nil
}

func (p *PolicyActor) End() error {
	p.policy = nil
	return nil
}

// builtins are the reference's policies, by name.
var builtins = map[string]struct {
	doc string
	new PolicyFactory
}{
	"bfs": {"greedy BFS collector: walk to the nearest alive apple",
		func(EpisodeInfo) ssd.Policy { return (*ssd.View).GreedyAction }},
	"exploit": {"beam rivals in reach, turn toward them, chase half-tagged ones, else collect",
		func(EpisodeInfo) ssd.Policy { return (*ssd.View).ExploitAction }},
	"coop": {"zone patrol: each agent collects in its own zone of apples and never fires",
		newCoop},
	"random": {"uniformly random actions, seeded from the episode seed and agent id",
		newRandom},
}

// BuiltinPolicies lists the built-in policy names, sorted.
func BuiltinPolicies() []string {
	out := make([]string, 0, len(builtins))
	for n := range builtins {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// BuiltinDoc is a one-line description of a built-in policy.
func BuiltinDoc(name string) string { return builtins[name].doc }

// Builtin returns the factory of a built-in policy.
func Builtin(name string) (PolicyFactory, error) {
	b, ok := builtins[name]
	if !ok {
		return nil, fmt.Errorf("unknown policy %q (built-in: %s)", name, strings.Join(BuiltinPolicies(), ", "))
	}
	return b.new, nil
}

// newCoop is the reference's cooperative policy: zones are split among the
// agents this instance plays, at its first call of the episode (as the
// reference splits them among the agents tagged cooperative).
func newCoop(info EpisodeInfo) ssd.Policy {
	var zones [][]int
	return func(v *ssd.View, agent int) int {
		if zones == nil {
			zones = v.CoopZones(info.Agents)
		}
		return v.CoopAction(agent, zones[agent])
	}
}

// newRandom plays uniformly random actions. Agent i draws from its own
// generator, NewRNG(seed + (i+1)*0x9E3779B97F4A7C15) (mod 2^64), one
// Integers(NumActions) per step, tagged out or not; so an agent's stream
// depends only on the episode seed and its id.
func newRandom(info EpisodeInfo) ssd.Policy {
	rngs := make(map[int]*RNG, len(info.Agents))
	for _, a := range info.Agents {
		rngs[a] = NewRNG(info.Seed + uint64(a+1)*0x9E3779B97F4A7C15)
	}
	return func(v *ssd.View, agent int) int {
		return int(rngs[agent].Integers(int64(v.NumActions())))
	}
}
