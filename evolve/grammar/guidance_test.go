package grammar

import (
	"math/rand"
	"slices"
	"strings"
	"testing"

	"policyevolve/critic"
	"policyevolve/envs/ssd"
)

func TestParseGuidance(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		game       ssd.Game
		want       string // canonical form; "" with err set
		err        string
	}{
		{name: "empty", text: "\n  \n", game: ssd.Gathering, want: ""},
		{name: "canonical order", game: ssd.Cleanup,
			text: "less: aggression.Reach\ncleaning: adaptive, fixed\n# split the river\nHarvest: strips , territory, strips\nmore: harvest.Avoid, cleaning.Cleaners",
			want: "# split the river\nharvest: territory, strips\ncleaning: fixed, adaptive\nmore: cleaning.Cleaners, harvest.Avoid\nless: aggression.Reach"},
		{name: "no colon", text: "be nice", game: ssd.Gathering, err: `line 1: "be nice" is not "key: values"`},
		{name: "unknown key", text: "\nharvesting: nearest", game: ssd.Gathering, err: `line 2: unknown key "harvesting" (want harvest, aggression, more or less)`},
		{name: "unknown kind", text: "aggression: sometimes", game: ssd.Gathering, err: `unknown aggression kind "sometimes"`},
		{name: "cleaning in gathering", text: "cleaning: fixed", game: ssd.Gathering, err: "gathering has no cleaning module"},
		{name: "gathering parameter", text: "more: cleaning.Cleaners", game: ssd.Gathering, err: `has no parameter "cleaning.Cleaners"`},
		{name: "both ways", text: "more: harvest.Roam\nless: harvest.Roam", game: ssd.Gathering, err: "harvest.Roam is pushed both up and down"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, err := ParseGuidance(tc.text, tc.game)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := g.String(); got != tc.want {
				t.Fatalf("got\n%s\nwant\n%s", got, tc.want)
			}
			again, err := ParseGuidance(g.String(), tc.game)
			if err != nil || again.String() != g.String() {
				t.Fatalf("the canonical form does not read back: %v\n%s", err, again)
			}
		})
	}
}

// TestRandomGuidedFollowsThePrior: the kinds come from the guidance's
// lists, pushed parameters from their half of the range, and the genome
// is valid.
func TestRandomGuidedFollowsThePrior(t *testing.T) {
	const seed = 11
	t.Logf("seed: %d", seed)
	g, err := ParseGuidance("harvest: territory, strips\naggression: never\ncleaning: fixed\nmore: cleaning.Cleaners, cleaning.Search\nless: harvest.Roam", ssd.Cleanup)
	if err != nil {
		t.Fatal(err)
	}
	s := Space{Agents: 10}
	rng := rand.New(rand.NewSource(seed))
	kinds := map[string]bool{}
	for i := 0; i < 200; i++ {
		gn := RandomGuided(ssd.Cleanup, s, g, rng)
		if err := gn.Validate(s); err != nil {
			t.Fatal(err)
		}
		kinds[gn.Harvest.Kind] = true
		if gn.Aggression.Kind != Never || gn.Cleaning.Kind != Fixed || gn.Harvest.Kind == Nearest {
			t.Fatalf("genome %d outside the prior: %+v", i, gn)
		}
		if c := gn.Cleaning.Fixed.Cleaners; c < 5 || !gn.Cleaning.Fixed.Roles.Search {
			t.Fatalf("genome %d: cleaners %d, search %v: want the upper half and true", i, c, gn.Cleaning.Fixed.Roles.Search)
		}
		roam := gn.Harvest.Territory.Roam
		if gn.Harvest.Kind == Strips {
			roam = gn.Harvest.Strips.Roam
		}
		if roam > maxSteps/2 {
			t.Fatalf("genome %d: roam %d, want the lower half", i, roam)
		}
	}
	if !kinds[Territory] || !kinds[Strips] {
		t.Errorf("both allowed harvest kinds should be drawn: %v", kinds)
	}
	a := RandomGuided(ssd.Cleanup, s, g, rand.New(rand.NewSource(seed)))
	b := RandomGuided(ssd.Cleanup, s, g, rand.New(rand.NewSource(seed)))
	if a != b {
		t.Error("the same seed drew different genomes")
	}
}

func TestPerturbAlwaysChanges(t *testing.T) {
	const seed = 3
	t.Logf("seed: %d", seed)
	rng := rand.New(rand.NewSource(seed))
	for _, game := range []ssd.Game{ssd.Gathering, ssd.Cleanup} {
		g := &Guidance{}
		for i := 0; i < 100; i++ {
			next, what := g.Perturb(game, rng)
			if next.String() == g.String() || what == "" {
				t.Fatalf("%s step %d: no change (%q) from\n%s", game, i, what, g)
			}
			if _, err := ParseGuidance(next.String(), game); err != nil {
				t.Fatalf("%s step %d: %v\n%s", game, i, err, next)
			}
			g = next
		}
	}
}

// TestGuidanceFromTheCritic: diagnostics of a starved river point the
// guidance to more cleaners, and its Bias leans the same way.
func TestGuidanceFromTheCritic(t *testing.T) {
	d := &critic.Diagnostics{Cleanup: &critic.Cleanup{AtThreshold: 0.6, Threshold: 0.4}}
	g := GuidanceFrom(BiasFrom(d), ssd.Cleanup)
	if g == nil || !slices.Contains(g.More, "cleaning.Cleaners") || !slices.Equal(g.Kinds["cleaning"], []string{Fixed, Adaptive}) || len(g.Notes) == 0 {
		t.Fatalf("guidance %+v", g)
	}
	if GuidanceFrom(nil, ssd.Cleanup) != nil {
		t.Error("no bias should give no guidance")
	}
	b := g.Bias()
	if b.direction("cleaning.Cleaners") != 1 || !b.prefers("cleaning", Adaptive) || b.familyWeight("cleaning") != 2 {
		t.Errorf("bias %+v", b)
	}
	parent, _ := ParseGuidance("cleaning: none\nless: cleaning.Cleaners\nmore: harvest.Roam", ssd.Cleanup)
	m := parent.Merge(g)
	if slices.Contains(m.Less, "cleaning.Cleaners") || !slices.Contains(m.More, "harvest.Roam") || m.Kinds["cleaning"][0] != Fixed {
		t.Errorf("merge:\n%s", m)
	}
	if (&Guidance{}).Bias() != nil {
		t.Error("the empty guidance should give the nil Bias")
	}
}

func FuzzParseGuidance(f *testing.F) {
	f.Add("harvest: strips\nmore: harvest.Roam", true)
	f.Add("# note\ncleaning: fixed, adaptive\nless: cleaning.Hold", false)
	f.Add("aggression:", true)
	f.Fuzz(func(t *testing.T, text string, gathering bool) {
		game := ssd.Cleanup
		if gathering {
			game = ssd.Gathering
		}
		g, err := ParseGuidance(text, game)
		if err != nil {
			return
		}
		again, err := ParseGuidance(g.String(), game)
		if err != nil {
			t.Fatalf("the canonical form of %q does not read: %v\n%s", text, err, g)
		}
		if again.String() != g.String() {
			t.Fatalf("not a fixed point:\n%s\n---\n%s", g, again)
		}
	})
}
