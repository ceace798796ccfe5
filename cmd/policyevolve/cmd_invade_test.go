package main

import (
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"
)

// selfPlayReturn is a policy's mean per-agent return in self-play, as
// play reports it.
func selfPlayReturn(t *testing.T, policy string, env ...string) float64 {
	t.Helper()
	out, _ := cli(t, append([]string{"play", "--policy", policy, "--seeds", "0-1", "--json"}, env...)...)
	var rep struct {
		Episodes []struct {
			Returns []float64 `json:"returns"`
		} `json:"episodes"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("play --json: %v\n%s", err, out)
	}
	sum, n := 0.0, 0
	for _, e := range rep.Episodes {
		for _, r := range e.Returns {
			sum += r
			n++
		}
	}
	return sum / float64(n)
}

// TestInvadeEnds: k = 0 is the residents' self-play and k = N the
// invaders', as play measures them (a sandboxed source invading a
// built-in); in between the sides' returns add up to the episode's.
func TestInvadeEnds(t *testing.T) {
	env := []string{"--game", "gathering", "--map", "small", "--agents", "4", "--steps", "150"}
	src := filepath.Join("..", "..", "examples", "policies", "voronoi.go")
	out, _ := cli(t, append([]string{"invade", src, "bfs", "--k", "0-4", "--seeds", "0-1", "--json", "--step-timeout", "5s"}, env...)...)
	var rep invadeReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(rep.Rows) != 5 {
		t.Fatalf("rows %+v", rep.Rows)
	}
	selfA, selfB := selfPlayReturn(t, src, env...), selfPlayReturn(t, "bfs", env...)
	near := func(x, y float64) bool { return math.Abs(x-y) < 1e-9 }
	if r := rep.Rows[0]; r.A.Agents != 0 || r.B.Agents != 4 || !near(r.B.Return, selfB) || !near(rep.SelfB, selfB) {
		t.Errorf("k = 0: %+v, self-play B %v; play says %v", r, rep.SelfB, selfB)
	}
	if r := rep.Rows[4]; r.A.Agents != 4 || r.B.Agents != 0 || !near(r.A.Return, selfA) || !near(rep.SelfA, selfA) {
		t.Errorf("k = 4: %+v, self-play A %v; play says %v", r, rep.SelfA, selfA)
	}
	for _, r := range rep.Rows[1:4] {
		if r.A.Agents != r.K || r.B.Agents != 4-r.K {
			t.Errorf("k = %d: %+v", r.K, r)
		}
	}
	if rep.Names[0] != src || rep.Names[1] != "bfs" {
		t.Errorf("names %v", rep.Names)
	}
	text, _ := cli(t, append([]string{"invade", "exploit", "bfs", "--k", "all", "--seeds", "0"}, env...)...)
	if !strings.Contains(text, "exploit (A) invading bfs (B)") || strings.Count(text, "\n  ") < 3 {
		t.Errorf("text report:\n%s", text)
	}
}

func TestInvadeBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"invade", "bfs"}, "want two policy"},
		{[]string{"invade", "bfs", "coop", "--k", "11"}, "--k: 11 invaders, but only 10 agents"},
		{[]string{"invade", "bfs", "coop", "--k", "x"}, "--k:"},
		{[]string{"invade", "bfs", "nosuch.go"}, "nosuch.go"},
	} {
		code, _, errOut := runCLI(t, t.Context(), tc.args...)
		if code != 2 && code != 1 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, %q; want %q", tc.args, code, errOut, tc.want)
		}
	}
}
