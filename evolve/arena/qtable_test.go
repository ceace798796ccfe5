package arena

import (
	"context"
	"strings"
	"testing"

	"policyevolve/baselines/qlearn"
	"policyevolve/envs"
	"policyevolve/envs/ssd"
	"policyevolve/evolve/episode"
	"policyevolve/store"
)

func trainSmall(t *testing.T, game ssd.Game) *qlearn.Table {
	t.Helper()
	m, err := envs.BuiltinMap(game, "small")
	if err != nil {
		t.Fatal(err)
	}
	tab, err := qlearn.Train(context.Background(), qlearn.Config{Map: m, MapName: "small", Agents: 4, Episodes: 3, MaxSteps: 200, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

// TestImportQTable: a trained table joins the global pool as a baseline
// without a sandbox, stored by content; its stored evaluation is the
// library's greedy self-play; a second import changes nothing; a table of
// the other game is refused.
func TestImportQTable(t *testing.T) {
	a := newArena(t)
	a.Sandbox = nil // a table is data: no sandbox needed
	ctx := context.Background()
	tab := trainSmall(t, ssd.Gathering)
	rep, err := a.ImportQTable(ctx, tab, "q", 1)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.New || rep.Evaluation.Status != store.StatusOK || len(rep.Rating.Games) == 0 {
		t.Fatalf("report %+v", rep)
	}
	want, _ := tab.MarshalJSON()
	err = a.Store.View(func(tx *store.Tx) error {
		p, err := tx.Policy(rep.ID)
		if err != nil {
			return err
		}
		if p.Builtin != episode.QLearnBuiltin || p.Source != string(want) || p.ID != store.SourceID(string(want)) {
			t.Errorf("stored policy: builtin %q, id %.12s, source of %d bytes", p.Builtin, p.ID, len(p.Source))
		}
		members, err := tx.Members(a.GlobalPool())
		for _, m := range members {
			if m.Policy == rep.ID && m.Reason != "baseline" {
				t.Errorf("member reason %q", m.Reason)
			}
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	ev, err := qlearn.Evaluate(ctx, tab, a.Env.Map, 4, 200, a.EvalSeeds)
	if err != nil {
		t.Fatal(err)
	}
	for k, sr := range rep.Evaluation.PerSeed {
		if envs.Metrics(sr.Metrics) != ev.Episodes[k].Metrics {
			t.Errorf("seed %d: arena %+v, qlearn.Evaluate %+v", sr.Seed, sr.Metrics, ev.Episodes[k].Metrics)
		}
	}

	again, err := a.ImportQTable(ctx, tab, "q", 1)
	if err != nil || again.New || again.ID != rep.ID || len(again.Rating.Games) != len(rep.Rating.Games) {
		t.Fatalf("second import: %+v, %v", again, err)
	}

	_, err = a.ImportQTable(ctx, trainSmall(t, ssd.Cleanup), "c", 1)
	if err == nil || !strings.Contains(err.Error(), "trained on cleanup; the pool global/gathering/small/4/200 is a gathering pool") {
		t.Fatalf("cleanup table into a gathering pool: %v", err)
	}
}

// TestStoredQTableThatDoesNotParse: a corrupt stored table is an error
// naming the policy, not a panic.
