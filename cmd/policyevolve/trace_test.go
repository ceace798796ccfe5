package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"policyevolve/envs"
	"policyevolve/envs/ssd"
)

// replayTrace reads a trace file and replays every episode's actions
// through a fresh environment built from the header alone, comparing each
// recorded state, reward and return with the replay's. It also checks that
// the recorded events account for every reward. It returns the number of
// episodes and steps replayed.
func replayTrace(t *testing.T, path string) (episodes, steps int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	var env *envs.Env
	var p ssd.Params
	var st ssd.State
	line := 0
	for sc.Scan() {
		line++
		var kind struct{ Kind string }
		if err := json.Unmarshal(sc.Bytes(), &kind); err != nil {
			t.Fatalf("line %d: %v", line, err)
		}
		switch kind.Kind {
		case "header":
			var h traceHeader
			mustDecode(t, sc.Bytes(), &h)
			game, err := ssd.ParseGame(h.Game)
			if err != nil {
				t.Fatal(err)
			}
			m, err := envs.ParseMap(game, h.Map, h.MapText)
			if err != nil {
				t.Fatal(err)
			}
			p = ssd.Params(h.Params)
			env, err = envs.New(envs.Config{Map: m, Agents: h.Agents, MaxSteps: h.Steps, Params: &p})
			if err != nil {
				t.Fatal(err)
			}
			if h.Version != traceVersion || !slices.Equal(h.Apples, pairs(m.Apples)) {
				t.Fatalf("line %d: header %+v", line, h)
			}
			env.Reset(h.Seed)
			episodes++
		case "reset", "step":
			var s traceStep
			mustDecode(t, sc.Bytes(), &s)
			if kind.Kind == "step" {
				rew, err := env.Step(s.Actions)
				if err != nil {
					t.Fatalf("line %d: %v", line, err)
				}
				if !slices.Equal(rew, s.Rewards) {
					t.Fatalf("line %d: rewards %v, replay %v", line, s.Rewards, rew)
				}
				checkEvents(t, line, p, env.Game(), &s)
				steps++
			}
			env.Snapshot(&st)
			if d := diffState(&s, &st); d != "" {
				t.Fatalf("line %d (t=%d): %s", line, s.T, d)
			}
		case "end":
			var e traceEnd
			mustDecode(t, sc.Bytes(), &e)
			if e.Steps != env.StepCount() {
				t.Fatalf("line %d: end after %d steps, replay took %d", line, e.Steps, env.StepCount())
			}
		default:
			t.Fatalf("line %d: unknown kind %q", line, kind.Kind)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return episodes, steps
}

func mustDecode(t *testing.T, data []byte, v any) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%v: %s", err, data)
	}
}

// diffState compares a trace line with the replayed state.
func diffState(s *traceStep, st *ssd.State) string {
	alive := [][2]int{}
	for k, a := range st.AppleAlive {
		if a {
			alive = append(alive, [2]int{st.Layout.Apples[k].R, st.Layout.Apples[k].C})
		}
	}
	var waste [][2]int
	for k, w := range st.Waste {
		if w {
			waste = append(waste, [2]int{st.Layout.River[k].R, st.Layout.River[k].C})
		}
	}
	for _, f := range []struct {
		name      string
		got, want any
	}{
		{"t", s.T, st.Step}, {"pos", s.Pos, pairs(st.Pos)}, {"orient", s.Orient, st.Orient},
		{"timeout", s.Timeout, st.Timeout}, {"hits", s.Hits, st.Hits}, {"apples", s.Apples, alive}, {"waste", s.Waste, waste},
	} {
		if g, w := fmt.Sprint(f.got), fmt.Sprint(f.want); g != w {
			return fmt.Sprintf("%s: trace %s, replay %s", f.name, g, w)
		}
	}
	return ""
}

// checkEvents: each agent's reward is the apple it collected minus the
// cost of the beams it fired and the penalties of the beams that hit it.
func checkEvents(t *testing.T, line int, p ssd.Params, g ssd.Game, s *traceStep) {
	t.Helper()
	want := make([]float64, len(s.Rewards))
	for i, k := range s.Collected {
		if k >= 0 {
			want[i]++
		}
	}
	if g == ssd.Cleanup {
		for _, b := range s.Beams {
			want[b.Agent] -= p.FireCost
			for _, j := range b.Hit {
				want[j] -= p.FirePenalty
			}
		}
		for _, c := range s.Cleans {
			want[c.Agent] -= p.CleanCost
		}
	}
	if !slices.Equal(want, s.Rewards) {
		t.Fatalf("line %d: events account for rewards %v, recorded %v (%+v)", line, want, s.Rewards, s)
	}
}

// TestTraceRoundTrip: replaying a trace's actions through envs reproduces
// every state it holds, for both games and several seeds.
func TestTraceRoundTrip(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args     []string
		episodes int
	}{
		{[]string{"--game", "cleanup", "--map", "small", "--agents", "3", "--policy", "random", "--seeds", "0-1", "--steps", "300"}, 2},
		{[]string{"--game", "gathering", "--map", "default", "--agents", "6", "--policy", "exploit", "--seeds", "4", "--steps", "300"}, 1},
	} {
		path := filepath.Join(dir, strings.Join(c.args[1:2], "")+".jsonl")
		code, _, errOut := runCLI(t, context.Background(), append([]string{"play", "--trace", path}, c.args...)...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		eps, steps := replayTrace(t, path)
		if eps != c.episodes || steps != 300*c.episodes {
			t.Fatalf("%v: replayed %d episodes, %d steps", c.args, eps, steps)
		}
	}
	// The traces did record what the events are for.
	data, _ := os.ReadFile(filepath.Join(dir, "cleanup.jsonl"))
	for _, want := range []string{`"cleans":[{"agent"`, `"tagged":[`, `"waste":[[`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("the Cleanup trace has no %s", want)
		}
	}
}

func TestTraceUnwritable(t *testing.T) {
	code, _, errOut := runCLI(t, context.Background(), "play", "--steps", "5", "--seeds", "0", "--trace", filepath.Join(t.TempDir(), "no", "such", "dir", "t.jsonl"))
	if code != 1 || !strings.Contains(errOut, "--trace") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
}
