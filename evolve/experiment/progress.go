package experiment

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"policyevolve/evolve"
	"policyevolve/evolve/episode"
	"policyevolve/store"
)

// Progress is a run's best-so-far curve: Progress[k] is the best mean
// self-play efficiency (on the run's evaluation seeds) among the policies
// its first k+1 planner calls wrote, as the run's proposals came: iteration
// by iteration, candidate by candidate, each candidate's local versions in
// turn. A version is placed at the call that wrote it when every call of
// its candidate was admitted; calls that wrote nothing admitted (refused
// or duplicate attempts) are counted at the end of their candidate, and
// repeat the best so far. A policy whose evaluation failed, or that was
// never evaluated, improves nothing; before the first evaluated policy
// the curve holds NaN.
func Progress(tx *store.Tx, runID string) ([]float64, error) {
	run, err := tx.Run(runID)
	if err != nil {
		return nil, err
	}
	var cfg evolve.JobConfig
	if err := json.Unmarshal(run.Config, &cfg); err != nil {
		return nil, fmt.Errorf("run %s: its configuration does not read: %w", runID, err)
	}
	cfg = cfg.WithDefaults()
	its, err := tx.Iterations(runID)
	if err != nil {
		return nil, err
	}
	env, err := episode.ResolveEnv(cfg.Game, cfg.Map, cfg.Agents, cfg.Steps)
	if err != nil {
		return nil, err
	}
	var curve []float64
	best := math.NaN()
	for _, it := range its {
		for _, c := range it.Candidates {
			versions := c.Local
			if len(versions) == 0 && c.Policy != "" {
				versions = []string{c.Policy}
			}
			calls := max(c.Usage.Proposals, len(versions))
			for k := 0; k < calls; k++ {
				if k < len(versions) {
					ev, err := tx.Evaluation(versions[k], env.Config, cfg.EvalSeeds)
					switch {
					case errors.Is(err, store.ErrNotFound):
					case err != nil:
						return nil, err
					case ev.Status == store.StatusOK && (math.IsNaN(best) || ev.Mean.Efficiency > best):
						best = ev.Mean.Efficiency
					}
				}
				curve = append(curve, best)
			}
		}
	}
	return curve, nil
}

// ProgressPoint is a method's best-so-far efficiency after Calls planner
// calls, over its runs (a run that had evaluated no policy yet is left
// out; one that stopped earlier counts with its last value).
type ProgressPoint struct {
	Calls int  `json:"calls"`
	Best  Stat `json:"best"`
}

// progressAt reads the runs' curves at the checkpoints of budget.
func progressAt(curves [][]float64, budget int) []ProgressPoint {
	var out []ProgressPoint
	for _, k := range Checkpoints(budget) {
		p := ProgressPoint{Calls: k}
		for _, c := range curves {
			if len(c) == 0 {
				continue
			}
			if v := c[min(k, len(c))-1]; !math.IsNaN(v) {
				p.Best.Add(v)
			}
		}
		out = append(out, p)
	}
	return out
}

// Checkpoints are the planner calls at which a report shows the
// best-so-far curve: 1, 2, 4, then every 4 up to 16, every 8 up to 48,
// every 16 beyond, and the budget; none without a budget.
func Checkpoints(budget int) []int {
	var out []int
	for k := 1; k <= budget; {
		out = append(out, k)
		switch {
		case k < 4:
			k *= 2
		case k < 16:
			k += 4
		case k < 48:
			k += 8
		default:
			k += 16
		}
	}
	if budget > 0 && (len(out) == 0 || out[len(out)-1] != budget) {
		out = append(out, budget)
	}
	return out
}
