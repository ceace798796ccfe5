package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"policyevolve/evolve"
	"policyevolve/evolve/episode"
	"policyevolve/pool"
	"policyevolve/store"
)

// Report is what a page shows: a run (with the comparison it belongs to,
// if compare made it) or a comparison alone.
type Report struct {
	// Store is the store file it was read from; Generated when.
	Store     string
	Generated time.Time
	Run       *Run        // nil for a comparison report
	Compare   *Comparison // the comparison (of the run, or asked for)
}

// Run is one evolution run as the page shows it.
type Run struct {
	Record store.Run
	Config evolve.JobConfig
	// Env is the run's environment; Map is nil when the map (a file) can
	// no longer be read, and then there is no replay.
	Env episode.Env
	// Planned is how many iterations the run makes in all.
	Planned    int
	Iterations []store.Iteration
	// Pool is the run's global pool ("" for a chain, which has none).
	Pool string
	// Members is the final pool, best rated first; for a chain, which
	// has no pool, the policy of each iteration in order.
	Members []Member
	// Elo is the pool's Elo per iteration (nil for a chain).
	Elo *EloHistory
	// Champion is the run's best policy (nil before the first iteration
	// ends) with its evaluation on the run's seeds and its lineage.
	Champion *store.Policy
	Eval     *store.Evaluation
	Lineage  *Lineage
	// Origins are how the candidates' policies were made, by id.
	Origins map[string]store.Origin
	// Replay is the champion's replay, once AddReplay has run.
	Replay *Replay
}

// Member is a row of the final pool.
type Member struct {
	Policy    store.Policy
	Elo       float64
	Rated     bool
	Games     int
	Wins      int
	Draws     int
	Losses    int
	Metrics   store.Metrics
	Seeds     []uint64 // the self-play seeds Metrics is the mean over, named beside it
	Evaluated bool
	Failed    bool
	Reason    string // why it is in the pool (baseline, promoted…); a chain: its candidate's status
	Champion  bool
	Backend   string // the backend that scored its evaluation ("" built-in, or not recorded)
}

// Errors callers branch on. ErrNotFound: no run, comparison, policy or
// pool of that id in the store. ErrBadQuery: a page was asked for with a
// value it does not take (an unknown sort column, a malformed
// environment).
var (
	ErrNotFound = errors.New("not found")
	ErrBadQuery = errors.New("bad query")
)

// Load reads the run or comparison id from s, in one read-only
// transaction. A comparison id starts with "cmp-" (as compare names
// them; runs show prints a run's pool tag); anything else is a run id.
func Load(s *store.Store, id string) (*Report, error) {
	r := &Report{Store: s.Path(), Generated: time.Now()}
	err := s.View(func(tx *store.Tx) error {
		if strings.HasPrefix(id, "cmp-") {
			c, err := loadComparison(tx, id)
			r.Compare = c
			return err
		}
		run, err := loadRun(tx, id)
		if err != nil {
			return err
		}
		r.Run = run
		if cid := comparisonOf(run.Config.PoolTag); cid != "" {
			r.Compare, err = loadComparison(tx, cid)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return r, nil
}

// loadRun reads a run with everything its page shows.
func loadRun(tx *store.Tx, id string) (*Run, error) {
	rec, err := tx.Run(id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, fmt.Errorf("%w: no run %q in the store (policyevolve runs ls lists them)", ErrNotFound, id)
	}
	if err != nil {
		return nil, err
	}
	if status, owner, err := tx.Standing(rec, store.Self()); err != nil {
		return nil, err
	} else if status == store.StatusInterrupted {
		rec.Status, rec.StopReason = status, store.InterruptedReason(owner)
	}
	r := &Run{Record: *rec}
	if err := json.Unmarshal(rec.Config, &r.Config); err != nil {
		return nil, fmt.Errorf("run %s: its configuration does not read: %w", id, err)
	}
	r.Config = r.Config.WithDefaults()
	r.Planned = r.Config.TotalIterations()
	if r.Iterations, err = tx.Iterations(id); err != nil {
		return nil, err
	}
	if r.Env, err = runEnv(tx, rec, r.Config); err != nil {
		return nil, err
	}
	if r.Origins, err = tx.CandidateOrigins(r.Iterations); err != nil {
		return nil, err
	}
	if r.Config.Mode != evolve.ModeChain {
		r.Pool = store.PoolKey{Env: r.Env.Config, Objective: string(pool.Stored(r.Config.Objective)), Tag: r.Config.PoolTag}.String()
	}
	if err := r.loadMembers(tx); err != nil {
		return nil, err
	}
	if r.Pool != "" {
		if r.Elo, err = eloHistory(tx, r); err != nil {
			return nil, err
		}
	}
	if r.Record.Champion != "" {
		if r.Champion, err = tx.Policy(r.Record.Champion); err != nil {
			return nil, fmt.Errorf("champion %.12s: %w", r.Record.Champion, err)
		}
		if r.Eval, err = evaluation(tx, r.Champion.ID, r); err != nil {
			return nil, err
		}
		if r.Lineage, err = lineage(tx, r.Champion.ID, maxLineageNodes); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// runEnv resolves a run's environment. A map file that is gone leaves
// Map nil: the environment's key is then found in the evaluations of the
// run's candidates.
func runEnv(tx *store.Tx, rec *store.Run, c evolve.JobConfig) (episode.Env, error) {
	env, err := episode.ResolveEnv(c.Game, c.Map, c.Agents, c.Steps)
	if err == nil {
		return env, nil
	}
	its, ierr := tx.Iterations(rec.ID)
	if ierr != nil {
		return env, ierr
	}
	for _, it := range its {
		for _, cand := range it.Candidates {
			if cand.Policy == "" {
				continue
			}
			evs, err := tx.EvaluationsOf(cand.Policy)
			if err != nil {
				return env, err
			}
			for _, ev := range evs {
				if ev.Env.Game == c.Game && ev.Env.Agents == c.Agents && ev.Env.MaxSteps == c.Steps {
					return episode.Env{Config: ev.Env}, nil
				}
			}
		}
	}
	return env, fmt.Errorf("run %s: its environment: %w", rec.ID, err)
}

// evaluation is a policy's self-play evaluation on the run's environment
// and seeds, else the latest on its environment, else nil.
func evaluation(tx *store.Tx, id string, r *Run) (*store.Evaluation, error) {
	ev, err := tx.Evaluation(id, r.Env.Config, r.Config.EvalSeeds)
	if err == nil || !errors.Is(err, store.ErrNotFound) {
		return ev, err
	}
	evs, err := tx.EvaluationsOf(id)
	if err != nil {
		return nil, err
	}
	var latest *store.Evaluation
	for k := range evs {
		if evs[k].Env == r.Env.Config && (latest == nil || evs[k].Created.After(latest.Created)) {
			latest = &evs[k]
		}
	}
	return latest, nil
}
