package arena

import (
	"context"
	"testing"

	"policyevolve/evolve/episode"
	"policyevolve/store"
)

func TestWorstInvader(t *testing.T) {
	a := newArena(t)
	ctx := context.Background()
	if err := a.EnsureBaselines(ctx); err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{}
	for _, name := range []string{"bfs", "exploit", "coop"} {
		ids[name] = store.SourceID(episode.BuiltinSource(name))
	}
	worst, gain, err := a.WorstInvader(ctx, ids["coop"], []string{ids["bfs"], ids["exploit"], ids["coop"]})
	if err != nil {
		t.Fatal(err)
	}
	best, bestName := 0.0, ""
	for _, name := range []string{"bfs", "exploit"} {
		inv, _ := a.Actor(ctx, ids[name])
		res, _ := a.Actor(ctx, ids["coop"])
		r, err := Invade(ctx, a.Env, inv, res, 1, a.MatchSeeds)
		if err != nil {
			t.Fatal(err)
		}
		if m := r.A.Return - r.B.Return; m > best {
			best, bestName = m, name
		}
	}
	if bestName == "" || worst != ids[bestName] || gain != best {
		t.Fatalf("worst invader %.12s gaining %v; Invade says %s gaining %v", worst, gain, bestName, best)
	}
}

// TestInvasionObjective: a population job that selects parents on
// invasion resistance too runs to its end with a champion.
