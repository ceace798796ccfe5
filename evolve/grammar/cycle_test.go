package grammar

import (
	"context"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"policyevolve/envs"
	"policyevolve/envs/ssd"
)

func cycleGenome(p CycleParams, aggression Aggression) Genome {
	return Genome{Game: ssd.Gathering, Harvest: Harvest{Kind: Cycle, Cycle: p}, Aggression: aggression,
		Cleaning: Cleaning{Kind: NoCleaning}}
}

// TestCycleSpacesTheAgents plays the cycle in process on the large
// Gathering map: the cycle is done within 40 steps and holds every spawn
// once; the agents' places are evenly spaced along it, a period apart
// over the agents; and once each agent has reached its place, the team
// picks at least 95% of what visiting every spawn once a period yields
// (in Gathering a spawn visited 25 or more steps after its last pick
// always has an apple).
func TestCycleSpacesTheAgents(t *testing.T) {
	for _, sorted := range []bool{false, true} {
		g := cycleGenome(CycleParams{Spacing: 20, Sorted: sorted}, Aggression{Kind: Never})
		m, err := envs.BuiltinMap(ssd.Gathering, "large")
		if err != nil {
			t.Fatal(err)
		}
		env, err := envs.New(envs.Config{Map: m, Agents: 10, MaxSteps: 1000})
		if err != nil {
			t.Fatal(err)
		}
		env.Reset(3)
		k := newKit()
		var st ssd.State
		actions := make([]int, 10)
		picked, ready := 0.0, -1
		for step := 0; step < 700; step++ {
			env.Snapshot(&st)
			v, err := ssd.NewView(&st)
			if err != nil {
				t.Fatal(err)
			}
			for a := range actions {
				actions[a] = g.act(k, v, a)
			}
			if ready < 0 && k.opt[0].done {
				ready = step
			}
			r, err := env.Step(actions)
			if err != nil {
				t.Fatal(err)
			}
			if step >= 300 {
				for _, x := range r {
					picked += x
				}
			}
		}
		tour := slices.Sorted(slices.Values(k.tour[0]))
		spawns := len(m.Apples)
		if ready < 0 || ready > 40 || len(tour) != spawns || tour[0] != 0 || tour[spawns-1] != spawns-1 ||
			len(slices.Compact(tour)) != spawns {
			t.Fatalf("sorted %v: cycle done at step %d, holding %d spawns (of %d, each once?)", sorted, ready, len(tour), spawns)
		}
		length := cycleLength(k)
		period := max(length, 20*10)
		places := slices.Sorted(slices.Values(k.tourAt))
		for a := 1; a < len(places); a++ {
			if gap := places[a] - places[a-1]; gap < period/10 || gap > period/10+1 {
				t.Fatalf("sorted %v: places %v along a period of %d: not evenly spaced", sorted, places, period)
			}
		}
		bound := 400 * float64(spawns) * 10 / float64(max(period, 25*10))
		t.Logf("sorted %v: cycle of %d steps done at step %d; %.0f apples picked in steps 300-699, bound %.0f", sorted, length, ready, picked, bound)
		if picked < 0.95*bound {
			t.Errorf("sorted %v: %.0f apples picked in steps 300-699, under 95%% of the bound %.0f", sorted, picked, bound)
		}
	}
}

// TestCycleKeepsTheStepDeadline: the cycle, made and shortened in the
// first steps and skipping spawns to fit 25 steps an agent, keeps within
// the sandbox's default step deadline on the interpreter, beaming itself in self-play (tagged-out agents and all).
// The deadline counts CPU time, so a busy machine does not make it fail;
// the policy needs about a fifth of it.
func TestCycleKeepsTheStepDeadline(t *testing.T) {
	if raceEnabled {
		t.Skip("the interpreter's worker is not built under the race detector")
	}
	g := cycleGenome(CycleParams{Spacing: 25, Lead: 2, Sorted: true, Drop: maxDrop},
		Aggression{Kind: Opportunistic, Opportunistic: OpportunisticParams{Reach: maxReach, Turn: true}})
	playOnYaegi(t, g, 300)
}

// TestCycleIsGatheringsOnly: Cleanup's apples grow back at random, so no
// Cleanup genome has the cycle harvest — drawn, mutated, drawn from a
// guidance that names it — and one written by hand is refused; Gathering
// draws it.
func TestCycleIsGatheringsOnly(t *testing.T) {
	rng := rand.New(rand.NewSource(9))
	guide := &Guidance{Kinds: map[string][]string{"harvest": {Cycle, Zones}}}
	drawn := 0
	for n := 0; n < 2000; n++ {
		g := Random(ssd.Cleanup, space10, rng)
		for m := 0; m < 5; m++ {
			Mutate(&g, space10, nil, rng)
		}
		if gg := RandomGuided(ssd.Cleanup, space10, guide, rng); g.Harvest.Kind == Cycle || gg.Harvest.Kind == Cycle {
			t.Fatalf("a Cleanup genome with the cycle harvest: %+v / %+v", g.Harvest, gg.Harvest)
		}
		if Random(ssd.Gathering, space10, rng).Harvest.Kind == Cycle {
			drawn++
		}
	}
	if drawn < 300 {
		t.Errorf("Gathering drew the cycle %d times in 2000, want about a fifth", drawn)
	}
	g := cycleGenome(CycleParams{Spacing: 25}, Aggression{Kind: Never})
	g.Game, g.Cleaning = ssd.Cleanup, Cleaning{Kind: Fixed, Fixed: FixedParams{Cleaners: 2, Roles: RoleParams{Radius: 1, MinWaste: 1}}}
	if err := g.Validate(space10); err == nil || !strings.Contains(err.Error(), "Gathering's") {
		t.Errorf("a Cleanup genome with the cycle harvest validated: %v", err)
	}
}

// TestCycleStart: Start picks the spawn the cycle is built from (2-opt
// keeps the first spawn in place), over the whole range, and on the
// paper's large Gathering map cycles built from different spawns differ
// in length after 2-opt — what makes Start worth searching.
func TestCycleStart(t *testing.T) {
	m, err := envs.BuiltinMap(ssd.Gathering, "large")
	if err != nil {
		t.Fatal(err)
	}
	v, n := firstView(t, m, 10), len(m.Apples)
	lengths := map[int]bool{}
	for _, start := range []int{0, 1, 250, 500, 750, maxStart} {
		k := newKit()
		k.begin(v, 0)
		k.cycleFor(v, start)
		k.improveTours(1 << 30)
		tour := k.tour[0]
		if want := start * n / 1000; len(tour) != n || tour[0] != want {
			t.Fatalf("Start %d: a cycle of %d spawns (of %d) from spawn %d, want from %d", start, len(tour), n, tour[0], want)
		}
		length := cycleLength(k)
		t.Logf("Start %d (spawn %d): %d steps round", start, tour[0], length)
		lengths[length] = true
	}
	if len(lengths) < 2 {
		t.Errorf("every start made a cycle of the same length: %v", lengths)
	}
}

// cycleLength is the steps round k's cycle (rows plus columns, as the
// cycle's own reckoning).
func cycleLength(k *kit) int { return tourLength(k, k.tour[0]) }

// tourLength is the steps round the cycle t of k's spawns.
func tourLength(k *kit, t []int) int {
	length := 0
	for j, i := range t {
		length += spawnLeg(k, i, t[(j+1)%len(t)])
	}
	return length
}

// spawnLeg is the steps between k's spawns a and b.
func spawnLeg(k *kit, a, b int) int {
	return abs(k.spawnR[a]-k.spawnR[b]) + abs(k.spawnC[a]-k.spawnC[b])
}

// TestCycleDrop: Drop skips at most that many spawns, one at a time the
// one whose removal shortens the cycle most, while the cycle is longer
// than the period of Spacing steps an agent: the cycle keeps every other
// spawn once, each removal shortens it by the most any removal could, and
// it stops once the cycle fits. On the paper's large Gathering map, where
// the shortest cycles are longer than ten agents walk in the 25 steps an
// apple takes to grow back, skipping spawns to fit 25 steps an agent
// harvests more than skipping none, a larger Drop plays the same (the
// cycle already fits), and skipping to fit a shorter period harvests
// less (the agents come back before the apples have grown).
func TestCycleDrop(t *testing.T) {
	m, err := envs.BuiltinMap(ssd.Gathering, "large")
	if err != nil {
		t.Fatal(err)
	}
	v, n := firstView(t, m, 10), len(m.Apples)
	k := newKit()
	k.begin(v, 0)
	k.cycleFor(v, 943)
	k.improveTours(1 << 30)
	full := slices.Clone(k.tour[0])
	leg := func(a, b int) int { return spawnLeg(k, a, b) }
	length := func(t []int) int { return tourLength(k, t) }
	prev := full
	for drop := 1; drop <= 8; drop++ {
		got := dropSpawns(slices.Clone(full), k.spawnR, k.spawnC, drop, 0)
		if len(got) != n-drop || len(slices.Compact(slices.Sorted(slices.Values(got)))) != n-drop {
			t.Fatalf("drop %d: a cycle of %d spawns, want %d distinct", drop, len(got), n-drop)
		}
		most := 0 // the most one removal from the previous cycle saves
		for j, i := range prev {
			a, b := prev[(j+len(prev)-1)%len(prev)], prev[(j+1)%len(prev)]
			most = max(most, leg(a, i)+leg(i, b)-leg(a, b))
		}
		if length(prev)-length(got) != most {
			t.Errorf("drop %d: %d steps round, %d shorter than with %d dropped; the best removal saves %d",
				drop, length(got), length(prev)-length(got), drop-1, most)
		}
		prev = got
	}
	for _, fit := range []int{length(full), length(full) - 1, 250, 200} {
		got := dropSpawns(slices.Clone(full), k.spawnR, k.spawnC, maxDrop, fit)
		l := length(got)
		fewer := dropSpawns(slices.Clone(full), k.spawnR, k.spawnC, n-len(got)-1, 0)
		if len(got) < n-maxDrop || (len(got) > n-maxDrop && l > fit) || (len(got) < n && length(fewer) <= fit) {
			t.Errorf("fit %d: %d spawns skipped, %d steps round (one fewer skipped: %d steps)", fit, n-len(got), l, length(fewer))
		}
		t.Logf("fit %d: %d spawns skipped, %d steps round", fit, n-len(got), l)
	}
	if got := dropSpawns([]int{0, 1, 2}, k.spawnR, k.spawnC, 5, 0); len(got) != 2 {
		t.Errorf("dropping 5 of 3 spawns left %d, want 2 kept", len(got))
	}

	e := &Evaluator{Map: m, Agents: 10, Steps: 1000, Seeds: []uint64{100, 101}}
	score := func(spacing, drop int) float64 {
		s, err := e.Score(context.Background(), cycleGenome(CycleParams{Start: 943, Spacing: spacing, Lead: 8, Sorted: true, Drop: drop}, Aggression{Kind: Never}))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	none, fit, more, short := score(25, 0), score(25, 5), score(25, 15), score(20, 15)
	t.Logf("efficiency fitting 25 steps an agent with 0, 5 and 15 spawns to skip: %.4f, %.4f, %.4f; fitting 20 with 15: %.4f", none, fit, more, short)
	if fit <= none || more != fit || short >= fit {
		t.Errorf("efficiency fitting 25 steps an agent with 0, 5 and 15 spawns to skip: %.4f, %.4f, %.4f; fitting 20 with 15: %.4f;"+
			" want the second best, the third the same", none, fit, more, short)
	}
}
