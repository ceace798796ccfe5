package evolve

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"

	"policyevolve/pool"
)

func TestOption(t *testing.T) {
	for _, tc := range []struct {
		name       string
		o          Option[float64]
		json       string
		value      float64
		off, deflt bool
	}{
		{"default", Option[float64]{}, "0", 0, false, true},
		{"off", Off[float64](), "-1", 0, true, false},
		{"on", On(0.2), "0.2", 0.2, false, false},
		{"on zero is off", On(0.0), "-1", 0, true, false},
		{"on negative is off", On(-0.5), "-1", 0, true, false},
	} {
		b, err := json.Marshal(tc.o)
		if err != nil || string(b) != tc.json {
			t.Errorf("%s: JSON %s (%v), want %s", tc.name, b, err, tc.json)
		}
		if tc.o.Value() != tc.value || tc.o.IsOff() != tc.off || tc.o.IsDefault() != tc.deflt {
			t.Errorf("%s: value %v, off %v, default %v", tc.name, tc.o.Value(), tc.o.IsOff(), tc.o.IsDefault())
		}
		var back Option[float64]
		if err := json.Unmarshal(b, &back); err != nil || back != tc.o {
			t.Errorf("%s: read back as %v (%v)", tc.name, back, err)
		}
	}
	// What stored configurations hold reads as it always meant: 0 the
	// default, a negative number none, else the value.
	for in, want := range map[string]Option[int]{"0": {}, "-1": Off[int](), "-7": Off[int](), "3": On(3)} {
		var o Option[int]
		if err := json.Unmarshal([]byte(in), &o); err != nil || o != want {
			t.Errorf("%s read as %v (%v), want %v", in, o, err, want)
		}
	}
	if o := (Option[int]{}).OrDefault(DefaultLocalRounds); o.Value() != DefaultLocalRounds {
		t.Errorf("default local rounds %v", o)
	}
	if o := Off[int]().OrDefault(DefaultLocalRounds); !o.IsOff() {
		t.Errorf("off became %v with a default", o)
	}
}

// TestStoredJobConfigUnchanged: run configurations stored before local
// rounds and the crossover rate were Options, and before runs chose an
// objective, decode to the same meaning — the objective they ran under is
// elo — and encode to the same bytes once the objective is left out as a
// comparison's id leaves out elo (experiment.ID hashes them), but for the
// search settings added since, which read as the behaviour those runs had
// (every local round played, parents shuffled) rather than as today's
// defaults: a comparison made under the old search rules is not found
// again by the same command under the new ones, and is not mistaken for
// one.
func TestStoredJobConfigUnchanged(t *testing.T) {
	for _, stored := range []string{
		`{"mode":"population","game":"cleanup","agents":10,"steps":1000,"seed":1,"eval_seeds":[0,1,2,3,4],"match_seeds":[0],"iterations":5,"candidates":4,"feedback":"critic","local_rounds":2,"crossover_rate":0.2,"planners":["grammar"],"pool":{"capacity":16,"promote_threshold":0.6,"temperature":100,"opponents":4},"workers":2,"planner_concurrency":1,"critic":"analytic","backend":"auto"}`,
		`{"mode":"population","game":"gathering","map":"small","agents":4,"steps":100,"seed":3,"eval_seeds":[0,1],"match_seeds":[0],"iterations":4,"candidates":1,"feedback":"critic","local_rounds":-1,"crossover_rate":-1,"planners":["grammar"],"pool":{"capacity":16,"promote_threshold":0.6,"temperature":100,"opponents":4},"pool_tag":"cmp-62580937-population-0","workers":2,"planner_concurrency":1,"max_planner_calls":3,"critic":"analytic","backend":"auto"}`,
	} {
		var c JobConfig
		if err := json.Unmarshal([]byte(stored), &c); err != nil {
			t.Fatal(err)
		}
		if c.Objective != pool.Elo || c.WithDefaults().Objective != pool.Elo {
			t.Errorf("a configuration stored before objectives reads as %q, not elo", c.Objective)
		}
		c.Objective = ""
		b, err := json.Marshal(c)
		want := strings.Replace(stored, `"planners"`, `"local_stop":-1,"refine":"all","parent_order":"shuffled","recheck":-1,"planners"`, 1)
		if err != nil || string(b) != want {
			t.Errorf("stored:\n%s\nencoded again:\n%s (%v)\nwant:\n%s", stored, b, err, want)
		}
		if !c.LocalStop.IsOff() || c.ParentOrder != ParentsShuffled || c.Refine != RefineAll || !c.Recheck.IsOff() {
			t.Errorf("a configuration stored before local stops, parent orders, races and rechecks read as %v, %q, %q, %v; want off, shuffled, all, off",
				c.LocalStop, c.ParentOrder, c.Refine, c.Recheck)
		}
		if len(c.RecheckSeeds()) != 0 {
			t.Errorf("a configuration stored before rechecks rechecks on %v", c.RecheckSeeds())
		}
		if d := c.WithDefaults(); d.LocalRounds != c.LocalRounds || d.CrossoverRate != c.CrossoverRate || d.LocalStop != c.LocalStop || d.ParentOrder != c.ParentOrder || d.Refine != c.Refine || d.Recheck != c.Recheck {
			t.Errorf("defaults changed a stored choice: %v %v %v %q -> %v %v %v %q", c.LocalRounds, c.CrossoverRate, c.LocalStop, c.ParentOrder,
				d.LocalRounds, d.CrossoverRate, d.LocalStop, d.ParentOrder)
		}
	}
	// One stored under the previous defaults (2 local rounds, parents
	// handed out best first) keeps them, not today's (6, lead).
	var prev JobConfig
	if err := json.Unmarshal([]byte(`{"mode":"population","game":"cleanup","seed":1,"local_rounds":2,"local_stop":1,"parent_order":"best","objective":"welfare"}`), &prev); err != nil {
		t.Fatal(err)
	}
	if d := prev.WithDefaults(); d.LocalRounds.Value() != 2 || d.ParentOrder != ParentsBest || d.LocalStop.Value() != 1 {
		t.Errorf("a configuration stored under the previous defaults reads as %v local rounds, parent order %q", d.LocalRounds, d.ParentOrder)
	}
	// A new configuration takes today's defaults, and reads back as
	// stored.
	fresh := JobConfig{}.WithDefaults()
	if fresh.LocalStop.Value() != DefaultLocalStop || fresh.ParentOrder != DefaultParentOrder || fresh.Refine != DefaultRefine {
		t.Errorf("new configuration: local stop %v, parent order %q, refine %q", fresh.LocalStop, fresh.ParentOrder, fresh.Refine)
	}
	if fresh.Recheck.Value() != DefaultRecheck || !slices.Equal(fresh.RecheckSeeds(), seedsFrom(5, DefaultRecheck)) {
		t.Errorf("new configuration: recheck %v on seeds %v, want %d seeds from 5", fresh.Recheck, fresh.RecheckSeeds(), DefaultRecheck)
	}
	raw, _ := json.Marshal(fresh)
	var back JobConfig
	if err := json.Unmarshal(raw, &back); err != nil || back.LocalStop != fresh.LocalStop || back.ParentOrder != fresh.ParentOrder || back.Refine != fresh.Refine || back.Recheck != fresh.Recheck {
		t.Errorf("a new configuration read back as %v, %q, %q, %v (%v)", back.LocalStop, back.ParentOrder, back.Refine, back.Recheck, err)
	}
	var none JobConfig
	json.Unmarshal([]byte(`{"local_rounds":-1,"crossover_rate":-1}`), &none)
	if none.LocalRounds.Value() != 0 || !none.CrossoverRate.IsOff() {
		t.Errorf("none read as %v, %v", none.LocalRounds, none.CrossoverRate)
	}
}

// TestIterationNumbering: iterations are numbered from 0; a chain and
// GEPA make K+1 (the initial policy or seed candidate, then K).
func TestIterationNumbering(t *testing.T) {
	for _, c := range []struct {
		mode       string
		iterations int
		want       int
	}{{ModePopulation, 5, 5}, {ModeChain, 3, 4}, {ModeGEPA, 3, 4}} {
		if got := (JobConfig{Mode: c.mode, Iterations: c.iterations}).TotalIterations(); got != c.want {
			t.Errorf("%s with --iterations %d: %d iterations in all, want %d", c.mode, c.iterations, got, c.want)
		}
	}
	for n, want := range []string{"no iteration done", "iteration 0 done", "iterations 0–1 done", "iterations 0–2 done"} {
		if got := IterationsDone(n); got != want {
			t.Errorf("IterationsDone(%d) = %q, want %q", n, got, want)
		}
	}
}

// seedsFrom is n seeds from first on.
func seedsFrom(first uint64, n int) []uint64 {
	out := make([]uint64, n)
	for i := range out {
		out[i] = first + uint64(i)
	}
	return out
}

// TestRecheckSeeds: the recheck seeds follow the largest evaluation seed,
// whatever the order the evaluation seeds were given in; off, none; a
// recheck with no room after the evaluation seeds, or beyond MaxRecheck,
// does not validate.
func TestRecheckSeeds(t *testing.T) {
	for _, tc := range []struct {
		eval    []uint64
		recheck Option[int]
		want    []uint64
	}{
		{nil, Option[int]{}, seedsFrom(5, DefaultRecheck)},
		{[]uint64{9, 2, 30}, On(3), []uint64{31, 32, 33}},
		{[]uint64{0, 1, 2, 3, 4}, Off[int](), nil},
		{[]uint64{0, 1, 2, 3, 4}, On(0), nil},
	} {
		c := JobConfig{EvalSeeds: tc.eval, Recheck: tc.recheck}
		if got := (JobConfig{Mode: ModeGEPA, EvalSeeds: tc.eval, Recheck: tc.recheck}).RecheckSeeds(); got != nil {
			t.Errorf("gepa, eval seeds %v, recheck %v: recheck seeds %v, want none", tc.eval, tc.recheck, got)
		}
		if got := c.RecheckSeeds(); !slices.Equal(got, tc.want) {
			t.Errorf("eval seeds %v, recheck %v: recheck seeds %v, want %v", tc.eval, tc.recheck, got, tc.want)
		}
		if err := c.WithDefaults().Validate(); err != nil {
			t.Errorf("eval seeds %v, recheck %v: %v", tc.eval, tc.recheck, err)
		}
	}
	for _, c := range []JobConfig{
		{EvalSeeds: []uint64{math.MaxUint64 - 1}, Recheck: On(2)},
		{Recheck: On(MaxRecheck + 1)},
	} {
		if err := c.WithDefaults().Validate(); err == nil || !strings.Contains(err.Error(), "recheck") {
			t.Errorf("eval seeds %v, recheck %v: validates (%v)", c.EvalSeeds, c.Recheck, err)
		}
		if got := c.RecheckSeeds(); got != nil {
			t.Errorf("eval seeds %v, recheck %v: recheck seeds %v, want none", c.EvalSeeds, c.Recheck, got)
		}
	}
}
