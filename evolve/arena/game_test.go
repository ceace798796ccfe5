package arena

import (
	"context"
	"path/filepath"
	"testing"

	"policyevolve/elo"
	"policyevolve/evolve/episode"
	"policyevolve/internal/storetest"
	"policyevolve/pool"
	"policyevolve/store"
)

// builtinArena is an arena on small Gathering (4 agents, 200 steps) under
// an objective, with the built-ins stored; only built-ins play in it (no
// sandbox). It returns the built-ins' ids by name.
func builtinArena(t *testing.T, s *store.Store, o pool.Objective) (*Arena, map[string]string) {
	t.Helper()
	env, err := episode.ResolveEnv("gathering", "small", 4, 200)
	if err != nil {
		t.Fatal(err)
	}
	a := &Arena{Store: s, Env: env, EvalSeeds: []uint64{0, 1, 2}, MatchSeeds: []uint64{0, 1}, Objective: o}
	if err := a.EnsureBaselines(context.Background()); err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{}
	s.View(func(tx *store.Tx) error {
		ms, err := tx.Members(a.GlobalPool())
		for _, m := range ms {
			p, _ := tx.Policy(m.Policy)
			ids[p.Builtin] = p.ID
		}
		return err
	})
	return a, ids
}

// TestGamesFollowTheObjective: the same two policies, coop (collects in
// its own zone, never fires) and exploit (beams its rivals), play
// different games under each objective. Under elo a game is a mixed match
// and the beamer wins it; under welfare a game compares their self-play
// seed by seed, and the group that never fires does better. Each
// objective rates in a pool of its own.
func TestGamesFollowTheObjective(t *testing.T) {
	ctx := context.Background()
	s := storetest.Open(t, filepath.Join(t.TempDir(), "arena.db"))
	for _, tc := range []struct {
		o     pool.Objective
		pool  string
		seeds int
		want  float64 // coop's outcome in every game
	}{
		{pool.Elo, "global/gathering/small/4/200", 2, elo.Loss},
		{pool.Welfare, "global/gathering/small/4/200@welfare", 3, elo.Win},
	} {
		a, ids := builtinArena(t, s, tc.o)
		if a.GlobalPool() != tc.pool {
			t.Errorf("%s: pool %q, want %q", tc.o, a.GlobalPool(), tc.pool)
		}
		gs, err := a.Games(ctx, ids["coop"], ids["exploit"])
		if err != nil {
			t.Fatal(err)
		}
		if len(gs) != tc.seeds {
			t.Fatalf("%s: %d games, want one per seed (%d)", tc.o, len(gs), tc.seeds)
		}
		for _, g := range gs {
			if g.Outcome != tc.want || g.Opponent != ids["exploit"] {
				t.Errorf("%s: coop's game %+v, want outcome %v", tc.o, g, tc.want)
			}
		}
		rep, err := a.Rate(ctx, ids["coop"], []string{ids["exploit"]}, true)
		if err != nil {
			t.Fatal(err)
		}
		promoted := pool.Promote(rep.WinRate(), true, pool.DefaultPromoteThreshold)
		if promoted != (tc.want == elo.Win) {
			t.Errorf("%s: coop's win rate %.2f against the beamer: promoted %v", tc.o, rep.WinRate(), promoted)
		}
		s.View(func(tx *store.Tx) error {
			r, err := tx.Rating(tc.pool, ids["coop"])
			if err != nil || r.Games != tc.seeds || (tc.want == elo.Win) != (r.Elo > elo.DefaultInitial) {
				t.Errorf("%s: coop's rating in %s: %+v, %v", tc.o, tc.pool, r, err)
			}
			return nil
		})
	}
	// The welfare games used the stored self-play: the candidate's score
	// on a seed is its mean per-agent return there.
	a, ids := builtinArena(t, s, pool.Welfare)
	ev, err := a.Evaluate(ctx, ids["coop"])
	if err != nil {
		t.Fatal(err)
	}
	gs, _ := a.Games(ctx, ids["coop"], ids["exploit"])
	for k, g := range gs {
		sr := ev.PerSeed[k]
		want := sr.Metrics.Efficiency * float64(sr.Steps) / float64(len(sr.Returns))
		if g.Seed != sr.Seed || diff(g.Score, want) > 1e-9 {
			t.Errorf("game %+v: want seed %d, score %v", g, sr.Seed, want)
		}
	}
}

func diff(a, b float64) float64 {
	if a > b {
		return a - b
	}
	return b - a
}

// TestWelfareGameFailures: a side whose self-play failed on the seed loses
// the welfare game; both failing draw; within the draw tolerance is a
// draw.
func TestWelfareGameFailures(t *testing.T) {
	ok := func(r ...float64) *store.SeedResult {
		return &store.SeedResult{Status: store.StatusOK, Returns: r}
	}
	bad := &store.SeedResult{Status: store.StatusFailed, Returns: []float64{99, 99}}
	for _, tc := range []struct {
		name         string
		mine, theirs *store.SeedResult
		want         float64
	}{
		{"better", ok(10, 12), ok(8, 8), elo.Win},
		{"worse", ok(8, 8), ok(10, 12), elo.Loss},
		{"within 2%", ok(100, 100), ok(101, 100), elo.Draw},
		{"opponent failed", ok(1, 1), bad, elo.Win},
		{"candidate failed", bad, ok(1, 1), elo.Loss},
		{"candidate has no such seed", nil, ok(1, 1), elo.Loss},
		{"both failed", bad, bad, elo.Draw},
	} {
		g := welfareGame("b", 7, tc.mine, tc.theirs)
		if g.Outcome != tc.want || g.Seed != 7 || g.Opponent != "b" {
			t.Errorf("%s: %+v, want outcome %v", tc.name, g, tc.want)
		}
	}
}
