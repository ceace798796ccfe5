package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// scenarioEnv is a tiny Gathering, cheap enough for golden tables.
var scenarioEnv = []string{"--game", "gathering", "--map", "small", "--agents", "4", "--steps", "100", "--seeds", "0-1"}

// TestScenariosGolden: the default suite's table for two built-ins.
// go test ./cmd/policyevolve -run ScenariosGolden -update rewrites it.
func TestScenariosGolden(t *testing.T) {
	for _, focal := range []string{"bfs", "coop"} {
		t.Run(focal, func(t *testing.T) {
			got, _ := cli(t, append([]string{"scenarios", focal}, scenarioEnv...)...)
			golden := filepath.Join("testdata", "scenarios", "gathering_small_"+focal+".golden")
			if *update {
				os.MkdirAll(filepath.Dir(golden), 0o755)
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (go test ./cmd/policyevolve -run ScenariosGolden -update writes it)", err)
			}
			if !bytes.Equal([]byte(got), want) {
				t.Errorf("differs from %s; got:\n%s", golden, got)
			}
		})
	}
}

// TestScenariosSuiteFile: a suite file with a sandboxed source as the
// background; the JSON agrees with invade on the same seating.
func TestScenariosSuiteFile(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join("..", "..", "examples", "policies", "exploit.go")
	suite := filepath.Join(dir, "beamers.toml")
	text := "[[scenario]]\nbackground = " + strconvQuote(src) + "\nmode = \"resident\"\nk = 1\nname = \"one beamer\"\n"
	if err := os.WriteFile(suite, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _ := cli(t, append([]string{"scenarios", "bfs", "--suite", suite, "--json", "--step-timeout", "5s"}, scenarioEnv...)...)
	var rep scenariosReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if rep.Suite.Name != "beamers" || len(rep.Results) != 1 || rep.Results[0].Scenario.Label() != "one beamer" {
		t.Fatalf("report %+v", rep.Report)
	}
	inv, _ := cli(t, append([]string{"invade", src, "bfs", "--k", "1", "--json", "--step-timeout", "5s"}, scenarioEnv...)...)
	var ir invadeReport
	if err := json.Unmarshal([]byte(inv), &ir); err != nil {
		t.Fatalf("%v\n%s", err, inv)
	}
	r := rep.Results[0]
	if r.Focal != ir.Rows[0].B || r.Background != ir.Rows[0].A || rep.SelfPlay != ir.SelfB {
		t.Errorf("scenarios %+v (self-play %v), invade %+v (self-play %v)", r, rep.SelfPlay, ir.Rows[0], ir.SelfB)
	}
}

func strconvQuote(s string) string { b, _ := json.Marshal(s); return string(b) }

func TestScenariosBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	badMode := write("mode.toml", "[[scenario]]\nbackground = \"bfs\"\nmode = \"guest\"\nk = 1\n")
	bigK := write("k.toml", "[[scenario]]\nbackground = \"bfs\"\nmode = \"visitor\"\nk = 4\n")
	unknown := write("unknown.toml", "[[scenario]]\nbackground = \"nosuch.go\"\nmode = \"visitor\"\nk = 1\n")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"scenarios"}, 2, "one policy"},
		{[]string{"scenarios", "bfs", "--suite", filepath.Join(dir, "none.toml")}, 2, "--suite"},
		{[]string{"scenarios", "bfs", "--suite", badMode}, 2, `mode "guest": want "resident" or "visitor"`},
		{[]string{"scenarios", "bfs", "--suite", bigK}, 2, "k = 4, but the episode has 4 agents"},
		{[]string{"scenarios", "bfs", "--suite", unknown}, 2, "nosuch.go"},
		{[]string{"scenarios", "bfs", "--seeds", "x"}, 2, "--seeds"},
	} {
		code, _, errOut := runCLI(t, t.Context(), append(tc.args, "--game", "gathering", "--map", "small", "--agents", "4", "--steps", "20")...)
		if code != tc.code || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, %q; want %d and %q", tc.args, code, errOut, tc.code, tc.want)
		}
	}
}

// TestScenariosDocumentedDefences: the defended champions docs/scenarios.md
// measures compile and play their game's scenarios (every defence on, so
// that each module runs), and the suite file it names parses.
func TestScenariosDocumentedDefences(t *testing.T) {
	dir := t.TempDir()
	suite := filepath.Join("..", "..", "docs", "_robust", "headline.toml")
	for game, settings := range map[string][]string{
		"gathering": {"Retaliate: true", "Turn: true", "Chase: 10", "Evade: 1", "Repartition: true", "Guard: 5", "Guards: 1"},
		"cleanup":   {"Strangers: true", "Evade: 2", "Guard: 12", "Sanction: 100"},
	} {
		t.Run(game, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join("..", "..", "docs", "_robust", game+".go"))
			if err != nil {
				t.Fatal(err)
			}
			text := string(src)
			for _, s := range settings {
				field, value, _ := strings.Cut(s, ": ")
				start := strings.Index(text, "\t"+field+":")
				if start < 0 {
					t.Fatalf("no setting %s", field)
				}
				end := start + strings.Index(text[start:], ",")
				text = text[:start] + "\t" + field + ": " + value + text[end:]
			}
			file := filepath.Join(dir, game+".go")
			if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			out, _ := cli(t, "scenarios", file, "--game", game, "--agents", "10", "--steps", "60", "--seeds", "0", "--suite", suite, "--json", "--step-timeout", "5s")
			var rep scenariosReport
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if len(rep.Results) != 3 || rep.Suite.Name != "headline" {
				t.Errorf("report %+v", rep.Report)
			}
		})
	}
}
