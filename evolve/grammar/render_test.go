package grammar

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"policyevolve/envs/ssd"
	"policyevolve/sandbox"
)

var space10 = Space{Agents: 10}

// randomGenomes draws n genomes per game from seed.
func randomGenomes(seed int64, n int) []Genome {
	rng := rand.New(rand.NewSource(seed))
	var out []Genome
	for i := 0; i < n; i++ {
		for _, game := range []ssd.Game{ssd.Gathering, ssd.Cleanup} {
			out = append(out, Random(game, space10, rng))
		}
	}
	return out
}

// propertyCount is how many genomes per game the property test renders
// and validates: POLICYEVOLVE_GRAMMAR_GENOMES overrides it.
func propertyCount(t *testing.T, def int) int {
	if s := os.Getenv("POLICYEVOLVE_GRAMMAR_GENOMES"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("POLICYEVOLVE_GRAMMAR_GENOMES=%q: want a positive count", s)
		}
		return n
	}
	return def
}

// TestEveryGenomeValidates renders seeded random genomes and checks that
// each passes the sandbox's validation (parse, allowed imports, type
// check against the ssd API, the signature), renders the same bytes twice,
// and parses back to itself.
func TestEveryGenomeValidates(t *testing.T) {
	const seed = 20261123
	n := propertyCount(t, 60)
	t.Logf("seed: %d, %d genomes per game", seed, n)
	kinds := map[string]bool{}
	for i, g := range randomGenomes(seed, n) {
		if err := g.Validate(space10); err != nil {
			t.Fatalf("genome %d: Random made an invalid genome: %v", i, err)
		}
		src, err := Render(g)
		if err != nil {
			t.Fatalf("genome %d %s: %v", i, headerJSON(t, g), err)
		}
		if _, err := sandbox.Validate(src); err != nil {
			t.Fatalf("genome %d %s does not validate: %v\n%s", i, headerJSON(t, g), err, src)
		}
		again, _ := Render(g)
		if !bytes.Equal(src, again) {
			t.Fatalf("genome %d renders differently twice", i)
		}
		back, err := Parse(src)
		if err != nil {
			t.Fatalf("genome %d: Parse(Render(g)): %v", i, err)
		}
		if *back != g.Canonical() {
			t.Fatalf("genome %d: round trip gives %+v, want %+v", i, *back, g.Canonical())
		}
		kinds[g.Harvest.Kind], kinds[g.Aggression.Kind], kinds[g.Cleaning.Kind] = true, true, true
	}
	for f, ks := range Kinds {
		for _, k := range ks {
			if !kinds[k] {
				t.Errorf("no genome drawn with %s kind %s: draw more", f, k)
			}
		}
	}
}

func headerJSON(t *testing.T, g Genome) string {
	t.Helper()
	js, err := g.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return string(js)
}

// TestRenderIsReadable: the source states the strategy in words, keeps
// the library's comments, and holds only the chosen modules.
func TestRenderIsReadable(t *testing.T) {
	g := Genome{Game: ssd.Cleanup,
		Harvest:    Harvest{Kind: Strips, Strips: StripsParams{Rows: true, Overlap: 2, Roam: 3}},
		Aggression: Aggression{Kind: Never},
		Cleaning:   Cleaning{Kind: Fixed, Fixed: FixedParams{Cleaners: 2, Roles: RoleParams{Search: true, Radius: 3, MinWaste: 2, Hold: 10}}}}
	src, err := Render(g)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.ReplaceAll(string(src), "\n//     ", " ") // unwrap the description
	for _, want := range []string{
		fmt.Sprintf("// genome: {\"v\":%d,\"game\":\"cleanup\"", Version),
		"harvesting: own strip of rows by agent id first (widened by 2 on each side)",
		"aggression: never beam",
		"cleaning: 2 cleaners, chosen lowest ids",
		"var harvest = StripsParams{",
		"Overlap: 2,",
		"var cleaning = FixedParams{",
		"func (k *kit) harvestStrips(",
		"func (k *kit) cleanSearch(",
		"// strips cuts the apple spawns",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("rendered source lacks %q", want)
		}
	}
	for _, absent := range []string{"harvestTerritory", "aggressOpportunistic", "cleanAdaptive", "var aggression"} {
		if strings.Contains(s, absent) {
			t.Errorf("rendered source holds %q, which the genome does not use", absent)
		}
	}
}

// TestParseRefuses: a source that is not exactly a rendered genome is
// recognised, with an error that says why.
func TestParseRefuses(t *testing.T) {
	g := randomGenomes(7, 1)[1]
	src, err := Render(g)
	if err != nil {
		t.Fatal(err)
	}
	bfs, err := os.ReadFile(filepath.Join("..", "..", "examples", "policies", "bfs.go"))
	if err != nil {
		t.Fatal(err)
	}
	line := func(prefix string) string {
		for _, l := range strings.Split(string(src), "\n") {
			if strings.HasPrefix(l, prefix) {
				return l
			}
		}
		t.Fatalf("no line %q", prefix)
		return ""
	}
	header := line(HeaderPrefix)
	v := fmt.Sprintf(`{"v":%d,`, Version)
	edited := strings.Replace(string(src), "k.begin(v, agent)\n", "k.begin(v, agent) // mine\n", 1)
	cases := []struct {
		name, src, want string
	}{
		{"foreign", string(bfs), `no "// genome:" line above the package clause`},
		{"edited", edited, "differs from its genome's rendering at line"},
		{"bad json", strings.Replace(string(src), header, HeaderPrefix+v, 1), "malformed genome line"},
		{"unknown kind", strings.Replace(string(src), `"kind":"`+g.Harvest.Kind+`"`, `"kind":"spiral"`, 1), `unknown harvest kind "spiral"`},
		{"unknown field", strings.Replace(string(src), v, v+`"x":2,`, 1), "unknown field"},
		{"other version", strings.Replace(string(src), v, `{"v":7,`, 1), "genome version 7"},
		{"empty", "", "no \"// genome:\" line"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse([]byte(c.src))
			if !errors.Is(err, ErrNotGenome) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Parse: %v, want ErrNotGenome saying %q", err, c.want)
			}
		})
	}
	// A parameter out of range is refused even when the rest is intact.
	bad := g
	bad.Harvest.Kind = Territory
	bad.Harvest.Territory = TerritoryParams{Slack: 99}
	js := headerJSON(t, bad)
	_, err = Parse([]byte(strings.Replace(string(src), header, HeaderPrefix+js, 1)))
	if !errors.Is(err, ErrNotGenome) || !strings.Contains(err.Error(), "harvest.Slack = 99 is outside [0, 12]") {
		t.Fatalf("Parse of an out-of-range genome: %v", err)
	}
}

// FuzzParse: Parse never panics, and whatever it accepts renders back to
// exactly the input.
func FuzzParse(f *testing.F) {
	for _, g := range randomGenomes(3, 2) {
		src, err := Render(g)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src)
	}
	f.Add([]byte(HeaderPrefix + "{}\npackage policy\n"))
	f.Add([]byte("package policy\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		g, err := Parse(src)
		if err != nil {
			if !errors.Is(err, ErrNotGenome) {
				t.Fatalf("error %v does not wrap ErrNotGenome", err)
			}
			return
		}
		out, err := Render(*g)
		if err != nil || !bytes.Equal(out, src) {
			t.Fatalf("accepted a source that does not render back: %v", err)
		}
	})
}

// TestDocumentedPolicyRendersAlike: the grammar policy docs/_policies
// shows (and docs/evolution.md measures) is what the grammar renders for
// its genome line today: a change to the library's text, comments
// included, changes every grammar policy's source and so its id, and the
// documented runs would no longer reproduce.
func TestDocumentedPolicyRendersAlike(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "docs", "_policies", "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no documented policy (%v)", err)
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		g, err := Parse(src)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		again, err := Render(*g)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(again, src) {
			t.Errorf("%s is not what the grammar renders for its genome today", f)
		}
	}
}
