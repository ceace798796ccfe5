package main

import (
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"policyevolve/evolve/arena"
)

// TestTransfer: a policy plays every built-in map of its game and the
// extra map files; each row equals what play measures on that map.
func TestTransfer(t *testing.T) {
	ar := writeFile(t, "arena.txt", "@@@@@@@@\n@P A  P@\n@ AAA  @\n@P A  P@\n@@@@@@@@\n")
	env := []string{"--game", "gathering", "--agents", "4", "--steps", "120"}
	out, _ := cli(t, append([]string{"transfer", "bfs", "--seeds", "0-1", "--transfer-map", ar, "--json"}, env...)...)
	var rep struct {
		Home string              `json:"evolved_on"`
		Rows []arena.TransferRow `json:"rows"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var maps []string
	for _, r := range rep.Rows {
		maps = append(maps, r.Map)
		play, _ := cli(t, append([]string{"play", "--policy", "bfs", "--seeds", "0-1", "--map", r.Map, "--json"}, env...)...)
		var p struct {
			Episodes []struct {
				Metrics struct{ Efficiency float64 } `json:"metrics"`
			} `json:"episodes"`
		}
		if err := json.Unmarshal([]byte(play), &p); err != nil {
			t.Fatal(err)
		}
		want := (p.Episodes[0].Metrics.Efficiency + p.Episodes[1].Metrics.Efficiency) / 2
		if r.Seeds != 2 || math.Abs(r.Metrics.Efficiency-want) > 1e-9 {
			t.Errorf("%s: %+v, play says efficiency %v", r.Map, r, want)
		}
	}
	if strings.Join(maps, " ") != "default large small "+ar || rep.Home != "large" {
		t.Errorf("maps %v, evolved on %q", maps, rep.Home)
	}
	text, _ := cli(t, append([]string{"transfer", "coop", "--seeds", "0"}, env...)...)
	if !strings.Contains(text, "large (evolved on)") {
		t.Errorf("text:\n%s", text)
	}
	code, _, errOut := runCLI(t, t.Context(), "transfer", "bfs", "--transfer-map", filepath.Join(t.TempDir(), "none.txt"))
	if code != 2 || !strings.Contains(errOut, "--transfer-map") {
		t.Errorf("missing map file: exit %d, %s", code, errOut)
	}
}
