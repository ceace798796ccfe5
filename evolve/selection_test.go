package evolve

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"

	"policyevolve/evolve/planner"
	"policyevolve/evolve/population"
	"policyevolve/llm"
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

// TestPopulationRefineRace: under race an iteration's local rounds go to
// its candidates one at a time, the best first version first, and a
// candidate whose first version is below what a refined candidate of the
// iteration reached, by more than that one's standard error over the
// seeds, makes no round; under all every candidate makes its
// rounds. A planner-call budget that leaves two calls after the first
// versions spends them on the leader.
func TestPopulationRefineRace(t *testing.T) {
	type cand struct {
		sample      int
		first, kept float64
		margin      float64 // the kept version's standard error over the seeds
		rounds      int     // planner calls after the first version
	}
	play := func(refine string, iterations, calls int) [][]cand {
		// Cleanup, where first versions differ (on the small Gathering
		// map every search finds the same best at once).
		cfg := tinyConfig(ModePopulation)
		cfg.Game, cfg.Agents, cfg.Steps, cfg.Iterations = "cleanup", 6, 200, iterations
		cfg.Candidates, cfg.LocalRounds, cfg.LocalStop, cfg.Refine, cfg.MaxPlannerCalls = 4, On(2), Off[int](), refine, calls
		j := newJob(t, cfg)
		run, err := j.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		var out [][]cand // by iteration
		eachCandidate(t, j, run.ID, func(tx *store.Tx, i int, c store.Candidate) error {
			for len(out) <= i {
				out = append(out, nil)
			}
			if len(c.Local) == 0 {
				return nil
			}
			first, err := tx.Evaluation(c.Local[0], j.env.Config, j.Config.EvalSeeds)
			if err != nil {
				return err
			}
			kept, err := tx.Evaluation(c.Policy, j.env.Config, j.Config.EvalSeeds)
			if err != nil {
				return err
			}
			out[i] = append(out[i], cand{c.Sample, first.Mean.Efficiency, kept.Mean.Efficiency, population.StdErr(kept), c.Usage.Proposals - 1})
			return nil
		})
		t.Logf("%s, %d calls: %+v", refine, calls, out)
		return out
	}
	// The order race refines in: best first version first, ties by sample.
	byFirst := func(cs []cand) []cand {
		cs = slices.Clone(cs)
		slices.SortStableFunc(cs, func(a, b cand) int { return cmp.Or(cmp.Compare(b.first, a.first), a.sample-b.sample) })
		return cs
	}
	skipped := 0
	for i, cs := range play(RefineRace, 2, 0) {
		order := byFirst(cs)
		if len(order) == 0 || order[0].rounds == 0 {
			t.Fatalf("iteration %d: the best first version was not refined: %+v", i, order)
		}
		lead, margin := math.Inf(-1), 0.0
		for _, c := range order {
			if c.rounds > 0 {
				if c.first < lead-margin {
					t.Errorf("iteration %d: candidate %d (first %.4f) refined below the lead %.4f ± %.4f", i, c.sample, c.first, lead, margin)
				}
				if c.kept > lead {
					lead, margin = c.kept, c.margin
				}
			} else if c.first >= lead-margin {
				t.Errorf("iteration %d: candidate %d (first %.4f) not refined though it could lead (%.4f ± %.4f)", i, c.sample, c.first, lead, margin)
			} else {
				skipped++
			}
		}
	}
	if skipped == 0 {
		t.Error("race skipped no candidate: the test saw no race")
	}
	for i, cs := range play(RefineAll, 1, 0) {
		for _, c := range cs {
			if c.rounds != 2 {
				t.Errorf("all, iteration %d: candidate %d made %d rounds, want 2", i, c.sample, c.rounds)
			}
		}
	}
	budgeted := play(RefineRace, 2, 4+2)
	if len(budgeted) != 1 {
		t.Fatalf("a budget of 6 calls made %d iterations", len(budgeted))
	}
	if order := byFirst(budgeted[0]); order[0].rounds != 2 {
		t.Errorf("with 2 calls left after the first versions, the leader made %d rounds: %+v", order[0].rounds, order)
	}
}

// stopOnImprove asks its job to stop when the at-th Improve call starts
// (the call itself completes).
type stopOnImprove struct {
	planner.Planner
	calls *atomic.Int32
	at    int32
	stop  func()
}

func (s stopOnImprove) Improve(ctx context.Context, req planner.ImproveRequest) (*planner.Proposal, error) {
	if s.calls.Add(1) == s.at {
		s.stop()
	}
	return s.Planner.Improve(ctx, req)
}

// TestPopulationStopDuringRefinement: a job asked to stop (Ctrl-C) while
// a candidate is being refined leaves that candidate drafted rather than
// taking its refinement cut short for done; resumed, the run refines it
// whole and ends as an uninterrupted run does.
func TestPopulationStopDuringRefinement(t *testing.T) {
	cfg := tinyConfig(ModePopulation)
	cfg.LocalRounds, cfg.LocalStop = On(2), Off[int]()
	ref := newJob(t, cfg)
	refRun, err := ref.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := jobOutcome(t, ref, refRun)

	path := filepath.Join(t.TempDir(), "stopped.db")
	j := newJobAt(t, path, cfg)
	var calls atomic.Int32
	j.Planner = func(spec, run string, g llm.Gate) (planner.Planner, error) {
		p, err := grammarOnly(spec, run, g)
		return stopOnImprove{Planner: p, calls: &calls, at: 1, stop: j.Stop}, err
	}
	run, err := j.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if run.Stopped() != store.StopInterrupted {
		t.Fatalf("run %+v", run)
	}
	// Every candidate the stopped run stored past its draft is the
	// uninterrupted run's, refined as far.
	type key struct{ iteration, sample int }
	refined := map[key]string{}
	eachCandidate(t, ref, refRun.ID, func(_ *store.Tx, i int, c store.Candidate) error {
		refined[key{i, c.Sample}] = fmt.Sprintf("%s after %d calls", c.Policy, c.Usage.Proposals)
		return nil
	})
	drafted := 0
	eachCandidate(t, j, run.ID, func(_ *store.Tx, i int, c store.Candidate) error {
		if c.Status == store.CandidateDrafted {
			drafted++
		} else if got, want := fmt.Sprintf("%s after %d calls", c.Policy, c.Usage.Proposals), refined[key{i, c.Sample}]; got != want {
			t.Errorf("iteration %d, candidate %d stored %s: %s, uninterrupted %s", i, c.Sample, c.Status, got, want)
		}
		return nil
	})
	if drafted == 0 {
		t.Fatal("no candidate was left drafted: the stop did not come during a refinement")
	}
	j2 := newJobAt(t, path, cfg)
	j2.RunID = run.ID
	run2, err := j2.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := jobOutcome(t, j2, run2); got != want {
		t.Fatalf("stopped while refining and resumed:\n%s\nuninterrupted:\n%s", got, want)
	}
}

// eachCandidate calls each with every candidate of the run's iterations,
// in order, in one read transaction; an error it returns fails the test.
func eachCandidate(t *testing.T, j *Job, run string, each func(tx *store.Tx, iteration int, c store.Candidate) error) {
	t.Helper()
	if err := j.Store.View(func(tx *store.Tx) error {
		its, err := tx.Iterations(run)
		if err != nil {
			return err
		}
		for _, it := range its {
			for _, c := range it.Candidates {
				if err := each(tx, it.Index, c); err != nil {
					return err
				}
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}
