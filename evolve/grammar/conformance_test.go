package grammar

import (
	"context"
	"math/rand"
	"os"
	"strconv"
	"testing"
	"time"

	"policyevolve/envs"
	"policyevolve/envs/ssd"
	"policyevolve/sandbox"
)

// backends are the sandbox backends the rendered sources must agree on.
// Under the race detector the yaegi worker would be the instrumented test
// binary, which cannot start within a worker's limits: native only.
func backends() []sandbox.Backend {
	if raceEnabled {
		return []sandbox.Backend{sandbox.Native}
	}
	return []sandbox.Backend{sandbox.Native, sandbox.Yaegi}
}

// coveringGenomes draws n genomes from seed, alternating the games and
// cycling through the kinds so that a handful covers every module (the
// first is a Gathering genome of the cycle, whose timing needs regrowth).
// Zones take their costliest options: timed, shared (cut again as the
// harvesters change), matched and refined, and in Gathering on a tour;
// the cycle skips spawns to fit a period shorter than itself.
func coveringGenomes(seed int64, n int) []Genome {
	rng := rand.New(rand.NewSource(seed))
	cleaning := []string{Fixed, Adaptive, NoCleaning}
	var out []Genome
	for i := 0; i < n; i++ {
		game := ssd.Gathering
		if i%2 == 1 {
			game = ssd.Cleanup
		}
		g := Random(game, space10, rng)
		hk := KindsFor(game, "harvest")
		g.Harvest.Kind = hk[(i/2+len(hk)-1)%len(hk)]
		g.Aggression.Kind = Kinds["aggression"][i%4]
		if game == ssd.Cleanup {
			g.Cleaning.Kind = cleaning[(i/2)%3]
		}
		g.randomize(space10, rng, "") // parameters for the kinds set above
		if z := &g.Harvest.Zones; g.Harvest.Kind == Zones {
			z.Timed, z.Share, z.Match, z.Refine, z.Tour = true, true, true, 1+z.Refine%maxRefine, i%4 == 0
		}
		if c := &g.Harvest.Cycle; g.Harvest.Kind == Cycle { // a period the cycle is longer than: it skips spawns
			c.Spacing, c.Drop = c.Spacing%25, 5+c.Drop%(maxDrop-4)
		}
		out = append(out, g)
	}
	return out
}

// conformanceCount is the number of genomes the conformance test plays:
// a handful by default (each native build takes about a second);
// POLICYEVOLVE_GRAMMAR_CONFORMANCE=N plays N.
func conformanceCount(t *testing.T) int {
	if s := os.Getenv("POLICYEVOLVE_GRAMMAR_CONFORMANCE"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("POLICYEVOLVE_GRAMMAR_CONFORMANCE=%q: want a positive count", s)
		}
		return n
	}
	return 4
}

// conformanceSteps keeps the episodes short: long enough for beams,
// tags, retaliation and role changes to happen.
const conformanceSteps = 80

// TestConformance: the rendered source of a genome, run by the sandbox
// (native and yaegi), chooses exactly the actions the genome chooses in
// process, step for step, in self-play and in a match against the
// built-in exploitative policy (which beams, so that retaliation and the
// team bookkeeping are exercised).
func TestConformance(t *testing.T) {
	const seed = 11
	genomes := coveringGenomes(seed, conformanceCount(t))
	t.Logf("seed: %d, %d genomes, %d steps", seed, len(genomes), conformanceSteps)
	ctx := context.Background()
	acted := map[int]int{} // actions the genomes chose, in process, by kind
	exploit, err := envs.Builtin("exploit")
	if err != nil {
		t.Fatal(err)
	}
	for _, be := range backends() {
		sb, err := sandbox.New(sandbox.Config{Backend: be, CacheDir: testCache, StepTimeout: 5 * time.Second, CostBudget: -1})
		if err != nil {
			t.Fatal(err)
		}
		for i, g := range genomes {
			prog := compile(t, sb, g)
			m, err := envs.BuiltinMap(g.Game, envs.DefaultMap(g.Game))
			if err != nil {
				t.Fatal(err)
			}
			for _, match := range []bool{false, true} {
				seats := func(genome envs.Actor) []envs.Seat {
					if !match {
						return []envs.Seat{{Actor: genome, Agents: []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}}}
					}
					return []envs.Seat{{Actor: genome, Agents: []int{0, 2, 4, 6, 8}},
						{Actor: &envs.PolicyActor{New: exploit}, Agents: []int{1, 3, 5, 7, 9}}}
				}
				play := func(a envs.Actor) *envs.Trajectory {
					env, err := envs.New(envs.Config{Map: m, Agents: 10, MaxSteps: conformanceSteps})
					if err != nil {
						t.Fatal(err)
					}
					res, err := envs.Run(ctx, env, seats(a), envs.Options{Seed: uint64(i), Record: true, Verify: true})
					if err != nil {
						t.Fatalf("%s genome %d (match %v): %v", be, i, match, err)
					}
					return res.Trajectory
				}
				want, got := play(g.Actor()), play(prog.Actor())
				for s := range want.Steps {
					a, b := want.Steps[s].Actions, got.Steps[s].Actions
					for j := range a {
						if !match || j%2 == 0 {
							acted[a[j]]++
						}
						if a[j] != b[j] {
							t.Fatalf("%s genome %d %s (match %v): step %d agent %d: in process %s, sandbox %s",
								be, i, headerJSON(t, g), match, s, j, ssd.ActionName(a[j]), ssd.ActionName(b[j]))
						}
					}
				}
			}
		}
	}
	// The episodes must have exercised the modules, or agreeing proves
	// little.
	for _, a := range []int{ssd.Beam, ssd.Clean, ssd.Forward, ssd.RotateLeft} {
		if acted[a] == 0 {
			t.Errorf("the genomes never chose %s in these episodes: pick other seeds", ssd.ActionName(a))
		}
	}
	t.Logf("actions chosen by the genomes: %v", acted)
}

// TestSmoke: the sandbox's whole admission test (compile, the 50-step
// smoke run twice, determinism, the cost budget at its default) passes
// for a few random genomes and for the costliest genome the ranges allow,
// on every backend.
func TestSmoke(t *testing.T) {
	genomes := append(coveringGenomes(11, 2), costliest(), costliestZones())
	ctx := context.Background()
	for _, be := range backends() {
		sb, err := sandbox.New(sandbox.Config{Backend: be, CacheDir: testCache, StepTimeout: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		for i, g := range genomes {
			rep, err := compile(t, sb, g).SmokeTest(ctx, g.Game)
			if err != nil {
				t.Fatalf("%s genome %d %s: %v", be, i, headerJSON(t, g), err)
			}
			t.Logf("%s genome %d (%s): %v per step, budget %v", be, i, g.Game, rep.PerStep, rep.Budget)
		}
	}
}

// costliestZones is the zones genome that cuts its zones most often and
// most dearly: shared among the harvesters of a Cleanup team whose
// cleaners change with the waste at every step (no hysteresis; firing
// from where they stand, which flips the roles most often), refined by
// the most rounds, each zone's tour made again at every cut.
func costliestZones() Genome {
	return Genome{Game: ssd.Cleanup,
		Harvest: Harvest{Kind: Zones, Zones: ZonesParams{Refine: maxRefine, Match: true, Share: true, Timed: true,
			Tour: true, Roam: maxSteps, Wait: true}},
		Aggression: Aggression{Kind: Never},
		Cleaning: Cleaning{Kind: Adaptive, Adaptive: AdaptiveParams{Low: 0.05, High: 0.1, Few: 1, Some: 5, Many: 9,
			Roles: RoleParams{ByRiver: true, Radius: 1, MinWaste: 1, Split: true, Stay: true}}}}
}

// compile renders g and compiles it for sb's backend.
func compile(t *testing.T, sb *sandbox.Sandbox, g Genome) *sandbox.Program {
	t.Helper()
	src, err := Render(g)
	if err != nil {
		t.Fatal(err)
	}
	prog, err := sb.Compile(context.Background(), src)
	if err != nil {
		t.Fatalf("%s, genome %s: %v", sb.Backend(), headerJSON(t, g), err)
	}
	return prog
}

// costliest is the Cleanup genome that makes the most calls per step:
// every agent a searching cleaner with the widest radius, counting the
// waste of its own section of the river cell by cell, territorial
// aggression (apples times agents) and territory harvesting with slack.
func costliest() Genome {
	return Genome{Game: ssd.Cleanup,
		Harvest:    Harvest{Kind: Territory, Territory: TerritoryParams{Slack: maxSteps, Roam: maxSteps, Wait: true}},
		Aggression: Aggression{Kind: Territorial, Territorial: TerritorialParams{Reach: maxReach, Turn: true, Near: maxNear}},
		Cleaning: Cleaning{Kind: Fixed, Fixed: FixedParams{Cleaners: 10,
			Roles: RoleParams{ByRiver: true, Search: true, Radius: maxRadius, MinWaste: 1, Split: true, Stay: true}}}}
}
