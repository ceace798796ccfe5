package arena

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"policyevolve/elo"
	"policyevolve/evolve/episode"
	"policyevolve/internal/storetest"
	"policyevolve/pool"
	"policyevolve/sandbox"
	"policyevolve/store"
)

var sharedCache string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "policyevolve-evolve-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	sharedCache = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// newArena returns an Arena on a small, short Gathering game with a fresh
// store whose invariants are checked when the test ends.
func newArena(t *testing.T) *Arena {
	t.Helper()
	s := storetest.Open(t, filepath.Join(t.TempDir(), "arena.db"))
	sb, err := sandbox.New(sandbox.Config{Backend: sandbox.Native, CacheDir: sharedCache})
	if err != nil {
		t.Fatal(err)
	}
	env, err := episode.ResolveEnv("gathering", "small", 4, 200)
	if err != nil {
		t.Fatal(err)
	}
	return &Arena{Store: s, Sandbox: sb, Env: env, EvalSeeds: []uint64{0, 1}}
}

func example(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "examples", "policies", name+".go"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestEnsureBaselines(t *testing.T) {
	a := newArena(t)
	ctx := context.Background()
	for i := 0; i < 2; i++ { // idempotent
		if err := a.EnsureBaselines(ctx); err != nil {
			t.Fatal(err)
		}
	}
	members, err := a.Members(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(members) != len(episode.Baselines) {
		t.Fatalf("%d members, want the %d baselines", len(members), len(episode.Baselines))
	}
	for _, m := range members {
		if m.Elo != elo.DefaultInitial || m.Efficiency == 0 && m.Equality == 0 {
			t.Errorf("baseline %+v not rated or not evaluated", m)
		}
	}
}

func TestImportRatesAndIsIdempotent(t *testing.T) {
	a := newArena(t)
	ctx := context.Background()
	rep, err := a.Import(ctx, example(t, "voronoi"), "voronoi", 1)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.New || rep.Evaluation.Status != store.StatusOK || len(rep.Rating.Games) != pool.DefaultOpponents {
		t.Fatalf("report %+v", rep)
	}
	var rating *store.Rating
	a.Store.View(func(tx *store.Tx) (err error) {
		rating, err = tx.Rating(a.GlobalPool(), rep.ID)
		return err
	})
	if rating == nil || rating.Games != 4 || len(rating.History) != 4 || rating.Elo != rep.Rating.Elo {
		t.Fatalf("stored rating %+v", rating)
	}
	// The ratings of the pool stay zero-sum around the initial rating.
	members, _ := a.Members(ctx)
	sum := 0.0
	for _, m := range members {
		sum += m.Elo
	}
	if want := float64(len(members)) * elo.DefaultInitial; sum < want-1e-6 || sum > want+1e-6 {
		t.Fatalf("ratings sum to %v, want %v", sum, want)
	}
	// Importing again reuses everything: no new matches, no double count.
	rep2, err := a.Import(ctx, example(t, "voronoi"), "voronoi", 1)
	if err != nil {
		t.Fatal(err)
	}
	a.Store.View(func(tx *store.Tx) (err error) {
		rating, err = tx.Rating(a.GlobalPool(), rep.ID)
		return err
	})
	if rep2.New || rating.Games != 4 {
		t.Fatalf("second import: new=%v, %d games", rep2.New, rating.Games)
	}
}

func TestImportRefusesBadSources(t *testing.T) {
	a := newArena(t)
	_, err := a.Import(context.Background(), []byte("package policy\n\nimport \"os\"\n"), "bad", 0)
	if !errors.Is(err, sandbox.ErrInvalid) {
		t.Fatalf("got %v", err)
	}
	nondet := []byte(`package policy

import "ssd"

func Policy(v *ssd.View, agent int) int {
	for a := range map[int]bool{0: true, 1: true, 2: true, 3: true} {
		return a
	}
	return ssd.Stand
}
`)
	if _, err := a.Import(context.Background(), nondet, "nondet", 0); !errors.Is(err, sandbox.ErrNondeterministic) {
		t.Fatalf("got %v", err)
	}
	a.Store.View(func(tx *store.Tx) error {
		if ps, _ := tx.Policies(); len(ps) != 0 {
			t.Errorf("refused sources were stored: %d policies", len(ps))
		}
		return nil
	})
}

// TestFailingPolicies: a policy that fails mid-episode gets a failed
// evaluation and loses its matches; nothing is an error of the system.
func TestFailingPolicies(t *testing.T) {
	a := newArena(t)
	ctx := context.Background()
	if err := a.EnsureBaselines(ctx); err != nil {
		t.Fatal(err)
	}
	src := "package policy\n\nimport \"ssd\"\n\nfunc Policy(v *ssd.View, agent int) int {\n\tif v.Step() == 120 {\n\t\tpanic(\"late\")\n\t}\n\treturn v.GreedyAction(agent)\n}\n"
	p := &store.Policy{Source: src}
	if err := a.Store.Update(func(tx *store.Tx) (err error) { _, err = tx.PutPolicy(p); return err }); err != nil {
		t.Fatal(err)
	}
	ev, err := a.Evaluate(ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	if ev.Status != store.StatusFailed || ev.PerSeed[0].Steps != 120 || !strings.Contains(ev.PerSeed[0].Error, "panic at step 120") {
		t.Fatalf("evaluation %+v", ev)
	}
	members, _ := a.Members(ctx)
	m, err := a.Match(ctx, p.ID, members[0].ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	if m.Outcome != elo.Loss || !strings.Contains(m.Error, "panic") {
		t.Fatalf("match %+v", m)
	}
	// Each records the backend that ran the source; a built-in's
	// evaluation names none.
	if be := string(a.Sandbox.Backend()); ev.Backend != be || m.Backend != be {
		t.Fatalf("backends recorded: evaluation %q, match %q, want %q", ev.Backend, m.Backend, be)
	}
	if bev, err := a.Evaluate(ctx, members[0].ID); err != nil || bev.Backend != "" {
		t.Fatalf("built-in's evaluation: %v, backend %q", err, bev.Backend)
	}
	if pool.Promote(1, ev.Status == store.StatusOK, pool.DefaultPromoteThreshold) {
		t.Fatal("a policy failing its self-play would be promoted")
	}
}

func TestTrimToCapacity(t *testing.T) {
	a := newArena(t)
	a.Pool.Capacity = 3
	ctx := context.Background()
	rep, err := a.Import(ctx, example(t, "voronoi"), "voronoi", 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Evicted) != 2 {
		t.Fatalf("evicted %v from 5 members at capacity 3", rep.Evicted)
	}
	var members []store.Member
	a.Store.View(func(tx *store.Tx) (err error) {
		members, err = tx.Members(a.GlobalPool())
		return err
	})
	if len(members) != 3 {
		t.Fatalf("%d members", len(members))
	}
}

func TestLeague(t *testing.T) {
	a := newArena(t)
	ctx := context.Background()
	if err := a.EnsureBaselines(ctx); err != nil {
		t.Fatal(err)
	}
	members, _ := a.Members(ctx)
	ids := []string{members[0].ID, members[1].ID, members[2].ID}
	l, err := a.League(ctx, ids, []uint64{0, 1})
	if err != nil {
		t.Fatal(err)
	}
	if l.Games[0][1] != 2 || len(l.Ratings) != 3 {
		t.Fatalf("league %+v", l)
	}
	// A second league replays nothing: every match comes from the store.
	var before int
	a.Store.View(func(tx *store.Tx) error {
		ms, _ := tx.MatchesOf(ids[0])
		before = len(ms)
		return nil
	})
	if _, err := a.League(ctx, ids, []uint64{0, 1}); err != nil {
		t.Fatal(err)
	}
	a.Store.View(func(tx *store.Tx) error {
		if ms, _ := tx.MatchesOf(ids[0]); len(ms) != before {
			t.Errorf("matches grew from %d to %d", before, len(ms))
		}
		return nil
	})
}

func TestResolveEnv(t *testing.T) {
	e, err := episode.ResolveEnv("cleanup", "", 10, 1000)
	if err != nil || e.Config.Key() != "cleanup/default/10/1000" {
		t.Fatalf("%+v %v", e.Config, err)
	}
	path := filepath.Join(t.TempDir(), "m.txt")
	os.WriteFile(path, []byte("@@@@@\n@PAA@\n@@@@@\n"), 0o644)
	e, err = episode.ResolveEnv("gathering", path, 2, 100)
	if err != nil || !strings.HasPrefix(e.Config.Map, "file:") {
		t.Fatalf("%+v %v", e.Config, err)
	}
	for _, bad := range [][]any{{"chess", "", 2, 10}, {"gathering", "nowhere", 2, 10}, {"gathering", "", 0, 10}, {"gathering", "", 2, 0}} {
		if _, err := episode.ResolveEnv(bad[0].(string), bad[1].(string), bad[2].(int), bad[3].(int)); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}

// secondArena opens the same store file again, as another process would.
func secondArena(t *testing.T, a *Arena) *Arena {
	t.Helper()
	s, err := store.Open(a.Store.Path(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return &Arena{Store: s, Sandbox: a.Sandbox, Env: a.Env, EvalSeeds: a.EvalSeeds}
}

func rating(t *testing.T, a *Arena, id string) *store.Rating {
	t.Helper()
	var r *store.Rating
	if err := a.Store.View(func(tx *store.Tx) (err error) {
		r, err = tx.Rating(a.GlobalPool(), id)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestConcurrentRating: two processes rating different candidates against
// the same opponent at once both count.
func TestConcurrentRating(t *testing.T) {
	a := newArena(t)
	ctx := context.Background()
	if err := a.EnsureBaselines(ctx); err != nil {
		t.Fatal(err)
	}
	b := secondArena(t, a)
	m, _ := a.Members(ctx)
	// The other process rates, start to finish, while this one is between
	// playing its matches and applying them.
	a.beforeApply = func() {
		if _, err := b.Rate(ctx, m[1].ID, []string{m[2].ID}, true); err != nil {
			t.Error(err)
		}
	}
	if _, err := a.Rate(ctx, m[0].ID, []string{m[2].ID}, true); err != nil {
		t.Fatal(err)
	}
	if r := rating(t, a, m[2].ID); r.Games != 2 || len(r.History) != 2 {
		t.Fatalf("the shared opponent counted %d games", r.Games)
	}
}

// TestRatingCountsAMatchOnce: removing a member and adding it back (say,
// evicted then imported again) does not count its stored matches twice for
// its opponents; nor does rating again.
func TestRatingCountsAMatchOnce(t *testing.T) {
	a := newArena(t)
	ctx := context.Background()
	if err := a.EnsureBaselines(ctx); err != nil {
		t.Fatal(err)
	}
	m, _ := a.Members(ctx)
	c, o := m[0].ID, m[1].ID
	if _, err := a.Rate(ctx, c, []string{o}, true); err != nil {
		t.Fatal(err)
	}
	before := rating(t, a, o)
	a.Store.Update(func(tx *store.Tx) error {
		if err := tx.RemoveMember(a.GlobalPool(), c); err != nil {
			return err
		}
		return tx.AddMember(&store.Member{Policy: c, Pool: a.GlobalPool()})
	})
	for range 2 {
		if _, err := a.Rate(ctx, c, []string{o}, true); err != nil {
			t.Fatal(err)
		}
	}
	if after := rating(t, a, o); after.Games != before.Games || after.Elo != before.Elo {
		t.Fatalf("opponent went from %d games (%.1f) to %d (%.1f)", before.Games, before.Elo, after.Games, after.Elo)
	}
}

// TestReimportPlaysTheSameMatches: with one opponent per candidate, a
// repeated import meets the same opponent and counts nothing new.
func TestReimportPlaysTheSameMatches(t *testing.T) {
	a := newArena(t)
	a.Pool.Opponents = 1
	ctx := context.Background()
	first, err := a.Import(ctx, example(t, "bfs"), "bfs-src", 0)
	if err != nil {
		t.Fatal(err)
	}
	for seed := uint64(1); seed < 4; seed++ { // another draw seed changes nothing now
		again, err := a.Import(ctx, example(t, "bfs"), "bfs-src", seed)
		if err != nil {
			t.Fatal(err)
		}
		if again.Rating.Games[0].Opponent != first.Rating.Games[0].Opponent {
			t.Fatalf("re-import met %.12s, first import %.12s", again.Rating.Games[0].Opponent, first.Rating.Games[0].Opponent)
		}
	}
	if r := rating(t, a, first.ID); r.Games != 1 {
		t.Fatalf("%d games after four imports", r.Games)
	}
}

// TestLeagueReusesMirroredMatches: a match stored as (A, B) serves a
// league that names it (B, A), mirrored.
func TestLeagueReusesMirroredMatches(t *testing.T) {
	a := newArena(t)
	ctx := context.Background()
	if err := a.EnsureBaselines(ctx); err != nil {
		t.Fatal(err)
	}
	m, _ := a.Members(ctx)
	x, y := m[0].ID, m[1].ID
	if x > y {
		x, y = y, x
	}
	stored, err := a.Match(ctx, y, x, 0) // stored as (y, x)
	if err != nil {
		t.Fatal(err)
	}
	mirrored, err := a.Match(ctx, x, y, 0)
	if err != nil {
		t.Fatal(err)
	}
	if mirrored.ScoreA != stored.ScoreB || mirrored.ScoreB != stored.ScoreA || mirrored.Outcome != 1-stored.Outcome {
		t.Fatalf("mirror %+v of %+v", mirrored, stored)
	}
	a.Store.View(func(tx *store.Tx) error {
		if ms, _ := tx.MatchesOf(x); len(ms) != 1 {
			t.Errorf("%d matches stored, want the one", len(ms))
		}
		return nil
	})
}

// TestImportRefusesFailingSelfPlay: a policy that passes the smoke test but
// fails later in its evaluation is stored with its evaluation, and kept out
// of the pool.
func TestImportRefusesFailingSelfPlay(t *testing.T) {
	a := newArena(t)
	src := []byte("package policy\n\nimport \"ssd\"\n\nfunc Policy(v *ssd.View, agent int) int {\n\tif v.Step() == 150 {\n\t\tpanic(\"late\")\n\t}\n\treturn v.GreedyAction(agent)\n}\n")
	rep, err := a.Import(context.Background(), src, "late", 0)
	if err == nil || !strings.Contains(err.Error(), "failed its self-play evaluation") || rep == nil || rep.Evaluation.Status != store.StatusFailed {
		t.Fatalf("got %v, %+v", err, rep)
	}
	a.Store.View(func(tx *store.Tx) error {
		if pools, _ := tx.PoolsOf(rep.ID); len(pools) != 0 {
			t.Errorf("a failing policy joined %v", pools)
		}
		return nil
	})
}

func TestSeedOrderDoesNotMatter(t *testing.T) {
	a := newArena(t)
	ctx := context.Background()
	a.EnsureBaselines(ctx)
	m, _ := a.Members(ctx)
	b := secondArena(t, a)
	b.EvalSeeds = []uint64{1, 0, 1}
	ev, err := b.Evaluate(ctx, m[0].ID)
	if err != nil || len(ev.Seeds) != 2 || ev.Seeds[0] != 0 {
		t.Fatalf("%+v %v", ev, err)
	}
	a.Store.View(func(tx *store.Tx) error {
		if evs, _ := tx.EvaluationsOf(m[0].ID); len(evs) != 1 {
			t.Errorf("%d evaluations: the reordered seeds were evaluated again", len(evs))
		}
		return nil
	})
}
