package store

import (
	"testing"
	"time"
)

// TestPoolEvaluations: a member's figure is the mean over every seed it
// was played on in the environment (each seed's latest result), not its
// latest evaluation's: a champion rechecked on seeds 2–3 after 0–1 reads
// the mean over 0–3 (before, pool ls showed the recheck's 2–3 alone).
func TestPoolEvaluations(t *testing.T) {
	env := EnvConfig{Game: "gathering", Map: "small", Agents: 4, MaxSteps: 60}
	other := env
	other.MaxSteps = 100
	t0 := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	ev := func(env EnvConfig, at int, status string, effs map[uint64]float64) Evaluation {
		e := Evaluation{Env: env, Status: status, Created: t0.Add(time.Duration(at) * time.Minute)}
		for _, s := range []uint64{0, 1, 2, 3, 4} {
			if v, ok := effs[s]; ok {
				e.Seeds = append(e.Seeds, s)
				e.PerSeed = append(e.PerSeed, SeedResult{Seed: s, Status: StatusOK, Metrics: Metrics{Efficiency: v, Peace: 2 * v}})
			}
		}
		return e
	}
	for _, tc := range []struct {
		name   string
		evs    []Evaluation
		ok     bool
		mean   float64
		seeds  []uint64
		failed bool
	}{
		{"none on env", []Evaluation{ev(other, 0, StatusOK, map[uint64]float64{0: 1})}, false, 0, nil, false},
		{"one", []Evaluation{ev(env, 0, StatusOK, map[uint64]float64{0: 1, 1: 3})}, true, 2, []uint64{0, 1}, false},
		{"rechecked", []Evaluation{ev(env, 1, StatusOK, map[uint64]float64{2: 5, 3: 7}), ev(env, 0, StatusOK, map[uint64]float64{0: 1, 1: 3}),
			ev(other, 2, StatusOK, map[uint64]float64{4: 100})}, true, 4, []uint64{0, 1, 2, 3}, false},
		{"a seed played again: the latest counts", []Evaluation{ev(env, 0, StatusOK, map[uint64]float64{0: 1, 1: 3}), ev(env, 1, StatusOK, map[uint64]float64{1: 5})},
			true, 3, []uint64{0, 1}, false},
		{"latest failed", []Evaluation{ev(env, 0, StatusOK, map[uint64]float64{0: 2}), ev(env, 1, StatusFailed, nil)}, true, 2, []uint64{0}, true},
	} {
		p, ok := PoolEvaluations(tc.evs, env)
		if ok != tc.ok || p.Mean.Efficiency != tc.mean || p.Mean.Peace != 2*tc.mean || p.Failed != tc.failed || len(p.Seeds) != len(tc.seeds) {
			t.Errorf("%s: got %+v %v, want mean %v on %v, failed %v", tc.name, p, ok, tc.mean, tc.seeds, tc.failed)
			continue
		}
		for i := range tc.seeds {
			if p.Seeds[i] != tc.seeds[i] {
				t.Errorf("%s: seeds %v, want %v", tc.name, p.Seeds, tc.seeds)
			}
		}
	}
}
