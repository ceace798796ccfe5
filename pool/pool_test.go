package pool

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestConfigDefaults(t *testing.T) {
	c := Config{}.WithDefaults()
	if c.Capacity != 16 || c.PromoteThreshold != 0.6 || c.Temperature != 100 || c.Opponents != 4 {
		t.Fatalf("defaults %+v", c)
	}
	if c := (Config{Capacity: 3}).WithDefaults(); c.Capacity != 3 {
		t.Fatalf("explicit capacity overwritten: %+v", c)
	}
}

func TestPromote(t *testing.T) {
	for _, c := range []struct {
		points float64
		games  int
		ok     bool
		want   bool
	}{
		{3, 5, true, false},   // 0.6: the threshold is to be beaten, not met (PolicyEvolve)
		{3.5, 5, true, true},  // 0.7
		{2.5, 5, true, false}, // 0.5
		{5, 5, false, false},  // unbeaten, but its self-play failed
		{0, 0, true, false},   // no games
		{3.5, 4, true, true},
	} {
		if got := Promote(WinRate(c.points, c.games), c.ok, DefaultPromoteThreshold); got != c.want {
			t.Errorf("Promote(%v/%d, ok=%v) = %v, want %v", c.points, c.games, c.ok, got, c.want)
		}
	}
}

func TestSampleOpponents(t *testing.T) {
	members := []Member{{ID: "weak", Elo: 1000}, {ID: "mid", Elo: 1200}, {ID: "strong", Elo: 1400}}
	rng := rand.New(rand.NewPCG(1, 2))
	counts := map[string]int{}
	const draws = 30000
	for i := 0; i < draws; i++ {
		got := SampleOpponents(members, 1, 100, rng)
		counts[got[0].ID]++
	}
	// Softmax with T=100: weights e^-2 : e^0 : e^2 relative to mid.
	z := math.Exp(-2) + 1 + math.Exp(2)
	for id, w := range map[string]float64{"weak": math.Exp(-2) / z, "mid": 1 / z, "strong": math.Exp(2) / z} {
		if got := float64(counts[id]) / draws; math.Abs(got-w) > 0.01 {
			t.Errorf("%s drawn %.3f of the time, want %.3f", id, got, w)
		}
	}
	// Without replacement; k larger than the pool gives everyone once.
	all := SampleOpponents(members, 10, 100, rng)
	seen := map[string]bool{}
	for _, m := range all {
		seen[m.ID] = true
	}
	if len(all) != 3 || len(seen) != 3 {
		t.Fatalf("got %v", all)
	}
	// Same rng state, same draws.
	a := SampleOpponents(members, 2, 50, rand.New(rand.NewPCG(9, 9)))
	b := SampleOpponents(members, 2, 50, rand.New(rand.NewPCG(9, 9)))
	if a[0] != b[0] || a[1] != b[1] {
		t.Fatal("sampling is not determined by the rng")
	}
	// Huge ratings do not overflow.
	if got := SampleOpponents([]Member{{ID: "x", Elo: 1e6}, {ID: "y", Elo: 1e6 + 1}}, 1, 1, rng); len(got) != 1 {
		t.Fatal("overflow")
	}
}

func TestFronts(t *testing.T) {
	m := []Member{
		{ID: "a", Elo: 1300, Efficiency: 2, Equality: 0.9, Sustainability: 500}, // dominates c
		{ID: "b", Elo: 1100, Efficiency: 3, Equality: 0.5, Sustainability: 400}, // trade-off with a
		{ID: "c", Elo: 1200, Efficiency: 1, Equality: 0.8, Sustainability: 300}, // dominated by a
		{ID: "d", Elo: 1000, Efficiency: 0.5, Equality: 0.4, Sustainability: 100},
	}
	f := Fronts(m)
	if len(f) != 3 || len(f[0]) != 2 || f[0][0] != 0 || f[0][1] != 1 || f[1][0] != 2 || f[2][0] != 3 {
		t.Fatalf("fronts %v", f)
	}
}

func TestEvict(t *testing.T) {
	for _, c := range []struct {
		name     string
		members  []Member
		capacity int
		want     []string // evicted, in order
	}{
		{"under capacity", []Member{{ID: "a"}, {ID: "b"}}, 2, nil},
		{"dominated goes first",
			[]Member{
				{ID: "top", Elo: 1400, Efficiency: 3, Equality: 0.9, Sustainability: 500},
				{ID: "low", Elo: 1000, Efficiency: 1, Equality: 0.5, Sustainability: 200},
				{ID: "mid", Elo: 1200, Efficiency: 2, Equality: 0.7, Sustainability: 300},
			}, 2, []string{"low"}},
		// Three clustered high-Elo, low-equality members and one lone
		// egalitarian: the lone member of its niche survives; a crowded
		// one goes.
		{"niche survives",
			[]Member{
				{ID: "c1", Elo: 1400, Efficiency: 3.00, Equality: 0.30, Sustainability: 300},
				{ID: "c2", Elo: 1395, Efficiency: 3.05, Equality: 0.31, Sustainability: 301},
				{ID: "c3", Elo: 1390, Efficiency: 3.10, Equality: 0.29, Sustainability: 302},
				{ID: "fair", Elo: 1100, Efficiency: 2.00, Equality: 0.95, Sustainability: 250},
			}, 3, []string{"c2"}},
		// One front trading Elo for efficiency; equality and sustainability
		// are the same for everyone (as for failed evaluations, or new
		// members): those objectives protect no one, whatever the input
		// order, and the two real extremes b and d stay.
		{"constant objectives protect no one",
			[]Member{
				{ID: "a", Elo: 1100, Efficiency: 2.00},
				{ID: "b", Elo: 1000, Efficiency: 3.00},
				{ID: "c", Elo: 1101, Efficiency: 1.99},
				{ID: "d", Elo: 1300, Efficiency: 0.50},
				{ID: "e", Elo: 1102, Efficiency: 1.98},
			}, 2, []string{"c", "a", "e"}},
		{"several rounds",
			[]Member{
				{ID: "a", Elo: 1500, Efficiency: 5, Equality: 1, Sustainability: 900},
				{ID: "b", Elo: 1400, Efficiency: 4, Equality: 0.9, Sustainability: 800},
				{ID: "c", Elo: 1300, Efficiency: 3, Equality: 0.8, Sustainability: 700},
				{ID: "d", Elo: 1200, Efficiency: 2, Equality: 0.7, Sustainability: 600},
			}, 1, []string{"d", "c", "b"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := Evict(c.members, c.capacity)
			var ids []string
			for _, m := range got {
				ids = append(ids, m.ID)
			}
			if len(ids) != len(c.want) {
				t.Fatalf("evicted %v, want %v", ids, c.want)
			}
			for i := range ids {
				if ids[i] != c.want[i] {
					t.Fatalf("evicted %v, want %v", ids, c.want)
				}
			}
		})
	}
}

// TestSelectionFronts: exploitability and invadability count against a
// member, so a member equal on everything else but easier to exploit or
// invade comes after the other.
func TestSelectionFronts(t *testing.T) {
	base := Member{ID: "a", Elo: 1200, Efficiency: 1, Equality: 0.5, Sustainability: 100, Peace: 10}
	for _, tc := range []struct {
		name   string
		change func(*Member)
	}{
		{"exploitability", func(m *Member) { m.Exploitability = 3 }},
		{"invadability", func(m *Member) { m.Invadability = 3 }},
	} {
		worse := base
		worse.ID = "b"
		tc.change(&worse)
		fronts := SelectionFronts([]Member{worse, base})
		if len(fronts) != 2 || fronts[0][0] != 1 || fronts[1][0] != 0 {
			t.Errorf("%s: fronts %v, want [[1] [0]]", tc.name, fronts)
		}
	}
	// Better Elo but invadable: neither dominates.
	a, b := base, base
	b.ID, b.Elo, b.Invadability = "b", 1300, 5
	if fronts := SelectionFronts([]Member{a, b}); len(fronts) != 1 {
		t.Errorf("fronts %v, want one", fronts)
	}
}
