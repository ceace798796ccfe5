package prompts

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"policyevolve/critic"
	"policyevolve/envs"
	"policyevolve/envs/ssd"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./evolve/planner/prompts -update)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from %s (run with -update if the change is meant):\n%s", name, path, firstDiff(string(want), got))
	}
}

func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) || i < len(bl); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return "line " + strconv.Itoa(i+1) + ":\n  want: " + x + "\n  got:  " + y
		}
	}
	return ""
}

func game(t *testing.T, g ssd.Game, mapName string) Game {
	t.Helper()
	m, err := envs.BuiltinMap(g, mapName)
	if err != nil {
		t.Fatal(err)
	}
	gm, err := NewGame(m, 10, 1000)
	if err != nil {
		t.Fatal(err)
	}
	return gm
}

const parentSrc = "package policy\n\nimport \"ssd\"\n\nfunc Policy(v *ssd.View, agent int) int { return v.GreedyAction(agent) }"

func policies() (parent Policy, history, inspirations []Policy) {
	history = []Policy{
		{Name: "iteration-0", Source: "…", Iteration: 0, HasEval: true, Reward: 1.78, Efficiency: 1.9018, Equality: 0.3458, Sustainability: 180.38, Peace: 10},
		{Name: "iteration-1", Source: parentSrc, Iteration: 1, HasEval: true, Reward: 2.5, Efficiency: 2.5, Equality: 0.61, Sustainability: 301.2, Peace: 9.2, Failed: "seed 3: timeout at step 17 (agent 2)"},
	}
	parent = history[1]
	parent.Elo, parent.Rated = 1234, true
	inspirations = []Policy{
		{Name: "voronoi", Source: "package policy // voronoi", HasEval: true, Reward: 3.1, Efficiency: 3.1, Equality: 0.8, Sustainability: 420, Peace: 10, Elo: 1302, Rated: true},
		{Name: "exploit", Source: "package policy // exploit", HasEval: true, Reward: 1.2, Efficiency: 1.2, Equality: 0.2, Sustainability: 150, Peace: 7.5, Elo: 1250, Rated: true},
	}
	return parent, history, inspirations
}

// TestGolden renders every prompt and compares it with its golden file.
func TestGolden(t *testing.T) {
	s, err := Load("")
	if err != nil {
		t.Fatal(err)
	}
	gath, clean := game(t, ssd.Gathering, "large"), game(t, ssd.Cleanup, "default")
	parent, history, insp := policies()
	reflections := []critic.Reflection{
		{Code: "waste-high", Text: "The river stayed above 40% waste for 610 of 1000 steps: nobody cleaned, so no apple regrew.", Stake: 2},
		{Code: "idle", Text: "Agents stood still 35% of the time waiting for apples.", Stake: 1},
	}
	render := map[string]func() (string, error){
		"system-adversarial": func() (string, error) {
			g := gath
			g.Adversarial = true
			return s.System(g)
		},
		"improve-cot": func() (string, error) {
			g := gath
			g.Style = StyleCoT
			return s.Improve(ImproveData{Game: g, Iteration: 2, Iterations: 3, Dense: true, Parent: parent, History: history})
		},
		"react-turn": func() (string, error) { return s.React(ReactData{Turn: 1, Left: 2}) },
		"react-last": func() (string, error) { return s.React(ReactData{Turn: 3, Left: 0}) },
		"improve-sparse": func() (string, error) {
			return s.Improve(ImproveData{Game: gath, Iteration: 2, Iterations: 3, Parent: parent, History: history})
		},
		"improve-dense": func() (string, error) {
			return s.Improve(ImproveData{Game: clean, Iteration: 2, Iterations: 3, Dense: true, Parent: parent, History: history})
		},
		"improve-critic-population": func() (string, error) {
			return s.Improve(ImproveData{Game: clean, Dense: true, Parent: parent, Inspirations: insp, Reflections: reflections})
		},
		"improve-raw": func() (string, error) {
			return s.Improve(ImproveData{Game: clean, Dense: true, Parent: parent,
				Excerpt: "seed 0, 2 agents, 1000 steps recorded; per agent: action reward position\nstep 0: 0:forward 0 (3,4) 1:clean -1 (5,6) | reward -1, apples 0/40, waste 30/60\n"})
		},
		"crossover": func() (string, error) {
			return s.Crossover(CrossoverData{Game: gath, Dense: true, A: insp[0], B: insp[1]})
		},
		"guidance": func() (string, error) {
			return s.Guidance(GuidanceData{Game: gath, Guidance: "Split the map into strips by agent id.\nNever fire the beam."})
		},
		"reflect-sparse": func() (string, error) {
			return s.Reflect(ReflectData{Game: gath, Policy: parent, Mean: 2.25, Seeds: []SeedScore{
				{Seed: 0, Reward: 2.5}, {Seed: 1, Reward: 2}, {Seed: 2, Failed: "timeout at step 17 (agent 2)"}}})
		},
		"reflect-critic": func() (string, error) {
			return s.Reflect(ReflectData{Game: clean, Guidance: "Two agents clean the river; the others harvest.",
				Problem: "no ```go code block in the answer", Mean: 0, Dense: true, Reflections: reflections,
				Seeds: []SeedScore{{Seed: 3, Reward: 0.5, Efficiency: 0.05, Equality: 0.9, Sustainability: 400, Peace: 10}}})
		},
	}
	// A system message and a first prompt per game and prompt style.
	for _, g := range []Game{gath, clean} {
		for _, style := range []string{StyleStandard, StyleNaive, StyleCoT, StyleReact} {
			g := g
			g.Style = style
			name := g.Name + "-" + style
			if style == StyleStandard {
				name = g.Name + "-standard"
			}
			render["system-"+name] = func() (string, error) { return s.System(g) }
			render["init-"+name] = func() (string, error) { return s.Init(InitData{Game: g, Iteration: 0, Iterations: 3}) }
		}
	}
	for _, kind := range []string{"missing", "invalid", "nondeterministic", "slow", "runtime"} {
		kind := kind
		render["fix-"+kind] = func() (string, error) {
			return s.Fix(FixData{Game: clean, Kind: kind, Summary: "the policy failed (" + kind + ")",
				Error: "policy.go:7:2: undefined: ssd.Foo", Attempt: 1, MaxAttempts: 3})
		}
	}
	for name, fn := range render {
		t.Run(name, func(t *testing.T) {
			got, err := fn()
			if err != nil {
				t.Fatal(err)
			}
			golden(t, name, got)
		})
	}
}

// frozen compares got with a golden file that -update never rewrites: the
// words of requests recorded in ledgers of the past.
func frozen(t *testing.T, name, got string) {
	t.Helper()
	want, err := os.ReadFile(filepath.Join("testdata", name+".golden"))
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("%s differs from what the prompts said before they were per game:\n%s", name, firstDiff(string(want), got))
	}
}

// TestLegacyPromptsUnchanged: LegacyGame renders the system messages and
// the fix paragraph exactly as they were before the prompts were built
// per game (the golden files of that time, which -update leaves alone),
// so that a run recorded then finds its answers under the same requests.
func TestLegacyPromptsUnchanged(t *testing.T) {
	s, err := Load("")
	if err != nil {
		t.Fatal(err)
	}
	legacy := func(g Game) Game {
		l, err := g.LegacyGame()
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	gath, clean := legacy(game(t, ssd.Gathering, "large")), legacy(game(t, ssd.Cleanup, "default"))
	for name, g := range map[string]Game{"legacy-system-gathering": gath, "legacy-system-cleanup": clean} {
		got, err := s.System(g)
		if err != nil {
			t.Fatal(err)
		}
		frozen(t, name, got)
	}
	got, err := s.Fix(FixData{Game: clean, Kind: "invalid", Summary: "the policy failed (invalid)",
		Error: "policy.go:7:2: undefined: ssd.Foo", Attempt: 1, MaxAttempts: 3})
	if err != nil {
		t.Fatal(err)
	}
	frozen(t, "legacy-fix-invalid", got)
}

// TestPromptsPerGame: a Gathering system message names nothing only
// Cleanup has (no river, no waste, no clean beam), and a Cleanup one
// nothing only Gathering has; each names what its own game has. The
// lists are written out here, apart from the marks in package ssd that
// decide what the prompts show.
func TestPromptsPerGame(t *testing.T) {
	s, err := Load("")
	if err != nil {
		t.Fatal(err)
	}
	cleanupOnly := []string{"Clean", "CleanBeamCount", "IsRiver", "IsStream", "NumWaste", "RiverCells", "StreamCells",
		"WasteAt", "WasteCells", "WasteDensity", "FireCost", "FirePenalty", "CleanCost", "ThresholdDepletion",
		"ThresholdRestoration", "WasteSpawnProb", "AppleRespawnProb", "CLEAN", "waste", "river"}
	gatheringOnly := []string{"AppleRespawnTime"}
	word := func(w string) *regexp.Regexp { return regexp.MustCompile(`\b` + regexp.QuoteMeta(w) + `\b`) }
	for _, style := range []string{StyleStandard, StyleNaive, StyleCoT, StyleReact} {
		for _, tc := range []struct {
			g          ssd.Game
			mapName    string
			has, hasnt []string
		}{
			{ssd.Gathering, "large", gatheringOnly, cleanupOnly},
			{ssd.Cleanup, "default", cleanupOnly, gatheringOnly},
		} {
			g := game(t, tc.g, tc.mapName)
			g.Style = style
			sys, err := s.System(g)
			if err != nil {
				t.Fatal(err)
			}
			ini, err := s.Init(InitData{Game: g, Iterations: 3})
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.hasnt {
				if word(w).MatchString(sys) || word(w).MatchString(ini) {
					t.Errorf("%s %q: the prompts name %s, which only the other game has", tc.g, style, w)
				}
			}
			for _, w := range tc.has {
				if !word(w).MatchString(sys) {
					t.Errorf("%s %q: the system message lacks %s", tc.g, style, w)
				}
			}
		}
	}
}

// TestNumbersComeFromTheMap: a prompt for another map and agent count
// says so; nothing about the map is typed into the templates.
func TestNumbersComeFromTheMap(t *testing.T) {
	s, err := Load("")
	if err != nil {
		t.Fatal(err)
	}
	m, err := envs.ParseMap(ssd.Gathering, "tiny", "@@@@@@@\n@P A A@\n@ A P @\n@@@@@@@\n")
	if err != nil {
		t.Fatal(err)
	}
	g, err := NewGame(m, 2, 77)
	if err != nil {
		t.Fatal(err)
	}
	sys, _ := s.System(g)
	ini, _ := s.Init(InitData{Game: g})
	for _, want := range []string{"7 cells wide and 4 high", "2 agents play at once, for 77 steps", "3 apple spawn cells"} {
		if !strings.Contains(sys, want) {
			t.Errorf("system prompt lacks %q", want)
		}
	}
	if !strings.Contains(ini, "2 agents on a 7x4 map with 3 apple spawns") {
		t.Errorf("init prompt lacks the map's numbers:\n%s", ini)
	}
	for _, name := range Names {
		text, _ := embedded.ReadFile("templates/" + name)
		for _, n := range []string{"38", "16x", "155", " 25 ", "1000"} {
			if strings.Contains(string(text), n) {
				t.Errorf("template %s has the number %q typed in", name, n)
			}
		}
	}
}

// TestAPIListsEveryPolicyName: every exported name of ssd a policy may
// use appears in the generated API.
func TestAPIListsEveryPolicyName(t *testing.T) {
	a, err := API(ssd.Cleanup)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"func (v *View) BFSNearestApple", "func (v *View) Voronoi", "func (v *View) CleanBeamCount",
		"func (v *View) WasteDensity", "func DirectionToAction", "func RotationDistance", "type Opponent struct",
		"Clean       = 8", "const Unreachable = -1", "type Params struct"} {
		if !strings.Contains(a, name) {
			t.Errorf("API lacks %q", name)
		}
	}
	for _, name := range []string{"NewView", "func (v *View) Update", "HashState", "type State", "type Layout", "seenGen"} {
		if strings.Contains(a, name) {
			t.Errorf("API shows host-only %q", name)
		}
	}
}

func TestExampleIsTheBFSPolicy(t *testing.T) {
	want, err := os.ReadFile("../../../examples/policies/bfs.go")
	if err != nil {
		t.Fatal(err)
	}
	if bfsExample != string(want) {
		t.Error("templates/bfs_example.go.txt differs from examples/policies/bfs.go: copy it over")
	}
}

func TestActionsMatchSSD(t *testing.T) {
	g := game(t, ssd.Cleanup, "default")
	want := map[string]int{"ssd.Forward": ssd.Forward, "ssd.Backward": ssd.Backward, "ssd.StepLeft": ssd.StepLeft,
		"ssd.StepRight": ssd.StepRight, "ssd.RotateLeft": ssd.RotateLeft, "ssd.RotateRight": ssd.RotateRight,
		"ssd.Beam": ssd.Beam, "ssd.Stand": ssd.Stand, "ssd.Clean": ssd.Clean}
	if len(g.Actions) != 9 {
		t.Fatalf("%d actions", len(g.Actions))
	}
	for _, a := range g.Actions {
		if want[a.Const] != a.Value || funcs["action"].(func(int) string)(a.Value) != a.Const {
			t.Errorf("%s = %d", a.Const, a.Value)
		}
	}
}

func TestOverride(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "init.tmpl"), []byte("Write a policy for {{.Game.Agents}} agents.{{template \"instructions\" .}}"), 0o644)
	s, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Init(InitData{Game: game(t, ssd.Gathering, "large")})
	if err != nil || !strings.HasPrefix(got, "Write a policy for 10 agents.") || !strings.Contains(got, "## Instructions") {
		t.Errorf("%q %v", got, err)
	}
	if sys, _ := s.System(game(t, ssd.Gathering, "large")); !strings.Contains(sys, "## The game") {
		t.Error("the templates not overridden were lost")
	}
	os.WriteFile(filepath.Join(dir, "inti.tmpl"), []byte("typo"), 0o644)
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "unknown template inti.tmpl") {
		t.Errorf("a misnamed override: %v", err)
	}
	os.Remove(filepath.Join(dir, "inti.tmpl"))
	os.WriteFile(filepath.Join(dir, "fix.tmpl"), []byte("{{.Nope"), 0o644)
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "fix.tmpl") {
		t.Errorf("a broken override: %v", err)
	}
	if _, err := Load(filepath.Join(dir, "none")); err == nil {
		t.Error("a missing folder was accepted")
	}
}
