package experiment

import (
	"slices"
	"testing"
)

func TestCheckpoints(t *testing.T) {
	for _, c := range []struct {
		budget int
		want   []int
	}{
		{-1, nil},
		{0, nil},
		{1, []int{1}},
		{3, []int{1, 2, 3}},
		{24, []int{1, 2, 4, 8, 12, 16, 24}},
		{50, []int{1, 2, 4, 8, 12, 16, 24, 32, 40, 48, 50}},
	} {
		if got := Checkpoints(c.budget); !slices.Equal(got, c.want) {
			t.Errorf("Checkpoints(%d) = %v, want %v", c.budget, got, c.want)
		}
	}
	// No budget, no checkpoint: nothing to read (it used to index -1).
	if p := progressAt([][]float64{{1.5}}, 0); len(p) != 0 {
		t.Errorf("progressAt with no budget: %+v", p)
	}
}
