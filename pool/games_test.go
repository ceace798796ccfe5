package pool

import "testing"

func TestGamesLabel(t *testing.T) {
	for _, tc := range []struct {
		o    Objective
		want string
	}{
		{Welfare, "20/0/0 (won/drawn/lost) in 20 games counted by welfare (self-play compared seed by seed); the mixed matches are not counted"},
		{Robust, "20/0/0 (won/drawn/lost) in 20 games counted by robust (self-play compared seed by seed); the mixed matches are not counted"},
		{Elo, "20/0/0 (won/drawn/lost) in 20 mixed matches counted by elo"},
		{"", "20/0/0 (won/drawn/lost) in 20 mixed matches counted by elo"},
	} {
		if got := GamesLabel(tc.o, 20, 0, 0, 20); got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.o, got, tc.want)
		}
	}
}
