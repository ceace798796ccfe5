package evolve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"policyevolve/critic"
	"policyevolve/evolve/arena"
	"policyevolve/evolve/chain"
	"policyevolve/evolve/episode"
	"policyevolve/evolve/gepa"
	"policyevolve/evolve/planner"
	"policyevolve/evolve/population"
	"policyevolve/evolve/search"
	"policyevolve/evolve/timing"
	"policyevolve/internal/plural"
	"policyevolve/pool"
	"policyevolve/store"
)

// Errors of Run, for callers to branch on.
var (
	// ErrRunDone: the run to resume has finished already.
	ErrRunDone = errors.New("the run is done")
	// ErrObjectiveChanged: a run to resume was asked for an objective
	// other than the one it started with (a run keeps its objective: its
	// pool, promotions and champion were decided under it).
	ErrObjectiveChanged = errors.New("a run resumes under the objective it started with")
)

// Run starts the job (or resumes RunID) and runs it until it is done, a
// budget is reached, or Stop is called; it returns the run as stored. A
// cancelled context abandons the step in flight: the run stays resumable.
//
// A run has one owner: Run takes the run's lease first and refuses, with
// an error wrapping store.ErrLeaseHeld, a run another live process drives;
// it releases the lease when it returns.
func (j *Job) Run(ctx context.Context) (*store.Run, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	how, err := j.open(ctx)
	if err != nil {
		j.releaseLease()
		return nil, err
	}
	j.beat(ctx, cancel)
	defer j.arena.Close()
	mode, err := j.mode()
	if err == nil {
		j.emit(Event{Kind: EventStarted, Iteration: j.run.Iterations - 1, Message: how})
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
		j.emit(Event{Kind: EventIteration, Iteration: i, Planned: len(it.Plan)})
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

// open creates or loads the run and prepares the job's parts; it says
// which it did, in words for the started event.
func (j *Job) open(ctx context.Context) (string, error) {
	j.started = time.Now()
	if j.Events == nil {
		j.Events = noReporter{}
	}
	resumed := j.RunID != ""
	if resumed {
		if err := j.Store.Update(func(tx *store.Tx) (err error) {
			if j.run, err = tx.Run(j.RunID); err != nil {
				return err
			}
			return j.takeLease(tx, j.RunID)
		}); err != nil {
			return "", err
		}
		var cfg JobConfig
		if err := json.Unmarshal(j.run.Config, &cfg); err != nil {
			return "", fmt.Errorf("run %s: its configuration does not read: %w", j.RunID, err)
		}
		exts, err := extend(&cfg, j.Extend, j.run.Iterations, time.Now())
		if err != nil {
			return "", fmt.Errorf("run %s: %w", j.RunID, err)
		}
		if j.run.Status == store.StatusDone && j.run.Iterations >= cfg.TotalIterations() {
			return "", fmt.Errorf("%w: %s finished with %s", ErrRunDone, j.RunID, IterationsDone(j.run.Iterations))
		}
		if len(exts) > 0 {
			for _, e := range exts {
				j.logf("run %s extended: %s", j.RunID, e)
			}
			raw, err := json.Marshal(cfg)
			if err != nil {
				return "", err
			}
			j.run.Config = raw
		}
		if asked := j.Config.Objective; asked != "" && asked != cfg.Objective {
			return "", fmt.Errorf("%w: %s was started with objective %s, not %s (resume it without --objective, or start a new run)",
				ErrObjectiveChanged, j.RunID, cfg.Objective, asked)
		}
		// The stored configuration decides, except how fast to go and
		// where the models are served (a move is stored: the next resume
		// goes there too).
		cfg.Workers, cfg.PlannerConcurrency = j.Config.Workers, j.Config.PlannerConcurrency
		if j.Config.Endpoints != nil && !maps.Equal(cfg.Endpoints, j.Config.Endpoints) {
			cfg.Endpoints = j.Config.Endpoints
			raw, err := json.Marshal(cfg)
			if err != nil {
				return "", err
			}
			j.run.Config = raw
		}
		j.Config = cfg
	}
	j.Config = j.Config.WithDefaults()
	if err := j.Config.Validate(); err != nil {
		return "", err
	}
	env, err := episode.ResolveEnv(j.Config.Game, j.Config.Map, j.Config.Agents, j.Config.Steps)
	if err != nil {
		return "", err
	}
	j.env = env
	if j.Config.Objective.Exploits() {
		if j.Config.Against, err = ResolveTarget(j.Store, j.Config.Against); err != nil {
			return "", err
		}
	}
	j.profile = timing.NewProfile(j.Store)
	j.arena = &arena.Arena{Profile: j.profile, Store: j.Store, Sandbox: j.Sandbox, Env: env, EvalSeeds: j.Config.EvalSeeds,
		MatchSeeds: j.Config.MatchSeeds, Pool: j.Config.Pool, PoolTag: j.Config.PoolTag, Objective: j.Config.Objective,
		Against: j.Config.Against, Invaders: j.Config.Invaders,
		Workers: j.Config.Workers, Log: j.Log, Executor: j.Executor}
	j.played.Store(j.arena)
	if j.dedupe, err = loadDedupe(j.Store, j.RunID, j.arena.GlobalPool()); err != nil {
		return "", err
	}
	if j.Config.Mode == ModePopulation {
		if err := j.arena.EnsureBaselines(ctx); err != nil {
			return "", err
		}
	}
	if !resumed {
		raw, err := json.Marshal(j.Config)
		if err != nil {
			return "", err
		}
		j.run = &store.Run{Mode: j.Config.Mode, Config: raw, Seed: j.Config.Seed, Status: store.StatusRunning}
		if err := j.Store.Update(func(tx *store.Tx) error {
			if err := tx.CreateRun(j.run); err != nil {
				return err
			}
			return j.takeLease(tx, j.run.ID)
		}); err != nil {
			return "", err
		}
		j.RunID = j.run.ID
	} else {
		j.run.Status, j.run.StopReason, j.run.Stop, j.run.Error = store.StatusRunning, "", "", ""
		if err := j.saveRun(); err != nil {
			return "", err
		}
	}
	// Planners and critic know the run: it scopes their LLM ledger, and
	// its budgets gate their calls.
	j.gate = &gate{j: j}
	if err := j.parts(); err != nil {
		j.run.Status, j.run.Error = store.StatusFailed, err.Error()
		j.saveRun()
		return "", err
	}
	how := fmt.Sprintf("new run of %s (%s)", plural.N(j.Config.TotalIterations(), "iteration"), iterationSpan(0, j.Config.TotalIterations()))
	if resumed {
		how = fmt.Sprintf("resumed with %s; next, iteration %d of 0–%d", IterationsDone(j.run.Iterations), j.run.Iterations, j.Config.TotalIterations()-1)
	}
	return how, nil
}

// parts builds the planners and the critic of the run.
func (j *Job) parts() error {
	j.critic = critic.Analytic{}
	if j.Critic != nil {
		c, err := j.Critic(j.RunID, j.gate)
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
		p, err := j.Planner(spec, j.RunID, j.gate)
		if err != nil {
			return fmt.Errorf("planner %s: %w", spec, err)
		}
		j.planners[spec] = p
	}
	return nil
}

// finish records how the run ended.
func (j *Job) finish(err error) (*store.Run, error) {
	defer j.releaseLease()
	r := j.run
	if j.lease.stop != nil {
		j.lease.stop()
		j.lease.stop = nil
	}
	lost := func() (*store.Run, error) {
		// The new owner's record stands: write nothing.
		return r, fmt.Errorf("run %s: %w by another process while this one ran (it took this one for gone); this process stopped", r.ID, ErrLeaseLost)
	}
	if j.leaseLost() || errors.Is(err, ErrLeaseLost) {
		return lost()
	}
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
	if serr := j.saveRun(); errors.Is(serr, ErrLeaseLost) {
		return lost()
	} else if serr != nil && err == nil {
		err = serr
	}
	prof := j.Profile()
	switch r.Status {
	case store.StatusDone:
		j.emit(Event{Kind: EventDone, Iteration: r.Iterations - 1, Champion: r.Champion, Profile: &prof})
	case store.StatusStopped:
		j.emit(Event{Kind: EventStopped, Iteration: r.Iterations - 1, Champion: r.Champion, Message: r.StopReason, Profile: &prof})
	}
	return r, err
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

// closeIteration marks an iteration done with the run's champion after it,
// and moves the run on.
func (j *Job) closeIteration(ctx context.Context, it *store.Iteration, mode search.Mode) error {
	before := j.arena.Episodes()
	c, err := mode.Champion(ctx, it)
	if err != nil {
		return err
	}
	it.Usage.Episodes += j.arena.Episodes() - before // the contenders' rechecks
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
	var rechecked []uint64
	if c.Rechecked != nil {
		rechecked = append(slices.Clone(j.Config.EvalSeeds), j.Config.RecheckSeeds()...)
	}
	j.emit(Event{Kind: EventIterationDone, Iteration: it.Index, Champion: c.Policy, ChampionMetrics: &c.Metrics,
		ChampionElo: c.Elo, ChampionRechecked: c.Rechecked, ChampionSeeds: j.Config.EvalSeeds, RecheckedSeeds: rechecked,
		BestCandidate: j.bestCandidate(it), Profile: &lap})
	return nil
}

// bestCandidate is the iteration's best candidate under the run's
// objective (the champion's rule, pool.Champion, over this iteration's
// settled candidates, a promoted one counting as a member of the pool at
// the rating it left with); nil when none was evaluated.
func (j *Job) bestCandidate(it *store.Iteration) *Standing {
	var cs []store.Candidate
	var es []pool.Entrant
	for _, c := range it.Candidates {
		switch c.Status {
		case store.CandidateEvaluated, store.CandidatePromoted, store.CandidateRejected:
			cs = append(cs, c)
			es = append(es, search.Entrant(c, c.Status == store.CandidatePromoted, c.Elo))
		}
	}
	k := j.Config.Objective.Champion(es)
	if k < 0 {
		return nil
	}
	return &Standing{Policy: cs[k].Policy, Metrics: cs[k].Metrics, Elo: cs[k].Elo}
}

// mode returns the search mode of the job's configuration, run in the job.
func (j *Job) mode() (search.Mode, error) {
	c, run := j.Config, host{j}
	switch c.Mode {
	case ModeChain:
		return chain.New(run, chain.Config{Planner: c.Planners[0], Iterations: c.Iterations, Recheck: c.RecheckSeeds(), Objective: c.Objective}), nil
	case ModeGEPA:
		return gepa.New(run, gepa.Config{Planner: c.Planners[0], EvalSeeds: c.EvalSeeds, Iterations: c.Iterations,
			Feedback: planner.Feedback(c.Feedback), MaxPlannerCalls: c.MaxPlannerCalls})
	}
	return population.New(run, population.Config{Iterations: c.Iterations, Candidates: c.Candidates,
		CrossoverRate: c.CrossoverRate.Value(), LocalRounds: c.LocalRounds.Value(), LocalStop: c.LocalStop.Value(), Refine: c.Refine,
		BestFirst: c.ParentOrder == ParentsBest || c.ParentOrder == ParentsLead, Lead: c.ParentOrder == ParentsLead, Planners: c.Planners, Pool: c.Pool,
		Invasion: c.Invasion, MatchSeeds: c.MatchSeeds, PlannerConcurrency: c.PlannerConcurrency, Objective: c.Objective,
		RobustMargin: c.RobustMargin, Recheck: c.RecheckSeeds()}), nil
}
