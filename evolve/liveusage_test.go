package evolve

import (
	"context"
	"testing"

	"policyevolve/pool"
	"policyevolve/store"
)

// TestRunRecordDuringAnIteration: the stored run record shows the
// planner calls of the candidates drafted so far while its first
// iteration is still going (runs ls and the live view read it), not 0
// until the iteration ends.
func TestRunRecordDuringAnIteration(t *testing.T) {
	cfg := tinyConfig(ModePopulation)
	cfg.Iterations = 1
	j := newJob(t, cfg)
	seen, done := 0, false
	j.Events = ReporterFunc(func(e Event) {
		switch e.Kind {
		case EventIterationDone:
			done = true
		case EventCandidate, EventPhase:
			if done || e.Run == "" {
				return
			}
			var r *store.Run
			if err := j.Store.View(func(tx *store.Tx) (err error) { r, err = tx.Run(e.Run); return err }); err != nil {
				t.Error(err)
				return
			}
			seen = max(seen, r.Usage.Proposals)
		}
	})
	run, err := j.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if seen == 0 || seen > run.Usage.Proposals {
		t.Errorf("the stored run showed %d planner calls during its iteration (%d in all)", seen, run.Usage.Proposals)
	}
}

// TestChampionBy: only a population run's champion is the best by its
// objective; a chain's and GEPA's follow their own rules.
func TestChampionBy(t *testing.T) {
	for _, c := range []struct {
		mode, objective, want string
	}{
		{ModePopulation, "welfare", "welfare"},
		{ModePopulation, "elo", "elo"},
		{ModeChain, "welfare", "self-play efficiency (a chain has no pool)"},
		{ModeGEPA, "welfare", "mean score over its seeds (GEPA's rule)"},
	} {
		cfg := JobConfig{Mode: c.mode}
		cfg.Objective = pool.Objective(c.objective)
		if got := cfg.ChampionBy(); got != c.want {
			t.Errorf("%s under %s: %q, want %q", c.mode, c.objective, got, c.want)
		}
	}
}
