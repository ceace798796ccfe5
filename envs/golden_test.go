package envs

import (
	"context"
	"slices"
	"strings"
	"testing"

	"policyevolve/envs/ssd"
	"policyevolve/internal/golden"
)

// newGoldenEnv builds the environment a trace was recorded on, from the
// header's own map text and parameters, and checks that the parser finds
// the same apples and river cells in the same order.
func newGoldenEnv(t *testing.T, ep *golden.Episode) *Env {
	t.Helper()
	h := ep.Header
	game := ep.Game()
	m, err := ParseMap(game, h.Map, h.ASCIIMap)
	if err != nil {
		t.Fatalf("%s: %v", ep.Name, err)
	}
	p := ep.Params()
	env, err := New(Config{Map: m, Agents: h.NAgents, MaxSteps: h.MaxSteps, Params: &p})
	if err != nil {
		t.Fatalf("%s: %v", ep.Name, err)
	}
	if m.Height != h.Height || m.Width != h.Width {
		t.Fatalf("%s: map is %dx%d, header says %dx%d", ep.Name, m.Height, m.Width, h.Height, h.Width)
	}
	if got := golden.Pairs(m.Apples); !slices.Equal(got, h.ApplePos) {
		t.Fatalf("%s: apple_pos: got %v, want %v", ep.Name, got, h.ApplePos)
	}
	if game == ssd.Cleanup {
		if got := golden.Pairs(m.River); !slices.Equal(got, h.RiverCells) {
			t.Fatalf("%s: river_cells: got %v, want %v", ep.Name, got, h.RiverCells)
		}
	}
	return env
}

// TestGoldenEnvReplay feeds each trace's recorded actions to the
// environment and compares every field of every step: the rules alone,
// independent of the policies.
func TestGoldenEnvReplay(t *testing.T) {
	for _, path := range golden.Files(t) {
		ep := golden.Load(t, path)
		t.Run(ep.Name, func(t *testing.T) {
			t.Parallel()
			env := newGoldenEnv(t, ep)
			env.Reset(ep.Header.Seed)
			var reset ssd.State
			env.Snapshot(&reset)
			steps := make([]golden.Replayed, len(ep.Steps))
			for k, want := range ep.Steps {
				rew, err := env.Step(want.Actions)
				if err != nil {
					t.Fatalf("%s: step %d: %v", ep.Name, want.T, err)
				}
				st := &ssd.State{}
				env.Snapshot(st)
				steps[k] = golden.Replayed{Rewards: slices.Clone(rew), State: st}
			}
			if d := golden.CompareSteps(ep, &reset, steps); d != "" {
				t.Fatalf("%s: %s", ep.Name, d)
			}
		})
	}
}

// scriptedActor plays the golden "scripted" stream (see the testdata README).
type scriptedActor struct {
	seed   uint64
	agents []int
	game   ssd.Game
}

func (s *scriptedActor) Begin(_ context.Context, info EpisodeInfo) error {
	s.seed, s.agents, s.game = info.Seed, info.Agents, info.Layout.Game
	return nil
}

func (s *scriptedActor) Act(_ context.Context, st *ssd.State, actions []int) error {
	for _, i := range s.agents {
		z := s.seed*0x9E3779B97F4A7C15 + uint64(st.Step)*0xBF58476D1CE4E5B9 + uint64(i)*0x94D049BB133111EB + 1
		z = (z ^ z>>30) * 0xBF58476D1CE4E5B9
		z = (z ^ z>>27) * 0x94D049BB133111EB
		z ^= z >> 31
		a := int(z % uint64(s.game.NumActions()))
		if s.game == ssd.Cleanup && (z>>32)%4 == 0 {
			a = ssd.Clean
		}
		actions[i] = a
	}
	return nil
}

func (s *scriptedActor) End() error { return nil }

func goldenActor(t *testing.T, policy string) Actor {
	if policy == "scripted" {
		return &scriptedActor{}
	}
	f, err := Builtin(policy)
	if err != nil {
		t.Fatal(err)
	}
	return &PolicyActor{New: f}
}

// TestGoldenPolicies plays each trace's policy for every agent through the
// episode runner and compares the chosen actions, every state field, the
// returns and the metrics.
func TestGoldenPolicies(t *testing.T) {
	for _, path := range golden.Files(t) {
		ep := golden.Load(t, path)
		t.Run(ep.Name, func(t *testing.T) {
			t.Parallel()
			env := newGoldenEnv(t, ep)
			all := make([]int, ep.Header.NAgents)
			for i := range all {
				all[i] = i
			}
			seats := []Seat{{Actor: goldenActor(t, ep.Header.Policy), Agents: all}}
			res, err := Run(context.Background(), env, seats, Options{Seed: ep.Header.Seed, Record: true, Verify: true})
			if err != nil {
				t.Fatalf("%s: %v", ep.Name, err)
			}
			checkGolden(t, ep, res)
		})
	}
}

// checkGolden compares a recorded episode with its trace.
func checkGolden(t *testing.T, ep *golden.Episode, res *Result) {
	t.Helper()
	steps := make([]golden.Replayed, len(res.Trajectory.Steps))
	for k, s := range res.Trajectory.Steps {
		steps[k] = golden.Replayed{Actions: s.Actions, Rewards: s.Rewards, State: &res.Trajectory.Steps[k].State}
	}
	if d := golden.CompareSteps(ep, &res.Trajectory.Reset, steps); d != "" {
		t.Fatalf("%s: %s", ep.Name, d)
	}
	m := res.Metrics
	if d := golden.CompareMetrics(ep, res.Returns, m.Efficiency, m.Equality, m.Sustainability, m.Peace); d != "" {
		t.Fatalf("%s: %s", ep.Name, d)
	}
}

// TestBuiltinMapsMatchGolden checks the embedded maps against the map text
// the traces were recorded on.
func TestBuiltinMapsMatchGolden(t *testing.T) {
	seen := map[string]bool{}
	for _, path := range golden.Files(t) {
		ep := golden.Load(t, path)
		h := ep.Header
		key := h.Game + "/" + h.Map
		if seen[key] || strings.HasSuffix(h.Map, "-clean") { // default-clean exists only in the traces
			continue
		}
		seen[key] = true
		m, err := BuiltinMap(ep.Game(), h.Map)
		if err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		if m.Text != h.ASCIIMap {
			t.Errorf("%s: built-in map text differs from the trace's", key)
		}
	}
	if len(seen) != 5 {
		t.Errorf("traces cover %d built-in maps, want 5: %v", len(seen), seen)
	}
}
