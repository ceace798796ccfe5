package evolve

import (
	"context"
	"errors"
	"math"
	"testing"

	"policyevolve/pool"
	"policyevolve/store"
)

// TestRecheckCrowns: with a recheck, every iteration's champion, chain and
// population, is the one the crowning rule (search.Crown) picks when each
// contender's score over the evaluation and recheck seeds is read from the
// store — so each contender it needed was rechecked, on the configured
// seeds, and stored; without a recheck no policy is played on those seeds.
func TestRecheckCrowns(t *testing.T) {
	for _, mode := range []string{ModeChain, ModePopulation} {
		t.Run(mode, func(t *testing.T) {
			cfg := tinyConfig(mode)
			cfg.Objective, cfg.Recheck = pool.Welfare, On(3)
			j := newJob(t, cfg)
			rechecks := map[int]*float64{} // iteration-done events' ChampionRechecked
			j.Events = ReporterFunc(func(e Event) {
				if e.Kind == EventIterationDone {
					rechecks[e.Iteration] = e.ChampionRechecked
				}
			})
			run, err := j.Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			seeds := j.Config.RecheckSeeds()
			if len(seeds) != 3 || seeds[0] != 2 {
				t.Fatalf("recheck seeds %v, want 2-4 after evaluation seeds 0-1", seeds)
			}
			rechecked := 0
			err = j.Store.View(func(tx *store.Tx) error {
				its, err := tx.Iterations(run.ID)
				if err != nil {
					return err
				}
				var es []pool.Entrant
				for _, it := range its {
					for _, c := range it.Candidates {
						contends := c.Status == store.CandidatePromoted || c.Status == store.CandidateRejected
						if mode == ModeChain {
							contends = c.Status == store.CandidateEvaluated
						}
						if contends {
							es = append(es, pool.Entrant{ID: c.Policy, Welfare: c.Metrics.Efficiency})
						}
					}
					// Crown's rule, each recheck read from the store.
					done := map[int]bool{}
					best := -1
					for {
						best = pool.Welfare.Champion(es)
						if best < 0 || done[best] {
							break
						}
						ev, err := tx.Evaluation(es[best].ID, j.env.Config, j.Config.EvalSeeds)
						if err != nil {
							return err
						}
						more, err := tx.Evaluation(es[best].ID, j.env.Config, seeds)
						if errors.Is(err, store.ErrNotFound) {
							t.Errorf("iteration %d: contender %.12s was not rechecked", it.Index, es[best].ID)
							return nil
						} else if err != nil {
							return err
						}
						rechecked++
						es[best].Welfare = (ev.Mean.Efficiency*float64(len(ev.PerSeed)) + more.Mean.Efficiency*float64(len(more.PerSeed))) /
							float64(len(ev.PerSeed)+len(more.PerSeed))
						if more.Status != store.StatusOK {
							es[best].Welfare = math.Inf(-1)
						}
						done[best] = true
					}
					if best >= 0 && it.Champion != es[best].ID {
						t.Errorf("iteration %d: champion %.12s, want %.12s, the best rechecked", it.Index, it.Champion, es[best].ID)
					}
					if r := rechecks[it.Index]; best >= 0 && r == nil {
						t.Errorf("iteration %d: the event has no rechecked score, want %v", it.Index, es[best].Welfare)
					} else if best >= 0 && math.Abs(*r-es[best].Welfare) > 1e-12 {
						t.Errorf("iteration %d: the event's rechecked score is %v, want %v", it.Index, *r, es[best].Welfare)
					}
					// Welfare values rechecked stay: the next iteration's
					// rule starts from the evaluation seeds again.
					for k := range es {
						if done[k] {
							ev, err := tx.Evaluation(es[k].ID, j.env.Config, j.Config.EvalSeeds)
							if err != nil {
								return err
							}
							es[k].Welfare = ev.Mean.Efficiency
						}
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if rechecked == 0 {
				t.Fatal("no champion was rechecked")
			}

			// The same run without a recheck plays nothing on those seeds.
			cfg.Recheck = Off[int]()
			k := newJob(t, cfg)
			off, err := k.Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			eachCandidate(t, k, off.ID, func(tx *store.Tx, _ int, c store.Candidate) error {
				if c.Policy == "" {
					return nil
				}
				if _, err := tx.Evaluation(c.Policy, k.env.Config, seeds); !errors.Is(err, store.ErrNotFound) {
					t.Errorf("without a recheck, %.12s has an evaluation on seeds %v (%v)", c.Policy, seeds, err)
				}
				return nil
			})
		})
	}
}
