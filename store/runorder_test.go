package store

import (
	"fmt"
	"testing"
)

// TestRunsInCreationOrder: with more than nine runs, Runs lists them by
// the number in their ids (run-9 before run-10), not as strings sort.
func TestRunsInCreationOrder(t *testing.T) {
	s := newStore(t)
	const n = 12
	if err := s.Update(func(tx *Tx) error {
		for range n {
			if err := tx.CreateRun(&Run{Mode: "population", Status: StatusDone}); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	var runs []Run
	if err := s.View(func(tx *Tx) (err error) { runs, err = tx.Runs(); return err }); err != nil {
		t.Fatal(err)
	}
	if len(runs) != n {
		t.Fatalf("got %d runs, want %d", len(runs), n)
	}
	for i, r := range runs {
		if want := fmt.Sprintf("run-%d", i+1); r.ID != want {
			t.Errorf("runs[%d] = %s, want %s", i, r.ID, want)
		}
	}
}

func TestCompareRunIDs(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"run-9", "run-10", -1},
		{"run-10", "run-9", 1},
		{"run-2", "run-2", 0},
		{"run-2", "other", -1},
		{"other", "run-2", 1},
		{"a", "b", -1},
	} {
		if got := CompareRunIDs(tc.a, tc.b); got != tc.want {
			t.Errorf("CompareRunIDs(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}
