package qlearn

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"policyevolve/envs"
	"policyevolve/envs/ssd"
)

// goldenRun is one file of testdata/golden (see its README).
type goldenRun struct {
	Name     string       `json:"name"`
	Game     string       `json:"game"`
	Map      string       `json:"map"`
	Agents   int          `json:"agents"`
	Episodes int          `json:"episodes"`
	Seed     uint64       `json:"seed"`
	Params   goldenParams `json:"params"`
	Visited  int          `json:"states_visited"`
	QTable   []goldenRow  `json:"qtable"`
	Eval     goldenEval   `json:"eval"`
}

// goldenParams are the keyword arguments of the reference's train().
type goldenParams struct {
	Alpha      float64 `json:"alpha"`
	Gamma      float64 `json:"gamma"`
	EpsStart   float64 `json:"eps_start"`
	EpsEnd     float64 `json:"eps_end"`
	EpsDecay   int     `json:"eps_decay_episodes"`
	WInd       float64 `json:"w_ind"`
	WTeam      float64 `json:"w_team"`
	BeamPen    float64 `json:"beam_pen"`
	CleanBonus float64 `json:"clean_bonus"`
}

// goldenRow is one (state, values) pair of the reference's table, in
// its dict order: [[f0, f1, …], [q0, q1, …]].
type goldenRow struct {
	State []int
	Q     []float64
}

func (r *goldenRow) UnmarshalJSON(b []byte) error {
	var pair [2]json.RawMessage
	if err := json.Unmarshal(b, &pair); err != nil {
		return err
	}
	if err := json.Unmarshal(pair[0], &r.State); err != nil {
		return err
	}
	return json.Unmarshal(pair[1], &r.Q)
}

type goldenEval struct {
	Seed          uint64          `json:"seed"`
	Episodes      int             `json:"episodes"`
	AvgTeamReward float64         `json:"avg_team_reward"`
	Metrics       envs.Metrics    `json:"metrics"`
	AvgWaste      float64         `json:"avg_waste"`
	AvgCleans     float64         `json:"avg_cleans"`
	PerEpisode    []goldenEpisode `json:"per_episode"`
}

type goldenEpisode struct {
	Seed       uint64       `json:"seed"`
	Returns    []float64    `json:"returns"`
	Metrics    envs.Metrics `json:"metrics"`
	AvgWaste   float64      `json:"avg_waste"`
	CleanCount int          `json:"clean_count"`
}

func loadGolden(t *testing.T, path string) *goldenRun {
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
	var g goldenRun
	if err := json.NewDecoder(zr).Decode(&g); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return &g
}

func goldenFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "golden", "*.json.gz"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no golden runs in testdata/golden")
	}
	return files
}

// train trains as the golden run's reference call did.
func (g *goldenRun) train(t *testing.T) *Table {
	t.Helper()
	game, err := ssd.ParseGame(g.Game)
	if err != nil {
		t.Fatal(err)
	}
	m, err := envs.BuiltinMap(game, g.Map)
	if err != nil {
		t.Fatal(err)
	}
	p := g.Params
	tab, err := Train(context.Background(), Config{Map: m, MapName: g.Map, Agents: g.Agents, Episodes: g.Episodes, Seed: g.Seed,
		Params: &Params{Alpha: p.Alpha, Gamma: p.Gamma, EpsStart: p.EpsStart, EpsEnd: p.EpsEnd, EpsDecay: p.EpsDecay,
			WInd: p.WInd, WTeam: p.WTeam, BeamPenalty: p.BeamPen, CleanBonus: p.CleanBonus}})
	if err != nil {
		t.Fatalf("run %s: train: %v", g.Name, err)
	}
	return tab
}

// eachGoldenRun trains every golden run as the reference did, in parallel
// subtests named after the runs, and hands the table to check.
func eachGoldenRun(t *testing.T, check func(t *testing.T, g *goldenRun, tab *Table)) {
	for _, path := range goldenFiles(t) {
		g := loadGolden(t, path)
		t.Run(g.Name, func(t *testing.T) {
			t.Parallel()
			check(t, g, g.train(t))
		})
	}
}

// same reports bit equality (so that a failure cannot hide behind %v's
// rounding).
func same(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }

// TestGoldenTables trains every golden run and compares the table with the
// reference's: the same states, created in the same order, with the same
// values to the last bit.
func TestGoldenTables(t *testing.T) {
	eachGoldenRun(t, func(t *testing.T, g *goldenRun, tab *Table) {
		if tab.Len() != g.Visited || len(g.QTable) != g.Visited {
			t.Errorf("run %s: %d states visited, the reference %d (%d rows in its table)", g.Name, tab.Len(), g.Visited, len(g.QTable))
		}
		bad := 0
		for i := range min(tab.Len(), len(g.QTable)) {
			state, q := tab.State(i)
			want := g.QTable[i]
			if !slices.Equal(state, want.State) {
				t.Errorf("run %s: row %d: state %v, the reference's row %d is state %v", g.Name, i, state, i, want.State)
				bad++
			} else {
				for a := range q {
					if a >= len(want.Q) || !same(q[a], want.Q[a]) {
						t.Errorf("run %s: row %d, state %v, action %d: Q = %v, the reference has %v (row: ours %v, the reference's %v)",
							g.Name, i, state, a, q[a], want.Q[min(a, len(want.Q)-1)], q, want.Q)
						bad++
						break
					}
				}
			}
			if bad >= 5 {
				t.Fatalf("run %s: stopping after %d differences", g.Name, bad)
			}
		}
	})
}

// TestGoldenEvaluations evaluates every golden run's table in self-play
// on the reference's seeds and compares the episodes and the averages bit
// for bit.
func TestGoldenEvaluations(t *testing.T) {
	eachGoldenRun(t, func(t *testing.T, g *goldenRun, tab *Table) {
		m, _ := envs.BuiltinMap(tab.Game, g.Map)
		seeds := make([]uint64, g.Eval.Episodes)
		for k := range seeds {
			seeds[k] = g.Eval.Seed + uint64(k)
		}
		ev, err := Evaluate(context.Background(), tab, m, g.Agents, 0, seeds)
		if err != nil {
			t.Fatalf("run %s: %v", g.Name, err)
		}
		var diffs []string
		check := func(what string, got, want float64) {
			if !same(got, want) {
				diffs = append(diffs, fmt.Sprintf("%s = %v, the reference has %v", what, got, want))
			}
		}
		metrics := func(prefix string, got, want envs.Metrics) {
			check(prefix+"efficiency", got.Efficiency, want.Efficiency)
			check(prefix+"equality", got.Equality, want.Equality)
			check(prefix+"sustainability", got.Sustainability, want.Sustainability)
			check(prefix+"peace", got.Peace, want.Peace)
		}
		for k, want := range g.Eval.PerEpisode {
			got := ev.Episodes[k]
			p := fmt.Sprintf("seed %d: ", want.Seed)
			for i := range want.Returns {
				check(fmt.Sprintf("%sagent %d return", p, i), got.Returns[i], want.Returns[i])
			}
			metrics(p, got.Metrics, want.Metrics)
			if tab.Game == ssd.Cleanup {
				check(p+"avg waste", got.AvgWaste, want.AvgWaste)
				check(p+"cleans", float64(got.Cleans), float64(want.CleanCount))
			}
		}
		check("avg team reward", ev.AvgTeamReward, g.Eval.AvgTeamReward)
		metrics("mean ", ev.Metrics, g.Eval.Metrics)
		if tab.Game == ssd.Cleanup {
			check("mean avg waste", ev.AvgWaste, g.Eval.AvgWaste)
			check("mean cleans", ev.AvgCleans, g.Eval.AvgCleans)
		}
		if len(diffs) > 0 {
			t.Errorf("run %s: evaluation differs from the reference:\n  %s", g.Name, strings.Join(diffs, "\n  "))
		}
	})
}
