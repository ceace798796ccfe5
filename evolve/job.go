package evolve

import (
	"errors"
	"fmt"
	"hash/fnv"
	"sync"
	"sync/atomic"
	"time"

	"policyevolve/critic"
	"policyevolve/evolve/arena"
	"policyevolve/evolve/episode"
	"policyevolve/evolve/planner"
	"policyevolve/evolve/timing"
	"policyevolve/llm"
	"policyevolve/sandbox"
	"policyevolve/store"
)

// Job is an evolution job: a chain, a population search or GEPA-style
// prompt evolution that runs for hours, keeps everything in the store,
// survives kill -9 and resumes where it stopped. Its lifecycle is Run; Stop
// asks it to stop at the next safe point.
//
// Determinism: every random choice derives from the run seed; an
// iteration's plan (parents, opponents, planners) is made once and stored
// before anything it leads to; evaluations, matches, admission verdicts,
// critiques and LLM answers are stored and found again. So a resumed run
// ends with the same pool and champion as an uninterrupted one, and the
// number of Workers changes nothing but the time.
type Job struct {
	Config  JobConfig
	Store   *store.Store
	Sandbox *sandbox.Sandbox
	// Planner returns the planner a spec of Config.Planners names, for
	// the run (whose id scopes its LLM ledger); its LLM calls pass gate,
	// which holds them to the run's cost and token budgets
	// (llm.Config.Gate).
	Planner PlannerFunc
	// Critic returns the critic that writes reflections for the run (nil,
	// or a nil Critic: the analytic critic); its LLM calls pass gate too.
	Critic func(run string, gate llm.Gate) (critic.Critic, error)
	// Events receives the job's events (discarded when nil).
	Events Reporter
	// Log receives one line per notable step (discarded when nil).
	Log func(format string, args ...any)
	// Executor, when set, plays the job's evaluations and matches (see
	// Arena.Executor); it changes nothing but where they are played.
	Executor episode.Executor
	// RunID names a run to resume; empty starts a new one (Run sets it).
	RunID string
	// Owner is the process the run's lease names (store.Self() when its
	// PID is 0); tests inject hosts, clocks and liveness. Run takes the
	// lease, renews it every HeartbeatEvery (store.HeartbeatEvery when 0)
	// and releases it when it returns (docs/store.md, "One owner per run").
	Owner          store.Holder
	HeartbeatEvery time.Duration
	// Extend, on a resume, carries the run's budgets further (the
	// change is recorded with the run: JobConfig.Extended); a finished
	// run given more iterations goes on. Lowering one is an error
	// wrapping ErrBudgetShrunk.
	Extend Budgets

	env      episode.Env
	arena    *arena.Arena
	critic   critic.Critic
	planners map[string]planner.Planner
	gate     *gate
	dedupe   *dedupe
	mu       sync.Mutex // guards run and started: candidates are proposed concurrently
	run      *store.Run
	history  runHistory // the run's past, read once (history.go)
	ledger   ledger
	started  time.Time
	stop     atomic.Bool
	profile  *timing.Profile
	lap      timing.Totals // the profile when the iteration began
	// proposed counts this process's planner calls and played points at
	// the arena once there is one: Activity reads both at any time.
	proposed atomic.Int64
	played   atomic.Pointer[arena.Arena]
	lease    owner // lease.go
}

// Activity says how far the job has gone in this process: the planner
// calls made and the episodes played (evaluations, matches, the critic's
// and the planner's). It may be called from any goroutine, at any time:
// a progress line calls it while nothing else reports.
func (j *Job) Activity() (plannerCalls, episodes int) {
	if a := j.played.Load(); a != nil {
		episodes = a.Episodes()
	}
	return int(j.proposed.Load()), episodes
}

// PlannerFunc builds the planner a spec names for a run (Job.Planner).
type PlannerFunc func(spec, run string, gate llm.Gate) (planner.Planner, error)

// Profile returns where the job's time has gone so far (zero before Run).
func (j *Job) Profile() timing.Totals { return j.profile.Snapshot() }

// saveRun writes the run record with its usage brought up to date.
func (j *Job) saveRun() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	now := time.Now()
	j.run.Usage.WallSeconds += now.Sub(j.started).Seconds()
	j.started = now
	return j.Store.Update(func(tx *store.Tx) error {
		// Only the owner writes the run record: a job whose lease was
		// taken over fails here with ErrLeaseLost (and renews it
		// otherwise).
		if j.lease.held {
			if err := tx.RenewLease(j.run.ID, j.lease.holder); err != nil {
				return err
			}
		}
		if err := j.tally(tx); err != nil {
			return err
		}
		return tx.PutRun(j.run)
	})
}

// tally recounts the run's usage: proposals and episodes from its
// iterations, LLM calls, tokens and cost from the ledger (which counts a
// call once, however often it was found again).
func (j *Job) tally(tx *store.Tx) error {
	its, err := j.history.iterations(tx, j.run.ID)
	if err != nil {
		return err
	}
	u := &j.run.Usage
	u.Proposals, u.Episodes = 0, 0
	for _, it := range its {
		u.Proposals += it.Usage.Proposals
		u.Episodes += it.Usage.Episodes
	}
	calls, err := j.ledger.read(tx, j.run.ID)
	if err != nil {
		return err
	}
	u.LLMCalls, u.InputTokens, u.OutputTokens, u.ReasoningTokens, u.Cost, u.UnpricedCalls =
		calls.LLMCalls, calls.InputTokens, calls.OutputTokens, calls.ReasoningTokens, calls.Cost, calls.UnpricedCalls
	return nil
}

func (j *Job) emit(e Event) {
	e.Run = j.RunID
	e.Objective = j.Config.Objective
	e.Iterations = j.Config.TotalIterations()
	j.mu.Lock()
	e.Usage, e.Completed = j.run.Usage, j.run.Iterations
	j.mu.Unlock()
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	j.Events.Report(e)
}

func (j *Job) logf(format string, args ...any) {
	if j.Log != nil {
		j.Log(format, args...)
	}
}

// seedFor derives a seed for one use from the run seed: the same parts
// give the same seed, in any process.
func (j *Job) seedFor(parts ...any) uint64 {
	h := fnv.New64a()
	fmt.Fprint(h, j.Config.Seed)
	for _, p := range parts {
		fmt.Fprintf(h, "\x00%v", p)
	}
	return h.Sum64()
}

// loadIteration returns the stored iteration, or a fresh one.
func (j *Job) loadIteration(i int) (*store.Iteration, error) {
	var it *store.Iteration
	err := j.Store.View(func(tx *store.Tx) (err error) {
		it, err = tx.Iteration(j.RunID, i)
		return err
	})
	if errors.Is(err, store.ErrNotFound) {
		return &store.Iteration{Run: j.RunID, Index: i, Started: time.Now().UTC()}, nil
	}
	return it, err
}

// saveIteration stores an iteration as it stands (called by the modes as
// candidates are drafted and settled, and when it ends). The run's
// record is written with it, its usage recounted from what is stored
// (the candidates drafted so far, their planner calls, the LLM calls
// made), so that runs ls and the live view show a run's spending and
// last write as it goes, not only at the end of each iteration.
func (j *Job) saveIteration(it *store.Iteration) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.Store.Update(func(tx *store.Tx) error {
		// As in saveRun: only the lease's owner writes.
		if j.lease.held {
			if err := tx.RenewLease(j.run.ID, j.lease.holder); err != nil {
				return err
			}
		}
		if err := tx.PutIteration(it); err != nil {
			return err
		}
		if err := j.tally(tx); err != nil {
			return err
		}
		now := time.Now()
		j.run.Usage.WallSeconds += now.Sub(j.started).Seconds()
		j.started = now
		return tx.PutRun(j.run)
	})
}

// refreshUsage brings the run's usage up to date (for budgets) without
// writing it.
func (j *Job) refreshUsage() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.Store.View(func(tx *store.Tx) error { return j.tally(tx) })
}
