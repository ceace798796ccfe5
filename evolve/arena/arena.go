package arena

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"policyevolve/elo"
	"policyevolve/envs"
	"policyevolve/envs/ssd"
	"policyevolve/evolve/episode"
	"policyevolve/evolve/timing"
	"policyevolve/pool"
	"policyevolve/sandbox"
	"policyevolve/store"
)

// Arena evaluates, matches and rates policies on one environment, and
// keeps every result in the store: nothing stored is ever recomputed.
// Transactions are short; episodes run between them.
type Arena struct {
	Store   *store.Store
	Sandbox *sandbox.Sandbox // nil: only built-in policies can play
	Env     episode.Env
	// EvalSeeds are the seeds of a self-play evaluation (default 0-4).
	EvalSeeds []uint64
	// MatchSeeds are the seeds of the matches a candidate plays against
	// each opponent (default 0; each match is two episodes already).
	MatchSeeds []uint64
	Pool       pool.Config
	K          float64 // Elo K factor (default elo.DefaultK)
	// PoolTag, when set, names a pool of its own (see GlobalPool).
	PoolTag string
	// Objective decides what a game counts in Rate and whose pool
	// GlobalPool is (docs/objectives.md). The zero value reads as elo
	// (pool.Stored): the untagged pool, rated by mixed matches, as arenas
	// always were.
	Objective pool.Objective
	// Against and Invaders are the exploit objective's target: the
	// residents' policy (a stored id) and the number of invaders an
	// invasion evaluation seats among them (Invasion;
	// docs/objectives.md). Unused when Against is empty.
	Against  string
	Invaders int
	// Workers bounds the episodes played at once on this machine (default:
	// the number of CPUs). Results do not depend on it: every episode is a
	// pure function of its policies and seed, and results are gathered in
	// seed order.
	Workers int
	// Executor, when set, plays the episodes instead of this machine's
	// sandbox workers (package distrib plays them on workers fed by NATS
	// JetStream); it bounds its own parallelism. Results do not depend on
	// it either.
	Executor episode.Executor
	// Log receives one line per notable step; nil discards them.
	Log func(format string, args ...any)
	// Profile, when set, adds up the time spent compiling and playing.
	Profile *timing.Profile

	once     sync.Once      // defaults
	local    *episode.Local // plays episodes here: the default executor
	episodes atomic.Int64   // episodes played (not found in the store)

	beforeApply func() // test hook: runs between playing and applying Rate's matches
}

func (a *Arena) logf(format string, args ...any) {
	if a.Log != nil {
		a.Log(format, args...)
	}
}

// keptPrograms bounds the compiled policies an Arena keeps, the least
// recently played dropped first. An iteration plays a few dozen (the
// pool's members, the candidates and their local versions); keeping every
// one a long job ever played grew its memory by some 30 KB an iteration.
// A policy dropped and played again is compiled again from the worker
// cache: validation and a cache hit, milliseconds.
const keptPrograms = 64

// defaults fills in the zero fields, once: the Arena's methods may then
// run concurrently.
func (a *Arena) defaults() { a.once.Do(a.setDefaults) }

func (a *Arena) setDefaults() {
	if a.Workers <= 0 {
		a.Workers = runtime.NumCPU()
	}
	a.local = &episode.Local{Sandbox: a.Sandbox, Workers: a.Workers, Profile: a.Profile, MaxPrograms: keptPrograms}
	if len(a.EvalSeeds) == 0 {
		a.EvalSeeds = []uint64{0, 1, 2, 3, 4}
	}
	if len(a.MatchSeeds) == 0 {
		a.MatchSeeds = []uint64{0}
	}
	if a.K <= 0 {
		a.K = elo.DefaultK
	}
	a.Pool = a.Pool.WithDefaults()
	// Seed lists are sets: one order, so that "4,3,2,1,0" finds the
	// evaluation stored for "0-4".
	a.EvalSeeds = slices.Compact(slices.Sorted(slices.Values(a.EvalSeeds)))
	a.MatchSeeds = slices.Compact(slices.Sorted(slices.Values(a.MatchSeeds)))
}

// GlobalPool is the name of this environment's global pool for the
// Objective: a pool per objective ("global/ENV@welfare"; the elo
// objective's is the untagged "global/ENV"). A PoolTag gives a run its own
// pool ("global/ENV@welfare#TAG"), apart from the environment's shared one
// (compare runs each search from scratch). The exploit objective has a
// pool per target: its tag names the target and K ("vs-1a2b3c4d-k1",
// after the PoolTag when there is one), since a rating there counts
// invasions of that target.
func (a *Arena) GlobalPool() string {
	tag := a.PoolTag
	if a.Objective.Exploits() {
		target := fmt.Sprintf("vs-%.8s-k%d", a.Against, a.Invaders)
		if tag == "" {
			tag = target
		} else {
			tag += "-" + target
		}
	}
	return store.PoolKey{Env: a.Env.Config, Objective: string(pool.Stored(a.Objective)), Tag: tag}.String()
}

// program loads a stored policy and, for a source policy, its compiled
// Program (nil for a built-in), compiled once per Arena.
func (a *Arena) program(ctx context.Context, id string) (*store.Policy, *sandbox.Program, error) {
	a.defaults()
	var p *store.Policy
	if err := a.Store.View(func(tx *store.Tx) (err error) {
		p, err = tx.Policy(id)
		return err
	}); err != nil {
		return nil, nil, err
	}
	ep := episode.PolicyOf(p)
	prog, err := a.local.Compile(ctx, &ep, episode.LimitsOf(a.Sandbox))
	return p, prog, err
}

// Close ends the idle policy workers the Arena started. The Arena stays
// usable.
func (a *Arena) Close() {
	a.defaults()
	a.local.Close()
}

// Episodes is how many episodes the Arena has played (results found in the
// store are not counted).
func (a *Arena) Episodes() int { return int(a.episodes.Load()) }

// play runs one episode in which agent i is played by ids[side[i]], on
// the Executor, or here when one of the Workers slots is free (see Local).
func (a *Arena) play(ctx context.Context, ids []string, side []int, seed uint64) (*envs.Result, error) {
	a.defaults()
	ep, err := a.episode(ids, side, seed)
	if err != nil {
		return nil, err
	}
	a.episodes.Add(1)
	if a.Executor == nil {
		return a.local.Play(ctx, ep)
	}
	a.Profile.Episode()
	defer a.Profile.Start(timing.Playing)()
	return a.Executor.Play(ctx, ep)
}

// episode describes the episode in which agent i is played by
// ids[side[i]], on seed, loading the policies from the store.
func (a *Arena) episode(ids []string, side []int, seed uint64) (*episode.Episode, error) {
	var policies []episode.Policy
	err := a.Store.View(func(tx *store.Tx) error {
		for _, id := range ids {
			p, err := tx.Policy(id)
			if err != nil {
				return err
			}
			policies = append(policies, episode.PolicyOf(p))
		}
		return nil
	})
	return episode.New(a.Env, policies, side, seed, episode.LimitsOf(a.Sandbox)), err
}

// EnsureBaselines stores the built-in policies and, when this
// environment's global pool is empty, seeds it with them (evaluated,
// rated at elo.DefaultInitial).
func (a *Arena) EnsureBaselines(ctx context.Context) error {
	a.defaults()
	var members []store.Member
	var ids []string
	err := a.Store.Update(func(tx *store.Tx) error {
		var err error
		members, err = tx.Members(a.GlobalPool())
		if err != nil {
			return err
		}
		for _, name := range episode.Baselines {
			p := &store.Policy{Source: episode.BuiltinSource(name), Name: name, Builtin: name, Origin: store.Origin{Operator: "builtin"}}
			if _, err := tx.PutPolicy(p); err != nil {
				return err
			}
			ids = append(ids, p.ID)
		}
		if len(members) > 0 {
			return nil
		}
		for _, id := range ids {
			if err := tx.AddMember(&store.Member{Policy: id, Pool: a.GlobalPool(), Reason: "baseline"}); err != nil {
				return err
			}
			if err := tx.PutRating(&store.Rating{Policy: id, Pool: a.GlobalPool(), Elo: elo.DefaultInitial}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(members) == 0 {
		a.logf("seeded pool %s with the baselines %s", a.GlobalPool(), strings.Join(episode.Baselines, ", "))
		for _, id := range ids {
			if _, err := a.Evaluate(ctx, id); err != nil {
				return err
			}
		}
	}
	return nil
}

// Evaluate returns the policy's self-play evaluation over EvalSeeds,
// playing it only if the store has none. A policy that fails on a seed is
// a failed evaluation, not an error.
func (a *Arena) Evaluate(ctx context.Context, id string) (*store.Evaluation, error) {
	a.defaults()
	return a.EvaluateOn(ctx, id, a.EvalSeeds)
}

// EvaluateOn is Evaluate over other seeds (a set: their order and
// repeats do not matter), as when a contender for champion is rechecked
// (search.Crown).
func (a *Arena) EvaluateOn(ctx context.Context, id string, seeds []uint64) (*store.Evaluation, error) {
	a.defaults()
	if len(seeds) == 0 {
		return nil, fmt.Errorf("evaluate %.12s: no seeds", id)
	}
	seeds = slices.Compact(slices.Sorted(slices.Values(seeds)))
	var ev *store.Evaluation
	err := a.Store.View(func(tx *store.Tx) (err error) {
		ev, err = tx.Evaluation(id, a.Env.Config, seeds)
		return err
	})
	if err == nil {
		return ev, nil
	}
	if !errors.Is(err, store.ErrNotFound) {
		return nil, err
	}
	ev = &store.Evaluation{Policy: id, Env: a.Env.Config, Seeds: seeds, Status: store.StatusOK, Backend: a.scoredBy(id)}
	// The seeds play at once (as slots allow); their results are taken in
	// seed order.
	results, errs := a.playSeeds(ctx, []string{id}, make([]int, a.Env.Config.Agents), seeds)
	ok := 0
	for k, seed := range seeds {
		_, played, err := foldSeed(ev, seed, results[k], errs[k], fmt.Sprintf("evaluate %.12s", id))
		if err != nil {
			return nil, err
		}
		if played {
			ok++
		}
	}
	meanOver(ev, ok)
	if err := a.Store.Update(func(tx *store.Tx) error { return tx.PutEvaluation(ev) }); err != nil {
		return nil, err
	}
	a.logf("evaluated %.12s: %s, efficiency %.3f, equality %.3f", id, ev.Status, ev.Mean.Efficiency, ev.Mean.Equality)
	return ev, nil
}

// Match returns the match of A against B on seed, playing it only if the
// store has none. A side whose policy fails loses (both failing: a draw);
// the failure is kept in Match.Error.
func (a *Arena) Match(ctx context.Context, idA, idB string, seed uint64) (*store.Match, error) {
	a.defaults()
	var m *store.Match
	err := a.Store.View(func(tx *store.Tx) (err error) {
		if m, err = tx.Match(idA, idB, a.Env.Config, seed); !errors.Is(err, store.ErrNotFound) {
			return err
		}
		// The same match with the sides named the other way round is the
		// same two episodes: reuse it, mirrored.
		r, err := tx.Match(idB, idA, a.Env.Config, seed)
		if err == nil {
			m = &store.Match{A: idA, B: idB, Env: r.Env, Seed: r.Seed, ScoreA: r.ScoreB, ScoreB: r.ScoreA,
				Outcome: 1 - r.Outcome, Error: r.Error, Created: r.Created, Backend: r.Backend}
		}
		return err
	})
	if err == nil {
		return m, nil
	}
	if !errors.Is(err, store.ErrNotFound) {
		return nil, err
	}
	if a.Env.Config.Agents < 2 {
		return nil, fmt.Errorf("a match needs at least 2 agents, the environment has %d", a.Env.Config.Agents)
	}
	m = &store.Match{A: idA, B: idB, Env: a.Env.Config, Seed: seed, Backend: a.scoredBy(idA, idB)}
	failed := [2]bool{}
	run := func(ctx context.Context, side []int, seed uint64) ([]float64, error) {
		res, err := a.play(ctx, []string{idA, idB}, side, seed)
		if err != nil && episode.PolicyFailure(err) {
			var ae *envs.ActorError
			if errors.As(err, &ae) && len(ae.Agents) > 0 {
				failed[side[ae.Agents[0]]] = true
			}
			if m.Error == "" {
				m.Error = err.Error()
			}
			return make([]float64, len(side)), nil
		}
		if err != nil {
			return nil, err
		}
		return res.Returns, nil
	}
	r, err := elo.Play(ctx, run, a.Env.Config.Agents, seed)
	if err != nil {
		return nil, fmt.Errorf("match %.12s vs %.12s, seed %d: %w", idA, idB, seed, err)
	}
	m.ScoreA, m.ScoreB, m.Outcome = r.ScoreA, r.ScoreB, r.Outcome
	switch {
	case failed[0] && failed[1]:
		m.Outcome = elo.Draw
	case failed[0]:
		m.Outcome = elo.Loss
	case failed[1]:
		m.Outcome = elo.Win
	}
	if err := a.Store.Update(func(tx *store.Tx) error { return tx.PutMatch(m) }); err != nil {
		return nil, err
	}
	return m, nil
}

// RateReport is the outcome of rating a candidate against opponents.
type RateReport struct {
	// Games are the candidate's games as the arena's objective counts
	// them (see Game), opponent by opponent, seed by seed.
	Games  []Game
	Points float64 // the candidate's: 1 per win, 0.5 per draw
	Elo    float64 // the candidate's rating after the games
}

// WinRate is the candidate's share of points.
func (r *RateReport) WinRate() float64 { return pool.WinRate(r.Points, len(r.Games)) }

// Rate plays the candidate's games against each opponent (see Game: mixed
// matches on every match seed under elo, comparisons of self-play on
// every evaluation seed under welfare; everything played is taken from the
// store when stored), then applies the Elo updates, one game at a time,
// to both sides' ratings in the global pool: the candidate from its
// current rating or elo.DefaultInitial. A game already in either side's
// rating history is not counted again, so Rate can be repeated, or
// resumed after a crash, without counting twice.
//
// With commit, the updates are read, applied and written in one
// transaction, against the ratings as they are at that moment, so two
// processes rating at once cannot overwrite each other; the candidate
// must be a member of the pool, and opponents that are no longer members
// keep no rating. Without commit, nothing but what was played is stored.
func (a *Arena) Rate(ctx context.Context, candidate string, opponents []string, commit bool) (*RateReport, error) {
	a.defaults()
	rep := &RateReport{}
	for _, opp := range opponents {
		gs, err := a.Games(ctx, candidate, opp)
		if err != nil {
			return nil, err
		}
		for _, g := range gs {
			rep.Games = append(rep.Games, g)
			rep.Points += g.Outcome
		}
	}
	if a.beforeApply != nil {
		a.beforeApply()
	}
	apply := func(tx *store.Tx) error {
		gp := a.GlobalPool()
		ratings := map[string]*store.Rating{}
		rating := func(id string) (*store.Rating, error) {
			if r := ratings[id]; r != nil {
				return r, nil
			}
			r, err := tx.Rating(gp, id)
			if errors.Is(err, store.ErrNotFound) {
				r, err = &store.Rating{Policy: id, Pool: gp, Elo: elo.DefaultInitial}, nil
			}
			ratings[id] = r
			return r, err
		}
		for _, g := range rep.Games {
			rc, err := rating(candidate)
			if err != nil {
				return err
			}
			ro, err := rating(g.Opponent)
			if err != nil {
				return err
			}
			if counted(rc, g.Opponent, g.Seed) || counted(ro, candidate, g.Seed) {
				continue
			}
			rc.Elo, ro.Elo = elo.Update(rc.Elo, ro.Elo, g.Outcome, a.K)
			record(rc, g.Opponent, g.Seed, g.Outcome)
			record(ro, candidate, g.Seed, 1-g.Outcome)
		}
		rc, err := rating(candidate)
		if err != nil {
			return err
		}
		rep.Elo = rc.Elo
		if !commit {
			return nil
		}
		if !tx.InPool(gp, candidate) {
			return fmt.Errorf("rate %.12s: not a member of %s", candidate, gp)
		}
		for _, id := range slices.Sorted(maps.Keys(ratings)) {
			err := tx.PutRating(ratings[id])
			if errors.Is(err, store.ErrNotFound) && id != candidate {
				continue // an opponent evicted meanwhile
			}
			if err != nil {
				return err
			}
		}
		return nil
	}
	var err error
	if commit {
		err = a.Store.Update(apply)
	} else {
		err = a.Store.View(apply)
	}
	if err != nil {
		return nil, err
	}
	return rep, nil
}

// counted reports whether a rating's history already holds the match
// against opponent on seed.
func counted(r *store.Rating, opponent string, seed uint64) bool {
	for _, h := range r.History {
		if h.Opponent == opponent && h.Seed == seed {
			return true
		}
	}
	return false
}

// record counts a match in a rating, whose Elo is already updated.
func record(r *store.Rating, opponent string, seed uint64, outcome float64) {
	r.Games++
	switch outcome {
	case elo.Win:
		r.Wins++
	case elo.Loss:
		r.Losses++
	default:
		r.Draws++
	}
	r.History = append(r.History, store.RatingPoint{Time: time.Now().UTC(), Elo: r.Elo, Opponent: opponent, Seed: seed, Outcome: outcome})
}

// Members returns the global pool as the pool rules see it: Elo from the
// pool's ratings, metrics from each member's evaluation (evaluating where
// none is stored).
func (a *Arena) Members(ctx context.Context) ([]pool.Member, error) {
	a.defaults()
	var ms []store.Member
	ratings := map[string]float64{}
	err := a.Store.View(func(tx *store.Tx) error {
		var err error
		if ms, err = tx.Members(a.GlobalPool()); err != nil {
			return err
		}
		rs, err := tx.Ratings(a.GlobalPool())
		for _, r := range rs {
			ratings[r.Policy] = r.Elo
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	out := make([]pool.Member, 0, len(ms))
	for _, m := range ms {
		ev, err := a.Evaluate(ctx, m.Policy)
		if err != nil {
			return nil, err
		}
		e, ok := ratings[m.Policy]
		if !ok {
			e = elo.DefaultInitial
		}
		out = append(out, pool.Member{ID: m.Policy, Elo: e, Efficiency: ev.Mean.Efficiency,
			Equality: ev.Mean.Equality, Sustainability: ev.Mean.Sustainability})
	}
	return out, nil
}

// ImportReport says what Import did.
type ImportReport struct {
	ID         string
	New        bool // the policy was not in the store before
	Evaluation *store.Evaluation
	Rating     *RateReport
	Evicted    []string
}

// Import admits a hand-written policy into the global pool: it must pass
// the sandbox's admission check (validation, compilation, the 50-step
// smoke test, the determinism probe); it is stored, evaluated, added to
// the pool, rated against opponents sampled from it (seeded by rngSeed),
// and the pool is trimmed to capacity.
func (a *Arena) Import(ctx context.Context, src []byte, name string, rngSeed uint64) (*ImportReport, error) {
	a.defaults()
	if a.Sandbox == nil {
		return nil, errors.New("import needs a sandbox")
	}
	g, _ := ssd.ParseGame(a.Env.Config.Game)
	if _, err := a.Sandbox.Check(ctx, src, g); err != nil {
		return nil, err
	}
	p := &store.Policy{Source: string(src), Name: name, Origin: store.Origin{Operator: "import", Planner: "human"}}
	return a.admit(ctx, p, "import", rngSeed)
}

// admit stores p, evaluates it, and when its self-play succeeds adds it to
// the global pool (with reason), rates it against opponents sampled from
// the pool (seeded by rngSeed) and trims the pool to capacity.
func (a *Arena) admit(ctx context.Context, p *store.Policy, reason string, rngSeed uint64) (*ImportReport, error) {
	if err := a.EnsureBaselines(ctx); err != nil {
		return nil, err
	}
	rep := &ImportReport{}
	if err := a.Store.Update(func(tx *store.Tx) (err error) {
		rep.New, err = tx.PutPolicy(p)
		return err
	}); err != nil {
		return nil, err
	}
	rep.ID = p.ID
	ev, err := a.Evaluate(ctx, p.ID)
	if err != nil {
		return nil, err
	}
	rep.Evaluation = ev
	if ev.Status != store.StatusOK {
		// Stored (it cost CPU), but a policy that fails in self-play does
		// not join a pool.
		return rep, fmt.Errorf("policy %.12s failed its self-play evaluation: %s", p.ID, ev.Error)
	}
	opponents, err := a.opponentsFor(ctx, p.ID, rngSeed)
	if err != nil {
		return nil, err
	}
	if err := a.Store.Update(func(tx *store.Tx) error {
		return tx.AddMember(&store.Member{Policy: p.ID, Pool: a.GlobalPool(), Reason: reason})
	}); err != nil {
		return nil, err
	}
	if rep.Rating, err = a.Rate(ctx, p.ID, opponents, true); err != nil {
		return nil, err
	}
	rep.Evicted, err = a.Trim(ctx)
	return rep, err
}

// opponentsFor draws the opponents a candidate is rated against: those of
// its rating history when it has one (a repeated or resumed import plays
// the same matches), else a softmax draw from the rest of the pool.
func (a *Arena) opponentsFor(ctx context.Context, candidate string, rngSeed uint64) ([]string, error) {
	var past []string
	err := a.Store.View(func(tx *store.Tx) error {
		r, err := tx.Rating(a.GlobalPool(), candidate)
		if errors.Is(err, store.ErrNotFound) {
			return nil
		}
		for _, h := range r.History {
			if !slices.Contains(past, h.Opponent) {
				past = append(past, h.Opponent)
			}
		}
		return err
	})
	if err != nil || len(past) > 0 {
		sort.Strings(past)
		return past, err
	}
	members, err := a.Members(ctx)
	if err != nil {
		return nil, err
	}
	var others []pool.Member
	for _, m := range members {
		if m.ID != candidate {
			others = append(others, m)
		}
	}
	rng := rand.New(rand.NewPCG(rngSeed, 0x1307))
	var out []string
	for _, m := range pool.SampleOpponents(others, a.Pool.Opponents, a.Pool.Temperature, rng) {
		out = append(out, m.ID)
	}
	sort.Strings(out)
	return out, nil
}

// Trim evicts members until the global pool is within capacity and
// returns the evicted ids.
func (a *Arena) Trim(ctx context.Context) ([]string, error) {
	a.defaults()
	members, err := a.Members(ctx)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, m := range pool.Evict(members, a.Pool.Capacity) {
		out = append(out, m.ID)
	}
	if len(out) == 0 {
		return nil, nil
	}
	err = a.Store.Update(func(tx *store.Tx) error {
		for _, id := range out {
			if err := tx.RemoveMember(a.GlobalPool(), id); err != nil {
				return err
			}
		}
		return nil
	})
	return out, err
}

// League plays a round robin among ids (every pair on every seed, matches
// taken from the store when already played). The matches not stored yet
// are played first, at once (as the Workers slots allow).
func (a *Arena) League(ctx context.Context, ids []string, seeds []uint64) (*elo.League, error) {
	var wg sync.WaitGroup
	errs := make(chan error, 1)
	for i := range ids {
		for j := i + 1; j < len(ids); j++ {
			for _, seed := range seeds {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if _, err := a.Match(ctx, ids[i], ids[j], seed); err != nil {
						select {
						case errs <- err:
						default:
						}
					}
				}()
			}
		}
	}
	wg.Wait()
	select {
	case err := <-errs:
		return nil, err
	default:
	}
	return elo.RoundRobin(ctx, len(ids), seeds, func(ctx context.Context, i, j int, seed uint64) (*elo.Result, error) {
		m, err := a.Match(ctx, ids[i], ids[j], seed)
		if err != nil {
			return nil, err
		}
		return &elo.Result{ScoreA: m.ScoreA, ScoreB: m.ScoreB, Outcome: m.Outcome}, nil
	})
}
