package envs

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"policyevolve/envs/ssd"
)

// goldenDir returns the folder of reference traces: POLICYEVOLVE_GOLDEN_DIR
// when set, else the copy kept in testdata. A missing folder fails the test:
// the golden tests are the specification and must never be skipped.
func goldenDir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("POLICYEVOLVE_GOLDEN_DIR")
	if dir == "" {
		dir = filepath.Join("testdata", "golden")
	}
	st, err := os.Stat(dir)
	if err != nil {
		t.Fatalf("golden directory: %v (set POLICYEVOLVE_GOLDEN_DIR or restore envs/testdata/golden)", err)
	}
	if !st.IsDir() {
		t.Fatalf("golden directory %s is not a directory", dir)
	}
	return dir
}

type goldenHeader struct {
	Game     string   `json:"game"`
	Map      string   `json:"map"`
	NAgents  int      `json:"n_agents"`
	Seed     uint64   `json:"seed"`
	Policy   string   `json:"policy"`
	MaxSteps int      `json:"max_steps"`
	Height   int      `json:"height"`
	Width    int      `json:"width"`
	NApples  int      `json:"n_apples"`
	ApplePos [][2]int `json:"apple_pos"`
	ASCIIMap string   `json:"ascii_map"`
	Params   struct {
		BeamLength   int `json:"beam_length"`
		BeamWidth    int `json:"beam_width"`
		HitsToTag    int `json:"hits_to_tag"`
		TimeoutSteps int `json:"timeout_steps"`
	} `json:"params"`
	RiverCells [][2]int `json:"river_cells"`
}

type goldenStep struct {
	T       int       `json:"t"`
	Actions []int     `json:"actions"`
	Rewards []float64 `json:"rewards"`
	Pos     [][2]int  `json:"pos"`
	Orient  []int     `json:"orient"`
	Timeout []int     `json:"timeout"`
	Hits    []int     `json:"hits"`
	Apples  string    `json:"apples"`
	Waste   *string   `json:"waste"`
}

type goldenMetrics struct {
	Efficiency     float64   `json:"efficiency"`
	Equality       float64   `json:"equality"`
	Sustainability float64   `json:"sustainability"`
	Peace          float64   `json:"peace"`
	Returns        []float64 `json:"returns"`
}

type goldenEpisode struct {
	name    string
	header  goldenHeader
	reset   goldenStep // Pos and Orient only
	steps   []goldenStep
	metrics goldenMetrics
}

func goldenFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(goldenDir(t), "episodes", "*.jsonl.gz"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no golden episodes in %s", filepath.Join(goldenDir(t), "episodes"))
	}
	return files
}

func loadGolden(t *testing.T, path string) *goldenEpisode {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	ep := &goldenEpisode{name: filepath.Base(path)}
	line := 0
	for sc.Scan() {
		line++
		var kind struct {
			Kind string `json:"kind"`
		}
		if err := json.Unmarshal(sc.Bytes(), &kind); err != nil {
			t.Fatalf("%s:%d: %v", path, line, err)
		}
		var dst any
		switch kind.Kind {
		case "header":
			dst = &ep.header
		case "reset":
			dst = &ep.reset
		case "metrics":
			dst = &ep.metrics
		case "":
			ep.steps = append(ep.steps, goldenStep{})
			dst = &ep.steps[len(ep.steps)-1]
		default:
			t.Fatalf("%s:%d: unknown kind %q", path, line, kind.Kind)
		}
		if err := json.Unmarshal(sc.Bytes(), dst); err != nil {
			t.Fatalf("%s:%d: %v", path, line, err)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if len(ep.steps) != ep.header.MaxSteps {
		t.Fatalf("%s: %d steps for max_steps %d", path, len(ep.steps), ep.header.MaxSteps)
	}
	return ep
}

// newGoldenEnv builds the environment a trace was recorded on, from the
// header's own map text and parameters.
func newGoldenEnv(t *testing.T, ep *goldenEpisode) *Env {
	t.Helper()
	h := ep.header
	game, err := ssd.ParseGame(h.Game)
	if err != nil {
		t.Fatalf("%s: %v", ep.name, err)
	}
	m, err := ParseMap(game, h.Map, h.ASCIIMap)
	if err != nil {
		t.Fatalf("%s: %v", ep.name, err)
	}
	p := ssd.DefaultParams(game)
	p.BeamLength, p.BeamWidth = h.Params.BeamLength, h.Params.BeamWidth
	p.HitsToTag, p.TimeoutSteps = h.Params.HitsToTag, h.Params.TimeoutSteps
	env, err := New(Config{Map: m, Agents: h.NAgents, MaxSteps: h.MaxSteps, Params: &p})
	if err != nil {
		t.Fatalf("%s: %v", ep.name, err)
	}
	// The parser must find the same apples and river cells in the same order.
	if m.Height != h.Height || m.Width != h.Width {
		t.Fatalf("%s: map is %dx%d, header says %dx%d", ep.name, m.Height, m.Width, h.Height, h.Width)
	}
	if got := posPairs(m.Apples); !slices.Equal(got, h.ApplePos) {
		t.Fatalf("%s: apple_pos: got %v, want %v", ep.name, got, h.ApplePos)
	}
	if game == ssd.Cleanup {
		if got := posPairs(m.River); !slices.Equal(got, h.RiverCells) {
			t.Fatalf("%s: river_cells: got %v, want %v", ep.name, got, h.RiverCells)
		}
	}
	return env
}

func posPairs(ps []ssd.Pos) [][2]int {
	out := make([][2]int, len(ps))
	for i, p := range ps {
		out[i] = [2]int{p.R, p.C}
	}
	return out
}

func hexBits(bits []bool) string {
	var x big.Int
	for i, b := range bits {
		if b {
			x.SetBit(&x, i, 1)
		}
	}
	return x.Text(16)
}

// diffState compares a state with a golden line and returns the first
// field that differs, as "field: expected X, actual Y".
func diffState(want *goldenStep, st *ssd.State, full bool) string {
	type field struct {
		name      string
		want, got any
	}
	fields := []field{
		{"pos", want.Pos, posPairs(st.Pos)},
		{"orient", want.Orient, st.Orient},
	}
	if full {
		fields = append(fields,
			field{"timeout", want.Timeout, st.Timeout},
			field{"hits", want.Hits, st.Hits},
			field{"apples", want.Apples, hexBits(st.AppleAlive)})
		if want.Waste != nil {
			fields = append(fields, field{"waste", *want.Waste, hexBits(st.Waste)})
		}
	}
	for _, f := range fields {
		if w, g := fmt.Sprint(f.want), fmt.Sprint(f.got); w != g {
			return fmt.Sprintf("%s: expected %s, actual %s", f.name, w, g)
		}
	}
	return ""
}

// TestGoldenEnvReplay feeds each trace's recorded actions to the
// environment and compares every field of every step: the rules alone,
// independent of the policies.
func TestGoldenEnvReplay(t *testing.T) {
	for _, path := range goldenFiles(t) {
		ep := loadGolden(t, path)
		t.Run(ep.name, func(t *testing.T) {
			t.Parallel()
			env := newGoldenEnv(t, ep)
			env.Reset(ep.header.Seed)
			var st ssd.State
			env.Snapshot(&st)
			if d := diffState(&ep.reset, &st, false); d != "" {
				t.Fatalf("%s: reset: %s", ep.name, d)
			}
			for _, want := range ep.steps {
				rew, err := env.Step(want.Actions)
				if err != nil {
					t.Fatalf("%s: step %d: %v", ep.name, want.T, err)
				}
				if !slices.Equal(rew, want.Rewards) {
					t.Fatalf("%s: step %d: rewards: expected %v, actual %v", ep.name, want.T, want.Rewards, rew)
				}
				env.Snapshot(&st)
				if d := diffState(&want, &st, true); d != "" {
					t.Fatalf("%s: step %d: %s", ep.name, want.T, d)
				}
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
	for _, path := range goldenFiles(t) {
		ep := loadGolden(t, path)
		t.Run(ep.name, func(t *testing.T) {
			t.Parallel()
			env := newGoldenEnv(t, ep)
			all := make([]int, ep.header.NAgents)
			for i := range all {
				all[i] = i
			}
			seats := []Seat{{Actor: goldenActor(t, ep.header.Policy), Agents: all}}
			res, err := Run(context.Background(), env, seats, Options{Seed: ep.header.Seed, Record: true})
			if err != nil {
				t.Fatalf("%s: %v", ep.name, err)
			}
			tr := res.Trajectory
			if d := diffState(&ep.reset, &tr.Reset, false); d != "" {
				t.Fatalf("%s: reset: %s", ep.name, d)
			}
			for k, want := range ep.steps {
				got := tr.Steps[k]
				if !slices.Equal(got.Actions, want.Actions) {
					t.Fatalf("%s: step %d: actions: expected %v, actual %v", ep.name, want.T, want.Actions, got.Actions)
				}
				if !slices.Equal(got.Rewards, want.Rewards) {
					t.Fatalf("%s: step %d: rewards: expected %v, actual %v", ep.name, want.T, want.Rewards, got.Rewards)
				}
				if d := diffState(&want, &got.State, true); d != "" {
					t.Fatalf("%s: step %d: %s", ep.name, want.T, d)
				}
			}
			wm := ep.metrics
			if !slices.Equal(res.Returns, wm.Returns) {
				t.Fatalf("%s: returns: expected %v, actual %v", ep.name, wm.Returns, res.Returns)
			}
			for _, f := range []struct {
				name      string
				want, got float64
			}{
				{"efficiency", wm.Efficiency, res.Metrics.Efficiency},
				{"equality", wm.Equality, res.Metrics.Equality},
				{"sustainability", wm.Sustainability, res.Metrics.Sustainability},
				{"peace", wm.Peace, res.Metrics.Peace},
			} {
				if math.Abs(f.want-f.got) > 1e-9 {
					t.Errorf("%s: metrics: %s: expected %v, actual %v", ep.name, f.name, f.want, f.got)
				}
			}
		})
	}
}

// TestBuiltinMapsMatchGolden checks the embedded maps against the map text
// the traces were recorded on.
func TestBuiltinMapsMatchGolden(t *testing.T) {
	seen := map[string]bool{}
	for _, path := range goldenFiles(t) {
		ep := loadGolden(t, path)
		h := ep.header
		key := h.Game + "/" + h.Map
		if seen[key] || strings.HasSuffix(h.Map, "-clean") { // default-clean exists only in the traces
			continue
		}
		seen[key] = true
		game, _ := ssd.ParseGame(h.Game)
		m, err := BuiltinMap(game, h.Map)
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
