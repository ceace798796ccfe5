package pool

import (
	"strings"
	"testing"
)

func TestParseObjective(t *testing.T) {
	for _, s := range []string{"welfare", "elo", "robust"} {
		if o, err := ParseObjective(s); err != nil || string(o) != s {
			t.Errorf("ParseObjective(%q) = %q, %v", s, o, err)
		}
	}
	for _, s := range []string{"", "Welfare", "efficiency", "robust "} {
		_, err := ParseObjective(s)
		if err == nil || !strings.Contains(err.Error(), "want welfare, elo or robust") {
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
	// Under robust: b and c are invaded by 10% and 5%, a by 1% (none
	// resists); ra, rb, rc resist, rb with the best group.
	b.Invaded, c.Invaded, a.Invaded = 0.10, 0.05, 0.01
	ax := a
	ax.ID, ax.Welfare = "ax", 3.7
	ra := Entrant{ID: "ra", Welfare: 3.0, Resists: true}
	rb := Entrant{ID: "rb", Welfare: 4.0, Resists: true, Member: true}
	rc := Entrant{ID: "rc", Welfare: 3.9, Resists: true}
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
		{"robust: the best group among those that resist", Robust, []Entrant{ra, rb, rc}, 1},
		{"robust: a resisting one beats any better group that does not", Robust, []Entrant{b, ra}, 1},
		{"robust: none resists, the least invaded", Robust, []Entrant{b, c, a}, 2},
		{"robust: none resists, equally invaded, the best group", Robust, []Entrant{a, ax}, 1},
	} {
		if got := Champion(tc.o, tc.es); got != tc.want {
			t.Errorf("%s: champion %d, want %d", tc.name, got, tc.want)
		}
	}
}

// TestAdmit: promotion under each objective — a win rate strictly above
// the threshold and a self-play that succeeded; under robust, also the
// invasion test.
func TestAdmit(t *testing.T) {
	for _, tc := range []struct {
		o        Objective
		rate     float64
		ok, res  bool
		admitted bool
	}{
		{Welfare, 0.65, true, false, true},
		{Welfare, 0.6, true, true, false}, // strictly above
		{Elo, 0.9, false, true, false},    // its self-play failed
		{Elo, 0.61, true, false, true},
		{Robust, 0.9, true, false, false}, // invaded
		{Robust, 0.9, true, true, true},
		{Robust, 0.5, true, true, false},
	} {
		if got := Admit(tc.o, tc.rate, tc.ok, tc.res, DefaultPromoteThreshold); got != tc.admitted {
			t.Errorf("%s, win rate %v, self-play ok %v, resists %v: admitted %v", tc.o, tc.rate, tc.ok, tc.res, got)
		}
	}
}

// TestResists: an invader may gain up to the margin's share of the
// residents' return, and never less than a tenth.
func TestResists(t *testing.T) {
	for _, tc := range []struct {
		gain, residents, margin float64
		want                    bool
	}{
		{0, 400, 0.02, true},
		{8, 400, 0.02, true},
		{8.5, 400, 0.02, false},
		{15.2, 434.8, 0.02, false}, // a beamer among Gathering's best cooperators
		{15.2, 434.8, 0.05, true},
		{0.1, 1, 0.02, true},
		{0.2, -5, 0.02, false},
	} {
		if got := Resists(tc.gain, tc.residents, tc.margin); got != tc.want {
			t.Errorf("Resists(%v, %v, %v) = %v", tc.gain, tc.residents, tc.margin, got)
		}
	}
}
