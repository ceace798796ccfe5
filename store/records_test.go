package store

import "testing"

// TestPooledEfficiency: evaluations on different seeds pool by their
// seeds; any failed one, or none at all, gives no figure.
func TestPooledEfficiency(t *testing.T) {
	ev := func(status string, eff float64, seeds int) *Evaluation {
		return &Evaluation{Status: status, Mean: Metrics{Efficiency: eff}, PerSeed: make([]SeedResult, seeds)}
	}
	for _, tc := range []struct {
		name string
		evs  []*Evaluation
		want float64
		ok   bool
	}{
		{"one", []*Evaluation{ev(StatusOK, 3.5, 5)}, 3.5, true},
		{"weighted by seeds", []*Evaluation{ev(StatusOK, 3.5, 5), ev(StatusOK, 3.0, 20)}, 3.1, true},
		{"a failed one", []*Evaluation{ev(StatusOK, 3.5, 5), ev(StatusFailed, 3.0, 20)}, 0, false},
		{"none", nil, 0, false},
	} {
		got, ok := PooledEfficiency(tc.evs...)
		if ok != tc.ok || (ok && (got < tc.want-1e-12 || got > tc.want+1e-12)) {
			t.Errorf("%s: %v, %v; want %v, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}
