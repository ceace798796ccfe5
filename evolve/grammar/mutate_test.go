package grammar

import (
	"context"
	"fmt"
	"math/rand"
	"testing"

	"policyevolve/critic"
	"policyevolve/envs"
	"policyevolve/envs/ssd"
)

// TestMutateChangesWithinRanges: every mutation changes the genome and
// keeps it valid.
func TestMutateChangesWithinRanges(t *testing.T) {
	const seed = 5
	t.Logf("seed: %d", seed)
	rng := rand.New(rand.NewSource(seed))
	for i, g := range randomGenomes(seed, 100) {
		before := g.Canonical()
		Mutate(&g, space10, nil, rng)
		if g.Canonical() == before {
			t.Fatalf("genome %d: mutation changed nothing", i)
		}
		if err := g.Validate(space10); err != nil {
			t.Fatalf("genome %d: mutation left an invalid genome: %v", i, err)
		}
	}
}

// cleanupDiagnostics plays a Cleanup genome whose agents never clean and
// returns the critic's diagnostics of its self-play.
func cleanupDiagnostics(t *testing.T) *critic.Diagnostics {
	t.Helper()
	m, err := envs.BuiltinMap(ssd.Cleanup, "default")
	if err != nil {
		t.Fatal(err)
	}
	g := Genome{Game: ssd.Cleanup, Harvest: Harvest{Kind: Nearest}, Aggression: Aggression{Kind: Never},
		Cleaning: Cleaning{Kind: NoCleaning}}
	env, err := envs.New(envs.Config{Map: m, Agents: 10, MaxSteps: 300})
	if err != nil {
		t.Fatal(err)
	}
	res, err := envs.Run(context.Background(), env, []envs.Seat{{Actor: g.Actor(), Agents: []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}}},
		envs.Options{Seed: 1, Record: true})
	if err != nil {
		t.Fatal(err)
	}
	d, err := critic.Diagnose([]critic.Episode{{Trajectory: res.Trajectory}}, critic.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestBiasMoreCleaners: when the waste stayed above the depletion
// threshold, mutations of a genome that never cleans turn to cleaning far
// more often, and push cleaner counts up rather than down.
func TestBiasMoreCleaners(t *testing.T) {
	d := cleanupDiagnostics(t)
	b := BiasFrom(d)
	if b == nil || len(b.Reasons) == 0 {
		t.Fatalf("no bias from diagnostics with waste at the threshold %.0f%% of steps", 100*d.Cleanup.AtThreshold)
	}
	t.Logf("bias: %v", b.Reasons)
	const seed, n = 9, 400
	t.Logf("seed: %d", seed)
	start := Genome{Game: ssd.Cleanup, Harvest: Harvest{Kind: Nearest}, Aggression: Aggression{Kind: Never},
		Cleaning: Cleaning{Kind: NoCleaning}}
	turned := func(b *Bias) int {
		rng := rand.New(rand.NewSource(seed))
		count := 0
		for i := 0; i < n; i++ {
			g := start
			Mutate(&g, space10, b, rng)
			if g.Cleaning.Kind != NoCleaning {
				count++
			}
		}
		return count
	}
	biased, plain := turned(b), turned(nil)
	if biased < n/2 || biased < 3*plain/2 {
		t.Errorf("%d of %d biased mutations took up cleaning, %d unbiased: the bias does not lean toward cleaning", biased, n, plain)
	}
	rng := rand.New(rand.NewSource(seed))
	up, down := 0, 0
	for i := 0; i < n; i++ {
		g := Genome{Game: ssd.Cleanup, Harvest: Harvest{Kind: Nearest}, Aggression: Aggression{Kind: Never},
			Cleaning: Cleaning{Kind: Fixed, Fixed: FixedParams{Cleaners: 5, Roles: RoleParams{Radius: 3, MinWaste: 5, Hold: 5}}}}
		Mutate(&g, space10, b, rng)
		if g.Cleaning.Kind != Fixed {
			continue
		}
		switch c := g.Cleaning.Fixed.Cleaners; {
		case c > 5:
			up++
		case c < 5:
			down++
		}
	}
	if up < 3*down || up == 0 {
		t.Errorf("cleaner counts went up %d times and down %d: want mostly up", up, down)
	}
}

// TestBiasLessBeaming: beams that cost more than they gain lean the
// aggression module toward not beaming.
func TestBiasLessBeaming(t *testing.T) {
	d := &critic.Diagnostics{Game: "gathering", Reward: 40, Rate: 0.1}
	d.Beams.Fired, d.Beams.TaggedOut = 30, 100
	b := BiasFrom(d)
	if b == nil || b.direction("aggression.Reach") != -1 || !b.prefers("aggression", Never) {
		t.Fatalf("bias %+v: want less beaming", b)
	}
	d.Beams.TaggedOut = 0
	if b := BiasFrom(d); b != nil {
		t.Fatalf("beams that cost nothing still bias: %v", b.Reasons)
	}
}

// TestCrossoverOnlyReceiver: eaopt passes the mate by value and would
// keep a stale fitness for a changed mate; our crossover changes only the
// receiver, and takes whole modules.
func TestCrossoverOnlyReceiver(t *testing.T) {
	gs := randomGenomes(4, 1)
	a, b := gs[1], Random(ssd.Cleanup, space10, rand.New(rand.NewSource(8)))
	x, y := &individual{g: a}, &individual{g: b}
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 50; i++ {
		x.g = a
		x.Crossover(y, rng)
		if y.g != b {
			t.Fatal("crossover changed the mate")
		}
		c, ca, cb := x.g, a.Canonical(), b.Canonical()
		h := c.Harvest == ca.Harvest || c.Harvest == cb.Harvest
		ag := c.Aggression == ca.Aggression || c.Aggression == cb.Aggression
		cl := c.Cleaning == ca.Cleaning || c.Cleaning == cb.Cleaning
		if !h || !ag || !cl {
			t.Fatalf("child %+v holds a module of neither parent", c)
		}
	}
}

// searchEvaluator scores on a small, short game so that searches take a
// fraction of a second.
func searchEvaluator(t *testing.T, workers int) *Evaluator {
	t.Helper()
	m, err := envs.BuiltinMap(ssd.Gathering, "small")
	if err != nil {
		t.Fatal(err)
	}
	return &Evaluator{Map: m, Agents: 4, Steps: 150, Seeds: []uint64{1, 2}, Workers: workers}
}

// TestSearchDeterministic: the same seed gives the same ranking, whether
// the seeds of a genome are played one at a time or two at once; another
// seed searches elsewhere.
func TestSearchDeterministic(t *testing.T) {
	ctx := context.Background()
	run := func(workers int, seed uint64) []Scored {
		var gens []int
		cfg := SearchConfig{Game: ssd.Gathering, Space: Space{Agents: 4}, PopSize: 6, Generations: 3, Seed: seed,
			OnGeneration: func(g int, _ Genome, _ float64) { gens = append(gens, g) }}
		r, err := Search(ctx, searchEvaluator(t, workers), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if len(gens) != 4 || gens[3] != 3 {
			t.Fatalf("generations reported: %v, want 0-3", gens)
		}
		return r
	}
	a, b, c := run(1, 42), run(2, 42), run(1, 43)
	if len(a) != len(b) {
		t.Fatalf("%d vs %d genomes met", len(a), len(b))
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("rank %d: %+v vs %+v", i, a[i], b[i])
		}
	}
	for i := 1; i < len(a); i++ {
		if a[i].Score > a[i-1].Score {
			t.Fatalf("ranking not best first at %d", i)
		}
	}
	same := len(a) == len(c)
	for i := 0; same && i < len(a); i++ {
		same = a[i] == c[i]
	}
	if same {
		t.Error("seeds 42 and 43 searched the same genomes")
	}
}

// TestSearchImprovesOnStart: a search started from a genome proposes one
// that scores at least as well on the training seeds (elitism keeps the
// best), and meets the start itself.
func TestSearchImprovesOnStart(t *testing.T) {
	ctx := context.Background()
	ev := searchEvaluator(t, 1)
	start := Genome{Game: ssd.Gathering, Harvest: Harvest{Kind: Nearest}, Aggression: Aggression{Kind: Opportunistic,
		Opportunistic: OpportunisticParams{Reach: 20, Turn: true}}, Cleaning: Cleaning{Kind: NoCleaning}}
	base, err := ev.Score(ctx, start)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Search(ctx, ev, SearchConfig{Game: ssd.Gathering, Space: Space{Agents: 4}, Seed: 3, Start: []Genome{start}})
	if err != nil {
		t.Fatal(err)
	}
	if r[0].Score < base {
		t.Fatalf("best %.3f below the start's %.3f", r[0].Score, base)
	}
	if _, ok := Child(r, start); !ok {
		t.Fatal("the search met nothing but its start")
	}
	t.Logf("start %.3f, best %.3f after %d genomes", base, r[0].Score, ev.Played())
}

// TestChildPlaysDifferently: Child passes over genomes that play exactly
// like one to avoid (the same print), unless nothing else is left.
func TestChildPlaysDifferently(t *testing.T) {
	g := func(margin int) Genome {
		return Genome{Game: ssd.Gathering, Harvest: Harvest{Kind: Nearest, Nearest: NearestParams{Margin: margin}},
			Aggression: Aggression{Kind: Never}, Cleaning: Cleaning{Kind: NoCleaning}}
	}
	parent, twin, other := g(1), g(2), g(3) // Margin unused without Avoid: in truth, all play alike
	ranked := []Scored{{Genome: parent, Score: 5.1, Print: "a"}, {Genome: twin, Score: 5.1, Print: "a"}, {Genome: other, Score: 5.0, Print: "b"}}
	for _, tc := range []struct {
		name   string
		ranked []Scored
		want   Genome
	}{
		{"another behaviour first", ranked, other},
		{"only twins left", ranked[:2], twin},
	} {
		c, ok := Child(tc.ranked, parent)
		if !ok || c.Genome != tc.want.Canonical() {
			t.Errorf("%s: child %+v (%v), want %+v", tc.name, c.Genome.Harvest, ok, tc.want.Harvest)
		}
	}
	if _, ok := Child(ranked[:1], parent); ok {
		t.Error("a child when only the parent was met")
	}
}

// TestSearchRanksCopiesLast: a genome that plays exactly like one met
// before (Margin is unused without Avoid) gets a fitness below every
// genome that plays differently, so that a generation's survivors are
// distinct behaviours; the first of them keeps its score.
func TestSearchRanksCopiesLast(t *testing.T) {
	m, err := envs.BuiltinMap(ssd.Gathering, "small")
	if err != nil {
		t.Fatal(err)
	}
	ev := &Evaluator{Map: m, Agents: 4, Steps: 100, Seeds: []uint64{1, 2}}
	run := &searchRun{ctx: context.Background(), ev: ev, cfg: &SearchConfig{Game: ssd.Gathering, Space: Space{Agents: 4}}}
	g := func(h Harvest) *individual {
		return &individual{run: run, g: Genome{Game: ssd.Gathering, Harvest: h, Aggression: Aggression{Kind: Never}, Cleaning: Cleaning{Kind: NoCleaning}}}
	}
	first := g(Harvest{Kind: Nearest, Nearest: NearestParams{Margin: 1}})
	twin := g(Harvest{Kind: Nearest, Nearest: NearestParams{Margin: 2}})
	other := g(Harvest{Kind: Strips, Strips: StripsParams{Rows: true}})
	f1, _ := first.Evaluate()
	f2, _ := twin.Evaluate()
	f3, _ := other.Evaluate()
	t.Logf("fitness: first %v, twin %v, other %v", f1, f2, f3)
	if f1 > 0 || f2 != f1+copyPenalty || f3 >= f2 {
		t.Errorf("fitness first %v, twin %v, other %v: want the twin ranked below the other, the first unchanged", f1, f2, f3)
	}
	if again, _ := first.Evaluate(); again != f1 {
		t.Errorf("the first genome evaluated again: %v, was %v", again, f1)
	}
}

// TestSwitchKeepsTheRoles: a switch between cleaning kinds (fixed and
// adaptive cleaners) keeps the roles' parameters and draws the count's
// afresh, over many draws.
func TestSwitchKeepsTheRoles(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	kept := 0
	for n := 0; n < 500; n++ {
		g := Random(ssd.Cleanup, space10, rng)
		before := map[string]string{}
		for _, p := range g.params(space10) {
			before[p.name] = paramString(p)
		}
		kind := g.Cleaning.Kind
		switchKind(&g, "cleaning", space10, nil, rng)
		if g.Cleaning.Kind == kind {
			t.Fatalf("the cleaning kind %q did not change", kind)
		}
		if err := g.Validate(space10); err != nil {
			t.Fatalf("after a switch: %v", err)
		}
		for _, p := range g.params(space10) {
			if old, ok := before[p.name]; ok && familyOf(p.name) == "cleaning" {
				kept++
				if got := paramString(p); got != old {
					t.Fatalf("%q→%q: %s was %s, now %s", kind, g.Cleaning.Kind, p.name, old, got)
				}
			}
		}
	}
	if kept < 500 {
		t.Fatalf("only %d roles' parameters met in 500 switches: the test saw too few fixed↔adaptive switches", kept)
	}
}

func paramString(p param) string {
	switch {
	case p.i != nil:
		return fmt.Sprint(*p.i)
	case p.f != nil:
		return fmt.Sprint(*p.f)
	}
	return fmt.Sprint(*p.b)
}

// TestMatesAreNotMutated: the initial population holds the start and the
// mates as they are, and its other members are mutants of the start (one
// or two mutations keep at least one of a Cleanup genome's three modules),
// never of a mate, so that an improvement's draws stay on its parent.
func TestMatesAreNotMutated(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	var start, mate Genome
	for { // a start and a mate that differ in every module
		start, mate = Random(ssd.Cleanup, space10, rng), Random(ssd.Cleanup, space10, rng)
		if start.Harvest.Kind != mate.Harvest.Kind && start.Aggression.Kind != mate.Aggression.Kind &&
			start.Cleaning.Kind != mate.Cleaning.Kind {
			break
		}
	}
	start, mate = start.Canonical(), mate.Canonical()
	cfg := SearchConfig{Game: ssd.Cleanup, Space: space10, PopSize: 40, Start: []Genome{start}, Mates: []Genome{mate, mate}}
	for n := 0; n < cfg.PopSize; n++ {
		g := cfg.initial(n, rng)
		switch {
		case n == 0:
			if g != start {
				t.Fatalf("member 0 is not the start: %+v", g)
			}
		case n <= 2:
			if g != mate {
				t.Fatalf("member %d is not the mate: %+v", n, g)
			}
		case g == start:
			t.Fatalf("member %d is the start unmutated", n)
		case g.Harvest != start.Harvest && g.Aggression != start.Aggression && g.Cleaning != start.Cleaning:
			t.Fatalf("member %d shares no module with the start (a mate's mutant?): %+v", n, g)
		}
	}
}
