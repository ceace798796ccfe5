package grammar

import (
	"context"
	"math/rand"
	"slices"
	"testing"

	"policyevolve/envs"
	"policyevolve/envs/ssd"
	"policyevolve/sandbox"
)

// zonesView is the first state of an episode on game's default map.
func zonesView(t *testing.T, game ssd.Game) *ssd.View {
	t.Helper()
	m, err := envs.BuiltinMap(game, envs.DefaultMap(game))
	if err != nil {
		t.Fatal(err)
	}
	return firstView(t, m, 10)
}

// firstView is the first state of an episode of seed 1 on m.
func firstView(t *testing.T, m *envs.Map, agents int) *ssd.View {
	t.Helper()
	env, err := envs.New(envs.Config{Map: m, Agents: agents})
	if err != nil {
		t.Fatal(err)
	}
	env.Reset(1)
	var st ssd.State
	env.Snapshot(&st)
	v, err := ssd.NewView(&st)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestBisectionOrdersLikeASort: the bisection orders a group's cells by
// filtering the orders made once; the zones must be those of sorting each
// group by its key, as the cut is specified.
func TestBisectionOrdersLikeASort(t *testing.T) {
	for _, game := range []ssd.Game{ssd.Gathering, ssd.Cleanup} {
		v := zonesView(t, game)
		for _, cells := range [][]ssd.Pos{v.AppleSpawns(), v.RiverCells()} {
			ord := orderCells(cells, v.Height(), v.Width())
			for parts := 1; parts <= 12; parts++ {
				idx := make([]int, len(cells))
				for i := range idx {
					idx[i] = len(idx) - 1 - i // any order in
				}
				want := sortedBisection(cells, v.Height(), v.Width(), slices.Clone(idx), parts)
				got := bisectCells(cells, ord, idx, parts, nil)
				if !slices.EqualFunc(got, want, slices.Equal[[]int]) {
					t.Fatalf("%v, %d cells in %d parts: got %v, want %v", game, len(cells), parts, got, want)
				}
				if slices.Contains(ord.in, true) {
					t.Fatalf("%v: the scratch marks were left set", game)
				}
			}
		}
	}
}

// sortedBisection is the cut as specified: each group sorted by its key
// along the longer side of its bounding box, cut in proportion.
func sortedBisection(cells []ssd.Pos, h, w int, idx []int, parts int) [][]int {
	var cut func(idx []int, parts int, out [][]int) [][]int
	cut = func(idx []int, parts int, out [][]int) [][]int {
		if parts <= 1 {
			return append(out, idx)
		}
		var rs, cs []int
		for _, i := range idx {
			rs, cs = append(rs, cells[i].R), append(cs, cells[i].C)
		}
		rows := len(idx) > 0 && slices.Max(rs)-slices.Min(rs) > slices.Max(cs)-slices.Min(cs)
		slices.SortStableFunc(idx, func(a, b int) int { return cellKey(cells[a], rows, h, w) - cellKey(cells[b], rows, h, w) })
		half := parts / 2
		c := len(idx) * half / parts
		out = cut(idx[:c], half, out)
		return cut(idx[c:], parts-half, out)
	}
	return cut(idx, parts, nil)
}

// TestToursResumeExactly: 2-opt spread over steps by the step's budget
// makes the tour an uninterrupted 2-opt makes, and leaves no pair of legs
// whose exchange would shorten it.
func TestToursResumeExactly(t *testing.T) {
	v := zonesView(t, ssd.Gathering)
	cells := v.AppleSpawns()
	rng := rand.New(rand.NewSource(5))
	for trial := 0; trial < 40; trial++ {
		zone := rng.Perm(len(cells))[:3+rng.Intn(len(cells)-3)]
		tours := func(budget int) []int {
			k := &kit{n: 1, tour: [][]int{nil}, opt: []twoOpt{{j: 2}}}
			k.spawnR, k.spawnC = make([]int, len(cells)), make([]int, len(cells))
			for i, c := range cells {
				k.spawnR[i], k.spawnC[i] = c.R, c.C
			}
			k.tour[0] = nearestTour(k.spawnR, k.spawnC, cells[zone[0]], zone)
			for calls := 0; !k.opt[0].done; calls++ {
				if calls > 1e6 {
					t.Fatal("2-opt never ends")
				}
				k.improveTours(budget)
			}
			return k.tour[0]
		}
		once, spread := tours(1<<40), tours(1)
		if !slices.Equal(once, spread) {
			t.Fatalf("zone of %d: resumed 2-opt gave %v, uninterrupted %v", len(zone), spread, once)
		}
		if !slices.Equal(slices.Sorted(slices.Values(once)), slices.Sorted(slices.Values(zone))) {
			t.Fatalf("the tour %v is not the zone %v", once, zone)
		}
		n := len(once)
		leg := func(a, b int) int { return walk(cells[once[a]], cells[once[b%n]]) }
		for i := 0; i+2 < n; i++ {
			for j := i + 2; j < n; j++ {
				if !(i == 0 && j == n-1) && leg(i, j)+leg(i+1, j+1) < leg(i, i+1)+leg(j, j+1) {
					t.Fatalf("zone of %d: legs %d and %d still cross", n, i, j)
				}
			}
		}
	}
}

// TestZonesKeepTheStepDeadline: the dearest zones genome — cut again
// among the active harvesters whenever one is tagged out or returns, by
// the most rounds of k-means, each zone walked as a tour — beaming itself
// in self-play on the interpreter keeps within the sandbox's default step
// deadline. (Before tours were shortened step by step it ran out of it at
// step 0 of the large Gathering map.) The deadline counts CPU time, so a
// busy machine does not make it fail; the policy needs about a fifth of it.
func TestZonesKeepTheStepDeadline(t *testing.T) {
	if raceEnabled {
		t.Skip("the interpreter's worker is not built under the race detector")
	}
	g := Genome{Game: ssd.Gathering,
		Harvest: Harvest{Kind: Zones, Zones: ZonesParams{Refine: maxRefine, Match: true, Share: true, Timed: true,
			Tour: true, Patience: 3}},
		Aggression: Aggression{Kind: Opportunistic, Opportunistic: OpportunisticParams{Reach: maxReach, Turn: true}},
		Cleaning:   Cleaning{Kind: NoCleaning}}
	res := playOnYaegi(t, g, 300)
	if res.Metrics.Peace >= 10 {
		t.Fatalf("nobody was tagged out (peace %v): the zones were never cut again", res.Metrics.Peace)
	}
}

// playOnYaegi renders g and plays it in self-play on the interpreter (the
// sandbox's default step deadline), 10 agents on the game's default map,
// for steps steps of seed 0; a step past the deadline fails the test.
func playOnYaegi(t *testing.T, g Genome, steps int) *envs.Result {
	t.Helper()
	sb, err := sandbox.New(sandbox.Config{Backend: sandbox.Yaegi, CacheDir: testCache})
	if err != nil {
		t.Fatal(err)
	}
	prog := compile(t, sb, g)
	m, err := envs.BuiltinMap(g.Game, envs.DefaultMap(g.Game))
	if err != nil {
		t.Fatal(err)
	}
	env, err := envs.New(envs.Config{Map: m, Agents: 10, MaxSteps: steps})
	if err != nil {
		t.Fatal(err)
	}
	all := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	res, err := envs.Run(context.Background(), env, []envs.Seat{{Actor: prog.Actor(), Agents: all}}, envs.Options{Seed: 0})
	if err != nil {
		t.Fatalf("%v", err)
	}
	return res
}
