package evolve

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"policyevolve/evolve/internal/evolvetest"
	"policyevolve/evolve/planner"
	"policyevolve/evolve/timing"
	"policyevolve/llm"
	"policyevolve/sandbox"
	"policyevolve/store"
)

// BenchmarkPopulationIteration times one population iteration of the
// default job (Cleanup, 10 agents, 1000 steps, 4 candidates, one local
// round each, 4 opponents) with the offline planner, in steady state: each
// op is a fresh run of two iterations, and the metrics are the second's
// (the first starts from the baselines, where every candidate is a cheap
// random init). Reported: seconds per iteration, episodes per second, and
// each activity's share of the time summed over workers.
//
//	go test ./evolve -run '^$' -bench PopulationIteration -benchtime 1x
func BenchmarkPopulationIteration(b *testing.B) {
	for _, game := range []string{"cleanup", "gathering"} {
		b.Run(game, func(b *testing.B) {
			var laps []timing.Totals
			var secs float64
			for range b.N {
				s, err := store.Open(filepath.Join(b.TempDir(), "bench.db"), store.Options{})
				if err != nil {
					b.Fatal(err)
				}
				sb, err := sandbox.New(sandbox.Config{Backend: sandbox.Native, CacheDir: evolvetest.CacheDir})
				if err != nil {
					b.Fatal(err)
				}
				j := &Job{Store: s, Sandbox: sb, Config: JobConfig{Game: game, Iterations: 2, LocalRounds: On(1), Seed: 1},
					Planner: func(string, string, llm.Gate) (planner.Planner, error) { return &planner.GrammarPlanner{}, nil }}
				var first time.Time // the first iteration's end
				j.Events = ReporterFunc(func(e Event) {
					switch {
					case e.Kind == EventIterationDone && e.Iteration == 0:
						first = e.Time
					case e.Kind == EventIterationDone && e.Iteration == 1:
						laps = append(laps, *e.Profile)
						secs += e.Time.Sub(first).Seconds()
					}
				})
				if _, err := j.Run(context.Background()); err != nil {
					b.Fatal(err)
				}
			}
			var sum timing.Totals
			for _, l := range laps {
				for a := range timing.NumActivities {
					sum.Busy[a] += l.Busy[a]
				}
				sum.Episodes += l.Episodes
			}
			b.ReportMetric(secs/float64(len(laps)), "s/iteration")
			b.ReportMetric(float64(sum.Episodes)/secs, "episodes/s")
			for a := range timing.NumActivities {
				b.ReportMetric(100*sum.Share(a), a.String()+"-%")
			}
		})
	}
}
