package search

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"policyevolve/evolve/arena"
	"policyevolve/evolve/episode"
	"policyevolve/internal/storetest"
	"policyevolve/pool"
	"policyevolve/store"
)

// fakeRecheck scores each id from a table and records the ids it was asked
// for, in order.
type fakeRecheck struct {
	score map[string]float64
	asked []string
}

func (f *fakeRecheck) recheck(_ context.Context, id string) (float64, error) {
	f.asked = append(f.asked, id)
	s, ok := f.score[id]
	if !ok {
		return 0, errors.New("no score for " + id)
	}
	return s, nil
}

func TestCrown(t *testing.T) {
	fail := math.Inf(-1)
	for _, tc := range []struct {
		name   string
		o      pool.Objective
		es     []pool.Entrant
		score  map[string]float64 // rechecked scores
		want   string
		asked  []string
		noFake bool // recheck nil
	}{
		{
			name:  "the luckiest on the evaluation seeds falls behind the next",
			o:     pool.Welfare,
			es:    []pool.Entrant{{ID: "a", Welfare: 3.50}, {ID: "b", Welfare: 3.54}, {ID: "c", Welfare: 3.52}, {ID: "d", Welfare: 3.40}},
			score: map[string]float64{"a": 3.51, "b": 3.49, "c": 3.515},
			want:  "c", asked: []string{"b", "c"},
		},
		{
			name:  "a rechecked leader above the rest's evaluation scores stays",
			o:     pool.Welfare,
			es:    []pool.Entrant{{ID: "a", Welfare: 3.50}, {ID: "b", Welfare: 3.54}},
			score: map[string]float64{"b": 3.52},
			want:  "b", asked: []string{"b"},
		},
		{
			name:  "every contender rechecked in turn; the best rechecked wins",
			o:     pool.Welfare,
			es:    []pool.Entrant{{ID: "a", Welfare: 3.50}, {ID: "b", Welfare: 3.54}, {ID: "c", Welfare: 3.52}},
			score: map[string]float64{"a": 3.46, "b": 3.47, "c": 3.48},
			want:  "c", asked: []string{"b", "c", "a"},
		},
		{
			name:  "when every contender fails on a recheck seed, the first is crowned, with no rechecked score",
			o:     pool.Welfare,
			es:    []pool.Entrant{{ID: "a", Welfare: 3.0}, {ID: "b", Welfare: 5.0}},
			score: map[string]float64{"a": fail, "b": fail},
			want:  "a", asked: []string{"b", "a"},
		},
		{
			name:  "one that fails on a recheck seed cannot lead",
			o:     pool.Welfare,
			es:    []pool.Entrant{{ID: "a", Welfare: 3.0}, {ID: "b", Welfare: 5.0}},
			score: map[string]float64{"a": 2.9, "b": fail},
			want:  "a", asked: []string{"b", "a"},
		},
		{
			name:  "under robust the best among those that resist",
			o:     pool.Robust,
			es:    []pool.Entrant{{ID: "a", Welfare: 5.0}, {ID: "b", Welfare: 3.5, Resists: true}, {ID: "c", Welfare: 3.4, Resists: true}},
			score: map[string]float64{"b": 3.3, "c": 3.35},
			want:  "c", asked: []string{"b", "c"},
		},
		{
			name:  "under elo a member is crowned by its rating, unrechecked",
			o:     pool.Elo,
			es:    []pool.Entrant{{ID: "a", Welfare: 5.0}, {ID: "b", Welfare: 3.0, Member: true, Elo: 1300}},
			score: map[string]float64{},
			want:  "b", asked: nil,
		},
		{
			name:   "without a recheck, the evaluation seeds decide",
			o:      pool.Welfare,
			es:     []pool.Entrant{{ID: "a", Welfare: 3.50}, {ID: "b", Welfare: 3.54}},
			noFake: true,
			want:   "b",
		},
		{
			name: "no entrant, no champion",
			o:    pool.Welfare,
			want: "",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeRecheck{score: tc.score}
			var r Recheck = f.recheck
			if tc.noFake {
				r = nil
			}
			es := slices.Clone(tc.es)
			k, rechecked, err := Crown(context.Background(), tc.o, es, r)
			if err != nil {
				t.Fatal(err)
			}
			if want := k >= 0 && slices.Contains(f.asked, es[k].ID); rechecked != want {
				t.Errorf("rechecked %v, want %v", rechecked, want)
			}
			got := ""
			if k >= 0 {
				got = es[k].ID
			}
			if got != tc.want {
				t.Errorf("champion %q, want %q", got, tc.want)
			}
			switch score := RecheckedScore(pool.Welfare, es, k, rechecked); {
			case rechecked && !math.IsInf(tc.score[got], 0) && (score == nil || *score != tc.score[got]):
				t.Errorf("rechecked score %v, want %v", score, tc.score[got])
			case (!rechecked || math.IsInf(tc.score[got], 0)) && score != nil:
				t.Errorf("rechecked score %v, want none", *score)
			}
			if !slices.Equal(f.asked, tc.asked) {
				t.Errorf("rechecked %q, want %q", f.asked, tc.asked)
			}
			for _, id := range f.asked {
				i := slices.IndexFunc(es, func(e pool.Entrant) bool { return e.ID == id })
				if es[i].Welfare != tc.score[id] {
					t.Errorf("%s: welfare %v after its recheck, want %v", id, es[i].Welfare, tc.score[id])
				}
			}
		})
	}
}

func TestCrownRecheckError(t *testing.T) {
	f := &fakeRecheck{score: map[string]float64{}}
	es := []pool.Entrant{{ID: "a", Welfare: 1}}
	if k, _, err := Crown(context.Background(), pool.Welfare, es, f.recheck); err == nil || k != -1 {
		t.Fatalf("Crown = %d, %v; want -1 and the recheck's error", k, err)
	}
}

// TestRechecker: a recheck's score is the policy's mean efficiency over
// the evaluation seeds and the recheck seeds together, as one evaluation
// over all of them gives it, and both evaluations are stored.
func TestRechecker(t *testing.T) {
	s := storetest.Open(t, filepath.Join(t.TempDir(), "crown.db"))
	env, err := episode.ResolveEnv("gathering", "small", 4, 200)
	if err != nil {
		t.Fatal(err)
	}
	p := &store.Policy{Source: episode.BuiltinSource("random"), Name: "random", Builtin: "random", Origin: store.Origin{Operator: "builtin"}}
	if err := s.Update(func(tx *store.Tx) error { _, err := tx.PutPolicy(p); return err }); err != nil {
		t.Fatal(err)
	}
	a := &arena.Arena{Store: s, Env: env, EvalSeeds: []uint64{0, 1}}
	defer a.Close()
	var lines []string
	r := Rechecker(a, []uint64{3, 2}, func(format string, args ...any) { lines = append(lines, fmt.Sprintf(format, args...)) })
	got, err := r(context.Background(), p.ID)
	if err != nil {
		t.Fatal(err)
	}
	all := &arena.Arena{Store: s, Env: env, EvalSeeds: []uint64{0, 1, 2, 3}}
	defer all.Close()
	ev, err := all.Evaluate(context.Background(), p.ID)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(got-ev.Mean.Efficiency) > 1e-12 {
		t.Errorf("recheck score %v, want the mean over seeds 0-3, %v", got, ev.Mean.Efficiency)
	}
	var effs []float64
	for _, sr := range ev.PerSeed {
		effs = append(effs, sr.Metrics.Efficiency)
	}
	if slices.Min(effs) == slices.Max(effs) {
		t.Fatalf("random plays alike on every seed (%v): the test cannot tell the seeds apart", effs)
	}
	for _, seeds := range [][]uint64{{0, 1}, {2, 3}} {
		if err := s.View(func(tx *store.Tx) error { _, err := tx.Evaluation(p.ID, env.Config, seeds); return err }); err != nil {
			t.Errorf("evaluation on seeds %v: %v", seeds, err)
		}
	}
	if len(lines) != 1 || !strings.Contains(lines[0], "rechecked") {
		t.Errorf("log %q, want one line on the recheck", lines)
	}
	if Rechecker(a, nil, nil) != nil {
		t.Error("Rechecker without seeds is not nil")
	}
}
