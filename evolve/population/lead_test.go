package population

import (
	"math"
	"testing"

	"policyevolve/store"
)

func eval(status string, effs ...float64) *store.Evaluation {
	ev := &store.Evaluation{Status: status}
	for _, e := range effs {
		ev.PerSeed = append(ev.PerSeed, store.SeedResult{Status: status, Metrics: store.Metrics{Efficiency: e}})
		ev.Mean.Efficiency += e / float64(len(effs))
	}
	return ev
}

// TestCanLead: a first version may still lead unless it is behind the
// lead by more than the lead's standard error over its seeds; one that
// failed never leads; with no lead yet every version that played may.
func TestCanLead(t *testing.T) {
	ok := store.StatusOK
	lead := eval(ok, 3.0, 3.2, 3.4, 3.6, 3.8) // mean 3.4, sd 0.316, se 0.1414
	if se := StdErr(lead); math.Abs(se-math.Sqrt(0.1)/math.Sqrt(5)) > 1e-12 {
		t.Fatalf("standard error %v", se)
	}
	for _, tc := range []struct {
		name  string
		first *store.Evaluation
		lead  *store.Evaluation
		want  bool
	}{
		{"no lead yet", eval(ok, 1, 1), nil, true},
		{"failed, no lead yet", eval("failed", 1, 1), nil, false},
		{"above the lead", eval(ok, 3.5, 3.5), lead, true},
		{"within the error", eval(ok, 3.27, 3.27), lead, true},
		{"beyond the error", eval(ok, 3.25, 3.25), lead, false},
		{"one seed: no error", eval(ok, 3.39, 3.39), eval(ok, 3.4), false},
		{"a tie with one seed", eval(ok, 3.4, 3.4), eval(ok, 3.4), true},
	} {
		if got := canLead(tc.first, tc.lead); got != tc.want {
			t.Errorf("%s: canLead = %v, want %v", tc.name, got, tc.want)
		}
	}
	if leader(nil, eval("failed", 9)) != nil || leader(lead, eval(ok, 3.0, 3.2, 3.4, 3.6, 3.8)) != lead || leader(lead, eval(ok, 3.5)) == lead {
		t.Error("leader: a failed evaluation leads, or a tie or a better one is misjudged")
	}
}
