package evolve

import (
	"context"
	"encoding/json"
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
	"policyevolve/evolve/search"
	"policyevolve/evolve/timing"
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
	// the run (whose id scopes its LLM ledger).
	Planner func(spec, run string) (planner.Planner, error)
	// Critic returns the critic that writes reflections for the run (nil,
	// or a nil Critic: the analytic critic).
	Critic func(run string) (critic.Critic, error)
	// Events receives the job's events (discarded when nil).
	Events Reporter
	// Log receives one line per notable step (discarded when nil).
	Log func(format string, args ...any)
	// Executor, when set, plays the job's evaluations and matches (see
	// Arena.Executor); it changes nothing but where they are played.
	Executor episode.Executor
	// RunID names a run to resume; empty starts a new one (Run sets it).
	RunID string

	env      episode.Env
	arena    *arena.Arena
	critic   critic.Critic
	planners map[string]planner.Planner
	dedupe   *dedupe
	mu       sync.Mutex // guards run and started: candidates are proposed concurrently
	run      *store.Run
	started  time.Time
	stop     atomic.Bool
	profile  *timing.Profile
	lap      timing.Totals // the profile when the iteration began
}

// Profile returns where the job's time has gone so far (zero before Run).
func (j *Job) Profile() timing.Totals { return j.profile.Snapshot() }

// ErrRunDone: the run to resume has finished already.
var ErrRunDone = errors.New("the run is done")

// Run starts the job (or resumes RunID) and runs it until it is done, a
// budget is reached, or Stop is called; it returns the run as stored. A
// cancelled context abandons the step in flight: the run stays resumable.
func (j *Job) Run(ctx context.Context) (*store.Run, error) {
	if err := j.open(ctx); err != nil {
		return nil, err
	}
	defer j.arena.Close()
	mode, err := j.mode()
	if err == nil {
		err = j.iterate(ctx, mode)
	}
	return j.finish(err)
}

// iterate drives the mode through the run's iterations, from the first
// not done, until the last is closed or the run is to stop.
func (j *Job) iterate(ctx context.Context, mode search.Mode) error {
	for i := j.run.Iterations; i < mode.Iterations(); i++ {
		it, err := j.beginIteration(i)
		if err != nil || it == nil {
			return err
		}
		if ok, err := mode.Plan(ctx, it); err != nil || !ok {
			return err
		}
		j.emit(Event{Kind: EventIteration, Iteration: i})
		if ok, err := mode.Play(ctx, it); err != nil || !ok {
			return err
		}
		if err := j.closeIteration(ctx, it, mode); err != nil {
			return err
		}
		if j.stopping() {
			return nil // a budget ran out during the iteration
		}
	}
	return nil
}

// open creates or loads the run and prepares the job's parts.
func (j *Job) open(ctx context.Context) error {
	j.started = time.Now()
	if j.Events == nil {
		j.Events = noReporter{}
	}
	resumed := j.RunID != ""
	if resumed {
		if err := j.Store.View(func(tx *store.Tx) (err error) {
			j.run, err = tx.Run(j.RunID)
			return err
		}); err != nil {
			return err
		}
		if j.run.Status == store.StatusDone {
			return fmt.Errorf("%w: %s finished at iteration %d", ErrRunDone, j.RunID, j.run.Iterations)
		}
		var cfg JobConfig
		if err := json.Unmarshal(j.run.Config, &cfg); err != nil {
			return fmt.Errorf("run %s: its configuration does not read: %w", j.RunID, err)
		}
		// The stored configuration decides, except how fast to go.
		cfg.Workers, cfg.PlannerConcurrency = j.Config.Workers, j.Config.PlannerConcurrency
		j.Config = cfg
	}
	j.Config = j.Config.WithDefaults()
	if err := j.Config.Validate(); err != nil {
		return err
	}
	env, err := episode.ResolveEnv(j.Config.Game, j.Config.Map, j.Config.Agents, j.Config.Steps)
	if err != nil {
		return err
	}
	j.env = env
	j.profile = timing.NewProfile(j.Store)
	j.arena = &arena.Arena{Profile: j.profile, Store: j.Store, Sandbox: j.Sandbox, Env: env, EvalSeeds: j.Config.EvalSeeds,
		MatchSeeds: j.Config.MatchSeeds, Pool: j.Config.Pool, PoolTag: j.Config.PoolTag, Workers: j.Config.Workers, Log: j.Log,
		Executor: j.Executor}
	if j.dedupe, err = loadDedupe(j.Store, j.RunID, j.arena.GlobalPool()); err != nil {
		return err
	}
	if j.Config.Mode == ModePopulation {
		if err := j.arena.EnsureBaselines(ctx); err != nil {
			return err
		}
	}
	if !resumed {
		raw, err := json.Marshal(j.Config)
		if err != nil {
			return err
		}
		j.run = &store.Run{Mode: j.Config.Mode, Config: raw, Seed: j.Config.Seed, Status: store.StatusRunning}
		if err := j.Store.Update(func(tx *store.Tx) error { return tx.CreateRun(j.run) }); err != nil {
			return err
		}
		j.RunID = j.run.ID
	} else {
		j.run.Status, j.run.StopReason, j.run.Stop, j.run.Error = store.StatusRunning, "", "", ""
		if err := j.saveRun(); err != nil {
			return err
		}
	}
	// Planners and critic know the run: it scopes their LLM ledger.
	if err := j.parts(); err != nil {
		j.run.Status, j.run.Error = store.StatusFailed, err.Error()
		j.saveRun()
		return err
	}
	how := "new run"
	if resumed {
		how = fmt.Sprintf("resumed after iteration %d", j.run.Iterations)
	}
	j.emit(Event{Kind: EventStarted, Message: how})
	return nil
}

// parts builds the planners and the critic of the run.
func (j *Job) parts() error {
	j.critic = critic.Analytic{}
	if j.Critic != nil {
		c, err := j.Critic(j.RunID)
		if err != nil {
			return fmt.Errorf("critic: %w", err)
		}
		if c != nil {
			j.critic = c
		}
	}
	j.planners = map[string]planner.Planner{}
	for _, spec := range j.Config.Planners {
		if j.Planner == nil {
			return errors.New("job: no way to build planners")
		}
		p, err := j.Planner(spec, j.RunID)
		if err != nil {
			return fmt.Errorf("planner %s: %w", spec, err)
		}
		j.planners[spec] = p
	}
	return nil
}

// finish records how the run ended.
func (j *Job) finish(err error) (*store.Run, error) {
	r := j.run
	switch {
	case err == nil && r.Stop == "":
		r.Status = store.StatusDone
	case err == nil:
		r.Status = store.StatusStopped
	case errors.Is(err, context.Canceled):
		r.Status, r.Stop, r.StopReason = store.StatusStopped, store.StopAbandoned, "abandoned (cancelled mid-step)"
	default:
		r.Status, r.Error = store.StatusFailed, err.Error()
	}
	if serr := j.saveRun(); serr != nil && err == nil {
		err = serr
	}
	prof := j.Profile()
	switch r.Status {
	case store.StatusDone:
		j.emit(Event{Kind: EventDone, Champion: r.Champion, Profile: &prof})
	case store.StatusStopped:
		j.emit(Event{Kind: EventStopped, Champion: r.Champion, Message: r.StopReason, Profile: &prof})
	}
	return r, err
}

// saveRun writes the run record with its usage brought up to date.
func (j *Job) saveRun() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	now := time.Now()
	j.run.Usage.WallSeconds += now.Sub(j.started).Seconds()
	j.started = now
	return j.Store.Update(func(tx *store.Tx) error {
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
	its, err := tx.Iterations(j.run.ID)
	if err != nil {
		return err
	}
	u := &j.run.Usage
	u.Proposals, u.Episodes = 0, 0
	for _, it := range its {
		u.Proposals += it.Usage.Proposals
		u.Episodes += it.Usage.Episodes
	}
	calls, err := tx.LLMCalls(j.run.ID)
	if err != nil {
		return err
	}
	u.LLMCalls, u.InputTokens, u.OutputTokens, u.ReasoningTokens, u.Cost = 0, 0, 0, 0, 0
	for _, c := range calls {
		u.LLMCalls++
		u.InputTokens += c.TokensIn
		u.OutputTokens += c.TokensOut
		u.ReasoningTokens += c.TokensReasoning
		u.Cost += c.Cost
	}
	return nil
}

func (j *Job) emit(e Event) {
	e.Run = j.RunID
	e.Iterations = j.Config.Iterations
	j.mu.Lock()
	e.Usage = j.run.Usage
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

// beginIteration brings the usage up to date and, unless the job is to
// stop (then nil), returns iteration i as stored, or a fresh one.
func (j *Job) beginIteration(i int) (*store.Iteration, error) {
	if err := j.refreshUsage(); err != nil {
		return nil, err
	}
	if j.shouldStop() {
		return nil, nil
	}
	return j.loadIteration(i)
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

func (j *Job) saveIteration(it *store.Iteration) error {
	return j.Store.Update(func(tx *store.Tx) error { return tx.PutIteration(it) })
}

// closeIteration marks an iteration done with the run's champion after it,
// and moves the run on.
func (j *Job) closeIteration(ctx context.Context, it *store.Iteration, mode search.Mode) error {
	c, err := mode.Champion(ctx, it)
	if err != nil {
		return err
	}
	it.Champion, it.Best, it.BestElo, it.Done, it.Finished = c.Policy, c.Metrics, c.Elo, true, time.Now().UTC()
	if err := j.saveIteration(it); err != nil {
		return err
	}
	j.run.Iterations, j.run.Champion = it.Index+1, c.Policy
	if err := j.saveRun(); err != nil {
		return err
	}
	now := j.profile.Snapshot()
	lap := now.Sub(j.lap)
	j.lap = now
	j.emit(Event{Kind: EventIterationDone, Iteration: it.Index, Champion: c.Policy, Best: &c.Metrics, BestElo: c.Elo, Profile: &lap})
	return nil
}
