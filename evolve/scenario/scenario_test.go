package scenario

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"policyevolve/envs"
	"policyevolve/evolve/arena"
	"policyevolve/evolve/episode"
)

func TestDefault(t *testing.T) {
	for _, tc := range []struct {
		agents int
		want   []string
	}{
		{10, []string{
			"exploit resident k=1", "exploit resident k=3", "exploit visitor k=3",
			"bfs resident k=1", "bfs resident k=3", "bfs visitor k=3",
			"random resident k=1", "random resident k=3", "random visitor k=3",
			"coop resident k=1", "coop resident k=3", "coop visitor k=3"}},
		{3, []string{"exploit resident k=1", "bfs resident k=1", "random resident k=1", "coop resident k=1"}},
		{1, nil},
	} {
		s := Default(tc.agents)
		var got []string
		for _, sc := range s.Scenarios {
			got = append(got, sc.Label())
		}
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("Default(%d) = %q, want %q", tc.agents, got, tc.want)
		}
		if len(got) > 0 {
			if err := s.Validate(); err != nil {
				t.Errorf("Default(%d): %v", tc.agents, err)
			}
			if err := s.Fits(tc.agents); err != nil {
				t.Errorf("Default(%d): %v", tc.agents, err)
			}
		}
	}
}

func TestSeating(t *testing.T) {
	for _, tc := range []struct {
		sc                Scenario
		focal, background int
	}{
		{Scenario{Background: "exploit", Mode: Resident, K: 1}, 9, 1},
		{Scenario{Background: "exploit", Mode: Resident, K: 3}, 7, 3},
		{Scenario{Background: "bfs", Mode: Visitor, K: 3}, 3, 7},
	} {
		f, b := tc.sc.Seating(10)
		if f != tc.focal || b != tc.background {
			t.Errorf("%s: seating (%d, %d), want (%d, %d)", tc.sc.Label(), f, b, tc.focal, tc.background)
		}
	}
}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string // want: "" for success, else a part of the error
	}{
		{"ok", "name = \"x\"\n[[scenario]]\nbackground = \"exploit\"\nmode = \"resident\"\nk = 1\n[[scenario]]\nbackground = \"a1b2c3\"\nmode = \"visitor\"\nk = 3\nname = \"three of ours\"\n", ""},
		{"syntax", "name = \"x\n", "line 1"},
		{"unknown top key", "nam = \"x\"\n[[scenario]]\nbackground = \"bfs\"\nmode = \"resident\"\nk = 1\n", "unknown key nam"},
		{"unknown scenario key", "[[scenario]]\nbackground = \"bfs\"\nmode = \"resident\"\nk = 1\nagents = 4\n", "unknown key scenario.agents"},
		{"wrong type", "[[scenario]]\nbackground = \"bfs\"\nmode = \"resident\"\nk = \"one\"\n", "k"},
		{"no scenario", "name = \"x\"\n", "no scenario"},
		{"no background", "[[scenario]]\nmode = \"resident\"\nk = 1\n", "scenario 1: no background"},
		{"bad mode", "[[scenario]]\nbackground = \"bfs\"\nmode = \"guest\"\nk = 1\n", `scenario 1: mode "guest": want "resident" or "visitor"`},
		{"no mode", "[[scenario]]\nbackground = \"bfs\"\nk = 1\n", `mode ""`},
		{"k zero", "[[scenario]]\nbackground = \"bfs\"\nmode = \"visitor\"\n", "k = 0"},
		{"duplicate", "[[scenario]]\nbackground = \"bfs\"\nmode = \"visitor\"\nk = 1\n[[scenario]]\nbackground = \"bfs\"\nmode = \"visitor\"\nk = 1\n", `scenario 2: "bfs visitor k=1" is also scenario 1's name`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Parse([]byte(tc.in))
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("Parse: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("Parse = %+v, %v; want an error with %q", s, err, tc.want)
			}
		})
	}
}

// TestEncode: the encoding is fixed (a stored suite must decode to what
// was played), names are filled in, and an unnamed scenario encodes as
// one named by its label.
func TestEncode(t *testing.T) {
	s := Suite{Name: "x", Scenarios: []Scenario{{Background: "exploit", Mode: Resident, K: 1}}}
	b, err := Encode(s)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"name":"x","scenarios":[{"name":"exploit resident k=1","background":"exploit","mode":"resident","k":1}]}`
	if string(b) != want {
		t.Errorf("Encode = %s\nwant %s", b, want)
	}
	named := s
	named.Scenarios = []Scenario{{Name: "exploit resident k=1", Background: "exploit", Mode: Resident, K: 1}}
	id1, _ := ID(s)
	id2, _ := ID(named)
	if id1 != id2 || len(id1) != 64 {
		t.Errorf("ID %s vs %s", id1, id2)
	}
	back, err := Decode(b)
	if err != nil || back.Scenarios[0] != named.Scenarios[0] {
		t.Errorf("Decode = %+v, %v", back, err)
	}
	if _, err := Decode([]byte(`{"name":"x","scenarios":[],"extra":1}`)); err == nil {
		t.Error("Decode accepted an unknown field")
	}
	if _, err := Encode(Suite{}); err == nil {
		t.Error("Encode accepted an empty suite")
	}
}

// FuzzParse: Parse never panics; what it accepts is valid, encodes, and
// decodes back to itself with its names filled in.
func FuzzParse(f *testing.F) {
	f.Add([]byte("name = \"x\"\n[[scenario]]\nbackground = \"exploit\"\nmode = \"resident\"\nk = 1\n"))
	f.Add([]byte("[[scenario]]\nbackground = \"bfs\"\nmode = \"visitor\"\nk = 3\nname = \"é\"\n"))
	f.Add([]byte("[[scenario]]\nbackground = 1\n"))
	f.Add([]byte("scenario = []\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse(data)
		if err != nil {
			return
		}
		if err := s.Validate(); err != nil {
			t.Fatalf("Parse accepted an invalid suite: %v", err)
		}
		b, err := Encode(s)
		if err != nil {
			t.Fatalf("Encode: %v", err)
		}
		back, err := Decode(b)
		if err != nil {
			t.Fatalf("Decode(%s): %v", b, err)
		}
		if len(back.Scenarios) != len(s.Scenarios) || back.Name != s.Name {
			t.Fatalf("round trip %+v -> %+v", s, back)
		}
		for i, sc := range s.Scenarios {
			sc.Name = sc.Label()
			if back.Scenarios[i] != sc {
				t.Fatalf("scenario %d: %+v -> %+v", i, sc, back.Scenarios[i])
			}
		}
		b2, _ := Encode(back)
		if string(b2) != string(b) {
			t.Fatalf("encoding not stable: %s vs %s", b, b2)
		}
	})
}

func builtinActor(t *testing.T, name string) envs.Actor {
	t.Helper()
	f, err := envs.Builtin(name)
	if err != nil {
		t.Fatal(err)
	}
	return &envs.PolicyActor{New: f}
}

func tinyEnv(t *testing.T) episode.Env {
	t.Helper()
	env, err := episode.ResolveEnv("gathering", "small", 4, 60)
	if err != nil {
		t.Fatal(err)
	}
	return env
}

// TestRun: each mode seats the sides as documented (the focal side is
// invade's residents in resident mode and its invaders in visitor mode),
// the shares divide by the focal self-play return, the worst share is the
// smallest, and each background resolves once.
func TestRun(t *testing.T) {
	env := tinyEnv(t)
	seeds := []uint64{0, 1}
	focal := builtinActor(t, "bfs")
	calls := map[string]int{}
	resolve := func(_ context.Context, ref string) (envs.Actor, error) {
		calls[ref]++
		return builtinActor(t, ref), nil
	}
	s := Suite{Name: "t", Scenarios: []Scenario{
		{Background: "exploit", Mode: Resident, K: 1},
		{Background: "exploit", Mode: Visitor, K: 1},
		{Background: "bfs", Mode: Resident, K: 2},
	}}
	rep, err := Run(t.Context(), env, focal, resolve, s, seeds)
	if err != nil {
		t.Fatal(err)
	}
	if calls["exploit"] != 1 || calls["bfs"] != 1 {
		t.Errorf("resolve calls %v, want one per background", calls)
	}
	self, err := arena.Invade(t.Context(), env, focal, focal, 0, seeds)
	if err != nil {
		t.Fatal(err)
	}
	if rep.SelfPlay != self.B.Return || rep.SelfPlay <= 0 {
		t.Fatalf("self-play %v, invade says %v", rep.SelfPlay, self.B.Return)
	}
	res, err := arena.Invade(t.Context(), env, builtinActor(t, "exploit"), focal, 1, seeds)
	if err != nil {
		t.Fatal(err)
	}
	vis, err := arena.Invade(t.Context(), env, focal, builtinActor(t, "exploit"), 1, seeds)
	if err != nil {
		t.Fatal(err)
	}
	near := func(x, y float64) bool { return math.Abs(x-y) < 1e-9 }
	for i, want := range []struct{ focal, bg arena.SideReturn }{{res.B, res.A}, {vis.A, vis.B}} {
		r := rep.Results[i]
		if r.Focal != want.focal || r.Background != want.bg {
			t.Errorf("%s: focal %+v background %+v, want %+v %+v", r.Scenario.Label(), r.Focal, r.Background, want.focal, want.bg)
		}
		if r.Share == nil || !near(*r.Share, r.Focal.Return/self.B.Return) {
			t.Errorf("%s: share %v", r.Scenario.Label(), r.Share)
		}
		total := r.Focal.Return*float64(r.Focal.Agents) + r.Background.Return*float64(r.Background.Agents)
		if !near(r.Efficiency, total/60) {
			t.Errorf("%s: efficiency %v, want %v", r.Scenario.Label(), r.Efficiency, total/60)
		}
	}
	// bfs among bfs is bfs's self-play, seated in two groups: the same group return.
	if r := rep.Results[2]; !near(r.Efficiency, rep.SelfPlayEfficiency) || r.Focal.Agents != 2 || r.Background.Agents != 2 {
		t.Errorf("bfs among bfs: %+v, self-play efficiency %v", r, rep.SelfPlayEfficiency)
	}
	worst := 0
	for i, r := range rep.Results {
		if *r.Share < *rep.Results[worst].Share {
			worst = i
		}
	}
	if rep.Worst != worst || *rep.WorstShare != *rep.Results[worst].Share {
		t.Errorf("worst %d (%v), want %d", rep.Worst, *rep.WorstShare, worst)
	}
}

func TestRunErrors(t *testing.T) {
	env := tinyEnv(t)
	focal := builtinActor(t, "bfs")
	ok := func(_ context.Context, ref string) (envs.Actor, error) { return builtinActor(t, ref), nil }
	boom := errors.New("no such policy")
	bad := func(context.Context, string) (envs.Actor, error) { return nil, boom }
	one := Suite{Scenarios: []Scenario{{Background: "exploit", Mode: Resident, K: 1}}}
	for _, tc := range []struct {
		name    string
		resolve Resolve
		s       Suite
		seeds   []uint64
		want    string
	}{
		{"k too large", ok, Suite{Scenarios: []Scenario{{Background: "exploit", Mode: Visitor, K: 4}}}, []uint64{0}, "k = 4, but the episode has 4 agents"},
		{"empty", ok, Suite{Name: "e"}, []uint64{0}, `suite "e" has no scenario`},
		{"no seeds", ok, one, nil, "no seed"},
		{"resolve", bad, one, []uint64{0}, "background exploit: no such policy"},
	} {
		_, err := Run(t.Context(), env, focal, tc.resolve, tc.s, tc.seeds)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}
