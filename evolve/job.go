package evolve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"policyevolve/critic"
	"policyevolve/envs/ssd"
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
	Planner func(spec, run string) (Planner, error)
	// Critic returns the critic that writes reflections for the run (nil,
	// or a nil Critic: the analytic critic).
	Critic func(run string) (critic.Critic, error)
	// Events receives the job's events (discarded when nil).
	Events Reporter
	// Log receives one line per notable step (discarded when nil).
	Log func(format string, args ...any)
	// Executor, when set, plays the job's evaluations and matches (see
	// Arena.Executor); it changes nothing but where they are played.
	Executor Executor
	// RunID names a run to resume; empty starts a new one (Run sets it).
	RunID string

	env      Env
	arena    *Arena
	critic   critic.Critic
	planners map[string]Planner
	dedupe   *dedupe
	mu       sync.Mutex // guards run and started: candidates are proposed concurrently
	run      *store.Run
	history  runHistory // the run's past, read once (history.go)
	ledger   ledger
	matches  matchBook
	started  time.Time
	stop     atomic.Bool
	profile  *Profile
	lap      ProfileTotals // the profile when the iteration began
}

// Profile returns where the job's time has gone so far (zero before Run).
func (j *Job) Profile() ProfileTotals { return j.profile.Snapshot() }

// StopInterrupted is the StopReason of a run stopped by Stop.
const StopInterrupted = "interrupted"

// Stop asks the job to stop at the next safe point (between candidates
// and phases). It may be called from any goroutine.
func (j *Job) Stop() { j.stop.Store(true) }

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
	var err error
	switch j.Config.Mode {
	case ModeChain:
		err = j.chain(ctx)
	case ModeGEPA:
		err = j.gepa(ctx)
	default:
		err = j.population(ctx)
	}
	return j.finish(err)
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
	env, err := ResolveEnv(j.Config.Game, j.Config.Map, j.Config.Agents, j.Config.Steps)
	if err != nil {
		return err
	}
	j.env = env
	j.matches.env = env.Config
	j.profile = NewProfile(j.Store)
	j.arena = &Arena{Profile: j.profile, Store: j.Store, Sandbox: j.Sandbox, Env: env, EvalSeeds: j.Config.EvalSeeds,
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
		j.run.Status, j.run.StopReason, j.run.Error = store.StatusRunning, "", ""
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
	j.planners = map[string]Planner{}
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
	case err == nil && r.StopReason == "":
		r.Status = store.StatusDone
	case err == nil:
		r.Status = store.StatusStopped
	case errors.Is(err, context.Canceled):
		r.Status, r.StopReason = store.StatusStopped, "abandoned (cancelled mid-step)"
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
	u.LLMCalls, u.InputTokens, u.OutputTokens, u.ReasoningTokens, u.Cost =
		calls.LLMCalls, calls.InputTokens, calls.OutputTokens, calls.ReasoningTokens, calls.Cost
	return nil
}

// budgetReached says whether a budget forbids another planner call, and
// which. The caller holds j.mu (or is the only goroutine).
func (j *Job) budgetReached() string {
	c, u := j.Config, j.run.Usage
	switch {
	case c.MaxPlannerCalls > 0 && u.Proposals >= c.MaxPlannerCalls:
		return fmt.Sprintf("planner-call %s (%d)", budgetReached, c.MaxPlannerCalls)
	case c.MaxCost > 0 && u.Cost >= c.MaxCost:
		return fmt.Sprintf("cost %s ($%.2f)", budgetReached, c.MaxCost)
	case c.MaxTokens > 0 && u.InputTokens+u.OutputTokens >= c.MaxTokens:
		return fmt.Sprintf("token %s (%d)", budgetReached, c.MaxTokens)
	case c.MaxTime > 0 && time.Duration((u.WallSeconds+time.Since(j.started).Seconds())*float64(time.Second)) >= c.MaxTime:
		return fmt.Sprintf("time %s (%v)", budgetReached, c.MaxTime)
	}
	return ""
}

// budgetReached is in every stop reason of a budget.
const budgetReached = "budget reached"

// StoppedByBudget reports whether a run ended because one of its budgets
// was reached: resuming it with the same budgets would do nothing more.
func StoppedByBudget(r *store.Run) bool {
	return r.Status == store.StatusStopped && strings.Contains(r.StopReason, budgetReached)
}

// shouldStop says whether to stop before the next step, recording why.
func (j *Job) shouldStop() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.run.StopReason != "" {
		return true
	}
	if j.stop.Load() {
		j.run.StopReason = StopInterrupted
		return true
	}
	return false
}

// interrupted says whether Stop was called, recording it as the reason
// when no budget was reached first.
func (j *Job) interrupted() bool {
	if !j.stop.Load() {
		return false
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.run.StopReason == "" {
		j.run.StopReason = StopInterrupted
	}
	return true
}

// refreshUsage brings the run's usage up to date (for budgets) without
// writing it.
func (j *Job) refreshUsage() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.Store.View(func(tx *store.Tx) error { return j.tally(tx) })
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

func (j *Job) game() ssd.Game {
	g, _ := ssd.ParseGame(j.env.Config.Game)
	return g
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

// candidate returns the iteration's record of candidate k, or nil.
func candidate(it *store.Iteration, k int) *store.Candidate {
	for i := range it.Candidates {
		if it.Candidates[i].Sample == k {
			return &it.Candidates[i]
		}
	}
	return nil
}

// setCandidate records (or replaces) a candidate's record.
func setCandidate(it *store.Iteration, c store.Candidate) {
	if old := candidate(it, c.Sample); old != nil {
		*old = c
		return
	}
	it.Candidates = append(it.Candidates, c)
}

// scored loads a policy with its evaluation (evaluating it when needed)
// and its rating in the global pool, as a planner is shown it.
func (j *Job) scored(ctx context.Context, id string) (Scored, error) {
	var p *store.Policy
	var r *store.Rating
	err := j.Store.View(func(tx *store.Tx) (err error) {
		if p, err = tx.Policy(id); err != nil {
			return err
		}
		r, err = tx.Rating(j.arena.GlobalPool(), id)
		if errors.Is(err, store.ErrNotFound) {
			err = nil
		}
		return err
	})
	if err != nil {
		return Scored{}, err
	}
	ev, err := j.arena.Evaluate(ctx, id)
	if err != nil {
		return Scored{}, err
	}
	s := Scored{Policy: *p, Eval: ev}
	if r != nil {
		s.Elo, s.Rated = r.Elo, true
	}
	return s, nil
}
