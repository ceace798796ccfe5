package elo

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestExpectedAndUpdate(t *testing.T) {
	for _, c := range []struct {
		ra, rb, score  float64
		wantE          float64
		wantRa, wantRb float64
	}{
		{1200, 1200, Win, 0.5, 1216, 1184},
		{1200, 1200, Draw, 0.5, 1200, 1200},
		{1200, 1200, Loss, 0.5, 1184, 1216},
		{1400, 1200, Win, 1 / (1 + math.Pow(10, -0.5)), 1400 + 32*(1-1/(1+math.Pow(10, -0.5))), 1200 - 32*(1-1/(1+math.Pow(10, -0.5)))},
		{1200, 1600, Draw, 1 / 11.0, 1200 + 32*(0.5-1/11.0), 1600 - 32*(0.5-1/11.0)},
	} {
		if got := Expected(c.ra, c.rb); !near(got, c.wantE, 1e-12) {
			t.Errorf("Expected(%v, %v) = %v, want %v", c.ra, c.rb, got, c.wantE)
		}
		a, b := Update(c.ra, c.rb, c.score, DefaultK)
		if !near(a, c.wantRa, 1e-9) || !near(b, c.wantRb, 1e-9) {
			t.Errorf("Update(%v, %v, %v) = %v, %v; want %v, %v", c.ra, c.rb, c.score, a, b, c.wantRa, c.wantRb)
		}
		if !near(a+b, c.ra+c.rb, 1e-9) {
			t.Errorf("update is not zero-sum")
		}
	}
}

func TestOutcome(t *testing.T) {
	for _, c := range []struct {
		a, b, want float64
	}{
		{100, 100, Draw},
		{100, 101.9, Draw}, // within 2%
		{100, 103, Loss},
		{103, 100, Win},
		{0, 0.05, Draw}, // within the absolute tenth
		{0, 0.2, Loss},
		{-50, -55, Win},
		{-50, -50.5, Draw},
	} {
		if got := Outcome(c.a, c.b); got != c.want {
			t.Errorf("Outcome(%v, %v) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

func TestPlaySwapsSides(t *testing.T) {
	// Side 0 collects 10 per agent, side 1 collects 4; agent 0 gets a bonus
	// of 6 whichever side holds it, which swapping cancels.
	var seen [][]int
	run := func(_ context.Context, side []int, seed uint64) ([]float64, error) {
		seen = append(seen, slices.Clone(side))
		r := make([]float64, len(side))
		for i, s := range side {
			r[i] = []float64{10, 4}[s]
			if i == 0 {
				r[i] += 6
			}
		}
		return r, nil
	}
	res, err := Play(context.Background(), run, 5, 3)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(seen[0], []int{0, 1, 0, 1, 0}) || !slices.Equal(seen[1], []int{1, 0, 1, 0, 1}) {
		t.Fatalf("seatings %v", seen)
	}
	// A: (16+10+10) + (10+10) over 5 slots = 11.2; B: (4+4) + (10+4+4) over 5 = 5.2.
	if !near(res.ScoreA, 11.2, 1e-12) || !near(res.ScoreB, 5.2, 1e-12) || res.Outcome != Win {
		t.Fatalf("result %+v", res)
	}
	if _, err := Play(context.Background(), run, 1, 0); err == nil {
		t.Fatal("a one-agent match was accepted")
	}
	boom := errors.New("boom")
	_, err = Play(context.Background(), func(context.Context, []int, uint64) ([]float64, error) { return nil, boom }, 2, 0)
	if !errors.Is(err, boom) {
		t.Fatalf("got %v", err)
	}
}

func TestBradleyTerryRecoversStrengths(t *testing.T) {
	strength := []float64{4, 2, 1}
	const games = 70000
	wins := make([][]float64, 3)
	for i := range wins {
		wins[i] = make([]float64, 3)
		for j := range wins[i] {
			if i != j {
				wins[i][j] = games * strength[i] / (strength[i] + strength[j])
			}
		}
	}
	r := BradleyTerry(wins)
	step := 400 * math.Log10(2)
	if !near(r[0]-r[1], step, 0.1) || !near(r[1]-r[2], step, 0.1) {
		t.Fatalf("ratings %v, want steps of %.2f", r, step)
	}
	if !near((r[0]+r[1]+r[2])/3, DefaultInitial, 1e-6) {
		t.Fatalf("ratings %v are not centred on %d", r, DefaultInitial)
	}
	// Order independence: permuting the players permutes the ratings.
	perm := []int{2, 0, 1}
	pw := make([][]float64, 3)
	for i := range pw {
		pw[i] = make([]float64, 3)
		for j := range pw[i] {
			pw[i][j] = wins[perm[i]][perm[j]]
		}
	}
	pr := BradleyTerry(pw)
	for i := range pr {
		if !near(pr[i], r[perm[i]], 1e-6) {
			t.Fatalf("permuted ratings %v vs %v", pr, r)
		}
	}
}

func TestBradleyTerryKnownSmallMatrix(t *testing.T) {
	// Two players, 3-1: with the prior's virtual draw the odds are 3.5:1.5.
	r := BradleyTerry([][]float64{{0, 3}, {1, 0}})
	if want := 400 * math.Log10(3.5/1.5); !near(r[0]-r[1], want, 1e-6) {
		t.Fatalf("difference %v, want %v", r[0]-r[1], want)
	}
	// An unbeaten player stays finite; a player who met nobody sits at 1200.
	r = BradleyTerry([][]float64{{0, 5, 0}, {0, 0, 0}, {0, 0, 0}})
	if math.IsInf(r[0], 0) || math.IsNaN(r[0]) || r[0] <= r[1] || r[2] != DefaultInitial ||
		!near((r[0]+r[1])/2, DefaultInitial, 1e-6) {
		t.Fatalf("ratings %v", r)
	}
}

func TestRoundRobinAndExploitability(t *testing.T) {
	// Rock-paper-scissors among 0, 1, 2; 3 loses to everyone.
	beats := func(i, j int) bool {
		if i == 3 || j == 3 {
			return j == 3
		}
		return (i+1)%3 == j
	}
	play := func(_ context.Context, i, j int, seed uint64) (*Result, error) {
		switch {
		case beats(i, j):
			return &Result{ScoreA: 10, ScoreB: 5, Outcome: Win}, nil
		case beats(j, i):
			return &Result{ScoreA: 5, ScoreB: 10, Outcome: Loss}, nil
		}
		return &Result{ScoreA: 7, ScoreB: 7, Outcome: Draw}, nil
	}
	l, err := RoundRobin(context.Background(), 4, []uint64{0, 1}, play)
	if err != nil {
		t.Fatal(err)
	}
	if l.Games[0][1] != 2 || l.Points[0][1] != 1 || l.Points[1][0] != 0 || l.Payoff[0][3] != 10 {
		t.Fatalf("league %+v", l)
	}
	if !(l.Ratings[3] < l.Ratings[0] && near(l.Ratings[0], l.Ratings[1], 1e-6) && near(l.Ratings[1], l.Ratings[2], 1e-6)) {
		t.Fatalf("ratings %v", l.Ratings)
	}
	ex := l.Exploitability()
	if ex[0].Opponent != 2 || ex[0].Margin != -5 || ex[3].Margin != -5 {
		t.Fatalf("exploitability %+v", ex)
	}
}
