package golden

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"testing"

	"policyevolve/envs/ssd"
)

// EnvVar names another folder of traces to test against.
const EnvVar = "POLICYEVOLVE_GOLDEN_DIR"

// Dir returns the folder of reference traces: $POLICYEVOLVE_GOLDEN_DIR
// when set, else envs/testdata/golden of this repository. A missing folder
// fails the test: the traces are the specification and are never skipped.
func Dir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv(EnvVar)
	if dir == "" {
		root, err := repoRoot()
		if err != nil {
			t.Fatalf("golden directory: %v", err)
		}
		dir = filepath.Join(root, "envs", "testdata", "golden")
	}
	st, err := os.Stat(dir)
	if err != nil {
		t.Fatalf("golden directory: %v (set %s or restore envs/testdata/golden)", err, EnvVar)
	}
	if !st.IsDir() {
		t.Fatalf("golden directory %s is not a directory", dir)
	}
	return dir
}

func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the working directory")
		}
		dir = parent
	}
}

// Files lists the episode traces; none is a failure.
func Files(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(Dir(t), "episodes", "*.jsonl.gz"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no golden episodes in %s", filepath.Join(Dir(t), "episodes"))
	}
	return files
}

// Header is a trace's first line.
type Header struct {
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

// Step is the state after one step (or, for the reset line, Pos and
// Orient after reset).
type Step struct {
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

// Metrics is a trace's last line.
type Metrics struct {
	Efficiency     float64   `json:"efficiency"`
	Equality       float64   `json:"equality"`
	Sustainability float64   `json:"sustainability"`
	Peace          float64   `json:"peace"`
	Returns        []float64 `json:"returns"`
}

// Episode is one parsed trace.
type Episode struct {
	Name    string // file name
	Header  Header
	Reset   Step
	Steps   []Step
	Metrics Metrics
}

// Game parses the header's game.
func (e *Episode) Game() ssd.Game {
	g, _ := ssd.ParseGame(e.Header.Game)
	return g
}

// Params are the game's defaults with the header's overrides.
func (e *Episode) Params() ssd.Params {
	p := ssd.DefaultParams(e.Game())
	h := e.Header.Params
	p.BeamLength, p.BeamWidth, p.HitsToTag, p.TimeoutSteps = h.BeamLength, h.BeamWidth, h.HitsToTag, h.TimeoutSteps
	return p
}

// Load parses a trace file.
func Load(t testing.TB, path string) *Episode {
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
	ep := &Episode{Name: filepath.Base(path)}
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
			dst = &ep.Header
		case "reset":
			dst = &ep.Reset
		case "metrics":
			dst = &ep.Metrics
		case "":
			ep.Steps = append(ep.Steps, Step{})
			dst = &ep.Steps[len(ep.Steps)-1]
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
	if len(ep.Steps) != ep.Header.MaxSteps {
		t.Fatalf("%s: %d steps for max_steps %d", path, len(ep.Steps), ep.Header.MaxSteps)
	}
	return ep
}

// Pairs converts cells to the traces' [row, col] pairs.
func Pairs(ps []ssd.Pos) [][2]int {
	out := make([][2]int, len(ps))
	for i, p := range ps {
		out[i] = [2]int{p.R, p.C}
	}
	return out
}

// HexBits encodes flags as the traces' bitmaps: lower-case hex, bit i =
// flag i.
func HexBits(bits []bool) string {
	var x big.Int
	for i, b := range bits {
		if b {
			x.SetBit(&x, i, 1)
		}
	}
	return x.Text(16)
}

// Diff compares a state with a trace line and returns the first field that
// differs as "field: expected X, actual Y", or "". Without full, only
// positions and orientations (all a reset line holds).
func Diff(want *Step, st *ssd.State, full bool) string {
	type field struct {
		name      string
		want, got any
	}
	fields := []field{
		{"pos", want.Pos, Pairs(st.Pos)},
		{"orient", want.Orient, st.Orient},
	}
	if full {
		fields = append(fields,
			field{"timeout", want.Timeout, st.Timeout},
			field{"hits", want.Hits, st.Hits},
			field{"apples", want.Apples, HexBits(st.AppleAlive)})
		if want.Waste != nil {
			fields = append(fields, field{"waste", *want.Waste, HexBits(st.Waste)})
		}
	}
	for _, f := range fields {
		if w, g := fmt.Sprint(f.want), fmt.Sprint(f.got); w != g {
			return fmt.Sprintf("%s: expected %s, actual %s", f.name, w, g)
		}
	}
	return ""
}

// Replayed is what a replay produced at one step.
type Replayed struct {
	Actions []int
	Rewards []float64
	State   *ssd.State
}

// CompareSteps returns the first difference between a replay and the trace
// as "step T: field: expected X, actual Y" ("reset: …" for the reset), or
// "" when they agree on every field of every step.
func CompareSteps(ep *Episode, reset *ssd.State, steps []Replayed) string {
	if d := Diff(&ep.Reset, reset, false); d != "" {
		return "reset: " + d
	}
	if len(steps) != len(ep.Steps) {
		return fmt.Sprintf("replay has %d steps, trace %d", len(steps), len(ep.Steps))
	}
	for k := range ep.Steps {
		want, got := &ep.Steps[k], steps[k]
		if got.Actions != nil && fmt.Sprint(got.Actions) != fmt.Sprint(want.Actions) {
			return fmt.Sprintf("step %d: actions: expected %v, actual %v", want.T, want.Actions, got.Actions)
		}
		if fmt.Sprint(got.Rewards) != fmt.Sprint(want.Rewards) {
			return fmt.Sprintf("step %d: rewards: expected %v, actual %v", want.T, want.Rewards, got.Rewards)
		}
		if d := Diff(want, got.State, true); d != "" {
			return fmt.Sprintf("step %d: %s", want.T, d)
		}
	}
	return ""
}

// CompareMetrics returns the first metric that differs from the trace by
// more than 1e-9 (returns must agree exactly), or "".
func CompareMetrics(ep *Episode, returns []float64, efficiency, equality, sustainability, peace float64) string {
	if fmt.Sprint(returns) != fmt.Sprint(ep.Metrics.Returns) {
		return fmt.Sprintf("returns: expected %v, actual %v", ep.Metrics.Returns, returns)
	}
	for _, f := range []struct {
		name      string
		want, got float64
	}{
		{"efficiency", ep.Metrics.Efficiency, efficiency},
		{"equality", ep.Metrics.Equality, equality},
		{"sustainability", ep.Metrics.Sustainability, sustainability},
		{"peace", ep.Metrics.Peace, peace},
	} {
		if d := f.want - f.got; d > 1e-9 || d < -1e-9 {
			return fmt.Sprintf("metrics: %s: expected %v, actual %v", f.name, f.want, f.got)
		}
	}
	return ""
}
