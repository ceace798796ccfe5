package pool

import (
	"strings"
	"testing"
)

func TestParseObjective(t *testing.T) {
	for _, s := range []string{"welfare", "elo"} {
		if o, err := ParseObjective(s); err != nil || string(o) != s {
			t.Errorf("ParseObjective(%q) = %q, %v", s, o, err)
		}
	}
	for _, s := range []string{"", "Welfare", "efficiency", "robust "} {
		_, err := ParseObjective(s)
		if err == nil || !strings.Contains(err.Error(), "want welfare or elo") {
			t.Errorf("ParseObjective(%q): %v, want an error listing the objectives", s, err)
		}
	}
	if Objective("").OrElo() != Elo || Welfare.OrElo() != Welfare {
		t.Error("OrElo")
	}
}

// TestChampion: each objective's champion rule over a run's candidates.
func TestChampion(t *testing.T) {
	// a: a beamer rated highest in the pool, poor group; b: the best
	// group, promoted but rated lower; c: better group than a, never
	// promoted; d: b's equal on welfare, later; e: a's equal on Elo with a
	// smaller id, later.
	a := Entrant{ID: "a9", Member: true, Elo: 1290, Welfare: 3.6}
	b := Entrant{ID: "b1", Member: true, Elo: 1230, Welfare: 4.6}
	c := Entrant{ID: "c1", Welfare: 4.4}
	d := Entrant{ID: "d1", Member: true, Elo: 1250, Welfare: 4.6}
	e := Entrant{ID: "a1", Member: true, Elo: 1290, Welfare: 3.0}
	out := Entrant{ID: "x", Welfare: 1}
	for _, tc := range []struct {
		name string
		o    Objective
		es   []Entrant
		want int
	}{
		{"none", Welfare, nil, -1},
		{"none", Elo, nil, -1},
		{"welfare: the best group, member or not", Welfare, []Entrant{a, c, out}, 1},
		{"welfare: the best group", Welfare, []Entrant{a, b, c}, 1},
		{"welfare: a tie goes to the earlier", Welfare, []Entrant{a, b, d}, 1},
		{"elo: the top-rated member", Elo, []Entrant{c, a, b}, 1},
		{"elo: a tie in Elo goes to the smaller id", Elo, []Entrant{a, b, e}, 2},
		{"elo: no member, the best group", Elo, []Entrant{out, c}, 1},
		{"elo: a member beats any non-member", Elo, []Entrant{c, out, Entrant{ID: "m", Member: true, Elo: 1000}}, 2},
		{"empty objective is elo", "", []Entrant{c, a, b}, 1},
	} {
		if got := Champion(tc.o, tc.es); got != tc.want {
			t.Errorf("%s: champion %d, want %d", tc.name, got, tc.want)
		}
	}
}
