package pool

import (
	"math"
	"strings"
	"testing"
)

func TestParseObjective(t *testing.T) {
	for _, s := range []string{"welfare", "elo", "robust", "exploit"} {
		if o, err := ParseObjective(s); err != nil || string(o) != s {
			t.Errorf("ParseObjective(%q) = %q, %v", s, o, err)
		}
	}
	for _, s := range []string{"", "Welfare", "efficiency", "robust "} {
		_, err := ParseObjective(s)
		if err == nil || !strings.Contains(err.Error(), "want welfare, elo, robust or exploit") {
			t.Errorf("ParseObjective(%q): %v, want an error listing the objectives", s, err)
		}
	}
	if Stored("") != Elo || Stored(Welfare) != Welfare || Stored(Robust) != Robust {
		t.Error(`Stored: "" must read as elo, every other name as itself`)
	}
	if DefaultObjective != Objectives[0] || DefaultObjective != Welfare {
		t.Errorf("DefaultObjective %q, Objectives %q: a new run defaults to welfare, listed first", DefaultObjective, Objectives)
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
	// Under exploit: xb earns most as an invader though its group and
	// rating are worse; xd ties it, later; xf's invasion failed.
	xa := Entrant{ID: "xa", Member: true, Elo: 1300, Welfare: 4.6, Exploit: 480}
	xb := Entrant{ID: "xb", Elo: 1100, Welfare: 2.0, Exploit: 560}
	xc := Entrant{ID: "xc", Welfare: 4.0, Exploit: 300}
	xd := Entrant{ID: "xd", Welfare: 4.9, Exploit: 560}
	xf := Entrant{ID: "xf", Welfare: 5.0, Exploit: math.Inf(-1)}
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
		{"no such objective: no champion", "fair", []Entrant{a, b}, -1},
		{"exploit: the best invader, whatever its group or rating", Exploit, []Entrant{xa, xb, xc}, 1},
		{"exploit: a tie goes to the earlier", Exploit, []Entrant{xa, xb, xd}, 1},
		{"exploit: a failed invasion (-Inf) is never crowned over one that played", Exploit, []Entrant{xf, xa}, 1},
		{"exploit: none", Exploit, nil, -1},
	} {
		if got := tc.o.Champion(tc.es); got != tc.want {
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
		{Exploit, 0.65, true, false, true}, // no invasion test
		{Exploit, 0.6, true, true, false},
		{Exploit, 0.9, false, true, false},
		{Welfare, 0.6, true, true, false}, // strictly above
		{Elo, 0.9, false, true, false},    // its self-play failed
		{Elo, 0.61, true, false, true},
		{Robust, 0.9, true, false, false}, // invaded
		{Robust, 0.9, true, true, true},
		{Robust, 0.5, true, true, false},
		{"", 0.61, true, false, true}, // elo
		{"fair", 0.9, true, true, false},
	} {
		if got := tc.o.Admit(tc.rate, tc.ok, tc.res, DefaultPromoteThreshold); got != tc.admitted {
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

// TestObjectiveRules: what each objective answers — its game, whether it
// has the invasion test, whether its score is the pool's rating, its
// score column, what its pool's Elo counts and its sentence; "" answers
// as elo, a name no objective has answers nothing.
func TestObjectiveRules(t *testing.T) {
	for _, tc := range []struct {
		o        Objective
		game     Game
		invasion bool
		rated    bool
		exploits bool
		column   string
		counted  string
		sentence string
	}{
		{Welfare, SelfPlay, false, false, false, "efficiency", "games of self-play compared seed by seed",
			"its pool's games compare self-play seed by seed; the champion is BEST"},
		{Elo, MixedMatch, false, true, false, "elo", "mixed matches",
			"its pool's games are mixed matches; the champion is its top-rated candidate in the pool"},
		{"", MixedMatch, false, true, false, "elo", "mixed matches",
			"its pool's games are mixed matches; the champion is its top-rated candidate in the pool"},
		{Robust, SelfPlay, true, false, false, "efficiency", "games of self-play compared seed by seed",
			"its pool's games compare self-play seed by seed, and only a candidate no pool member invades by more than 0.05 of the residents' return joins it; the champion is BEST among those that resist invasion"},
		{Exploit, Invasion, false, false, true, "elo", "invasions of the target compared seed by seed",
			"its pool's games compare the two policies' returns as invaders among the same residents seed by seed; the champion is the best invader: the highest per-agent return among the target's residents"},
		{"fair", 0, false, false, false, "efficiency", "no games", `"fair" is no objective`},
	} {
		if got := tc.o.Game(); got != tc.game {
			t.Errorf("%q: game %d, want %d", tc.o, got, tc.game)
		}
		if got := tc.o.InvasionTest(); got != tc.invasion {
			t.Errorf("%q: invasion test %v, want %v", tc.o, got, tc.invasion)
		}
		if got := tc.o.Rated(); got != tc.rated {
			t.Errorf("%q: rated %v, want %v", tc.o, got, tc.rated)
		}
		if got := tc.o.Exploits(); got != tc.exploits {
			t.Errorf("%q: exploits %v, want %v", tc.o, got, tc.exploits)
		}
		if got := tc.o.ScoreColumn(); got != tc.column {
			t.Errorf("%q: score column %q, want %q", tc.o, got, tc.column)
		}
		if got := tc.o.GamesCounted(); got != tc.counted {
			t.Errorf("%q: counts %q, want %q", tc.o, got, tc.counted)
		}
		if got := tc.o.Describe("BEST", 0.05); got != tc.sentence {
			t.Errorf("%q: described\n  %q\nwant\n  %q", tc.o, got, tc.sentence)
		}
		// A member picked by its rating is not rechecked; one picked by
		// self-play or by its invasion is.
		member, outsider := Entrant{ID: "m", Member: true}, Entrant{ID: "o"}
		if got := tc.o.Rechecks(member); got == tc.rated {
			t.Errorf("%q: a member rechecked %v", tc.o, got)
		}
		if !tc.o.Rechecks(outsider) {
			t.Errorf("%q: a candidate outside the pool is not rechecked", tc.o)
		}
	}
}
