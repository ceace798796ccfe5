package evolve

import (
	"context"
	"testing"

	"policyevolve/store"
)

// TestPopulationLocalStop: under today's default a candidate's local
// refinement ends at the first round that does not improve it; played as
// runs stored before it existed (every round), the same seed plays rounds
// after one that did not improve, and spends more planner calls on them.
func TestPopulationLocalStop(t *testing.T) {
	type outcome struct {
		afterFlat bool // a round was played after one that did not improve
		calls     int
	}
	play := func(stop Option[int]) outcome {
		cfg := tinyConfig(ModePopulation)
		cfg.LocalRounds, cfg.CrossoverRate, cfg.LocalStop = On(2), Off[float64](), stop
		j := newJob(t, cfg)
		run, err := j.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		o := outcome{calls: run.Usage.Proposals}
		err = j.Store.View(func(tx *store.Tx) error {
			its, err := tx.Iterations(run.ID)
			if err != nil {
				return err
			}
			for _, it := range its {
				for _, c := range it.Candidates {
					best := 0.0
					for k, id := range c.Local {
						ev, err := tx.Evaluation(id, j.env.Config, j.Config.EvalSeeds)
						if err != nil {
							return err
						}
						e := ev.Mean.Efficiency
						if k == 0 || e > best {
							best = e
						} else if k < len(c.Local)-1 {
							o.afterFlat = true // version k did not improve, and another came
						}
					}
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	now, before := play(On(DefaultLocalStop)), play(Off[int]())
	t.Logf("local stop %d: %+v; every round: %+v", DefaultLocalStop, now, before)
	if now.afterFlat {
		t.Error("a candidate was refined again after a round that did not improve it")
	}
	if !before.afterFlat || before.calls <= now.calls {
		t.Errorf("playing every round: %+v; want rounds after one that did not improve, and more calls than %d", before, now.calls)
	}
}
