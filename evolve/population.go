package evolve

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"sync"

	"golang.org/x/sync/errgroup"

	"policyevolve/pool"
	"policyevolve/store"
)

// population runs PolicyEvolve's search. Each iteration plans its
// candidates from the global pool as it stands (parents by Pareto rank
// over Elo, the social metrics and exploitability; opponents by softmax
// over Elo; a planner each), proposes them (with local refinement against
// the critic), evaluates them in self-play, plays them against their
// opponents, promotes those whose win rate is above the threshold, and
// trims the pool.
func (j *Job) population(ctx context.Context) error {
	for i := j.run.Iterations; i < j.Config.Iterations; i++ {
		it, err := j.beginIteration(i)
		if err != nil || it == nil {
			return err
		}
		if len(it.Plan) == 0 {
			if reason, err := j.budgetNow(); err != nil || reason != "" {
				return err
			}
			if err := j.plan(ctx, it); err != nil {
				return err
			}
		}
		j.emit(Event{Kind: EventIteration, Iteration: i})
		for _, phase := range []struct {
			name string
			run  func(context.Context, *store.Iteration) error
		}{{"propose", j.proposeAll}, {"evaluate", j.evaluateAll}, {"challenge", j.challengeAll}} {
			// Only an interruption stops between phases: a budget reached
			// while proposing (no planner call is made after it) lets the
			// iteration evaluate, challenge and close what it proposed.
			if j.interrupted() {
				return nil
			}
			j.emit(Event{Kind: EventPhase, Iteration: i, Phase: phase.name})
			if err := phase.run(ctx, it); err != nil {
				return err
			}
		}
		if err := j.closeIteration(ctx, it, j.populationChampion); err != nil {
			return err
		}
		if j.run.StopReason != "" {
			return nil // a budget ran out during the iteration
		}
	}
	return nil
}

// plan chooses, for each candidate of the iteration, its operator,
// parents, inspirations, opponents and planner, from the pool as it
// stands, and stores the plan before anything it leads to.
func (j *Job) plan(ctx context.Context, it *store.Iteration) error {
	members, err := j.arena.Members(ctx)
	if err != nil {
		return err
	}
	// Parents: the pool's source members (a built-in has no code to
	// show) and the run's own candidates of earlier iterations that were
	// evaluated and challenged the pool, rated as their matches left them:
	// a search whose candidates have not yet beaten the pool builds on its
	// best work rather than starting over. Front by front, each front in a
	// seeded order.
	var sources []pool.Member
	inPool := map[string]bool{}
	for _, m := range members {
		inPool[m.ID] = true
	}
	if err := j.Store.View(func(tx *store.Tx) error {
		for _, m := range members {
			p, err := tx.Policy(m.ID)
			if err != nil {
				return err
			}
			if p.Builtin == "" {
				sources = append(sources, m)
			}
		}
		its, err := j.history.iterations(tx, j.RunID)
		if err != nil {
			return err
		}
		for _, ik := range its {
			if ik.Index >= it.Index {
				continue
			}
			for _, c := range ik.Candidates {
				if (c.Status == store.CandidateRejected || c.Status == store.CandidatePromoted) && !inPool[c.Policy] {
					inPool[c.Policy] = true // once, however often it came back
					sources = append(sources, pool.Member{ID: c.Policy, Elo: c.Elo, Efficiency: c.Metrics.Efficiency,
						Equality: c.Metrics.Equality, Sustainability: c.Metrics.Sustainability, Peace: c.Metrics.Peace})
				}
			}
		}
		return nil
	}); err != nil {
		return err
	}
	if err := j.exploitability(sources, members); err != nil {
		return err
	}
	if j.Config.Invasion {
		var ids []string
		for _, m := range members {
			ids = append(ids, m.ID)
		}
		for i := range sources {
			_, gain, err := j.arena.WorstInvader(ctx, sources[i].ID, ids)
			if err != nil {
				return err
			}
			sources[i].Invadability = gain
		}
	}
	rng := rand.New(rand.NewPCG(j.seedFor("plan", it.Index), 0))
	var order []string
	for _, front := range pool.SelectionFronts(sources) {
		ids := make([]string, len(front))
		for i, k := range front {
			ids[i] = sources[k].ID
		}
		sort.Strings(ids)
		rng.Shuffle(len(ids), func(a, b int) { ids[a], ids[b] = ids[b], ids[a] })
		order = append(order, ids...)
	}
	picks, err := j.pickPlanners(it.Index, j.Config.Candidates)
	if err != nil {
		return err
	}
	for k := 0; k < j.Config.Candidates; k++ {
		pc := store.PlannedCandidate{Sample: k, Planner: picks[k], Seed: j.seedFor("candidate", it.Index, k)}
		switch {
		case len(order) == 0:
			pc.Operator = OpInit
		case len(order) >= 2 && j.Config.CrossoverRate > 0 && rng.Float64() < j.Config.CrossoverRate:
			a := order[k%len(order)]
			b := order[(k+1+rng.IntN(len(order)-1))%len(order)]
			if b == a {
				b = order[(k+1)%len(order)]
			}
			pc.Operator, pc.Parents = OpCrossover, []string{a, b}
		default:
			parent := order[k%len(order)]
			pc.Operator, pc.Parents = OpImprove, []string{parent}
			for d := 1; d < len(order) && len(pc.Inspirations) < 3; d++ {
				pc.Inspirations = append(pc.Inspirations, order[(k+d)%len(order)])
			}
		}
		for _, m := range pool.SampleOpponents(members, j.Config.Pool.Opponents, j.Config.Pool.Temperature, rng) {
			pc.Opponents = append(pc.Opponents, m.ID)
		}
		sort.Strings(pc.Opponents)
		it.Plan = append(it.Plan, pc)
	}
	return j.saveIteration(it)
}

// exploitability sets each policy's Exploitability from the matches
// stored against the pool's members: the largest margin by which a member
// beat it (DECISIONS: elo.League.Exploitability's measure, over the
// matches played so far).
func (j *Job) exploitability(members, against []pool.Member) error {
	in := map[string]bool{}
	for _, m := range against {
		in[m.ID] = true
	}
	if err := j.Store.View(func(tx *store.Tx) error { return j.matches.update(tx) }); err != nil {
		return err
	}
	for i := range members {
		members[i].Exploitability = j.matches.exploitability(members[i].ID, in)
	}
	return nil
}

// pickPlanners chooses each candidate's planner: the only one, or by a
// UCB1 bandit over how often each planner's candidates were promoted in
// the run's earlier iterations (an arm picked in this iteration counts as
// tried, without a reward yet, so that picks spread).
func (j *Job) pickPlanners(iteration, n int) ([]string, error) {
	specs := j.Config.Planners
	out := make([]string, n)
	if len(specs) == 1 {
		for k := range out {
			out[k] = specs[0]
		}
		return out, nil
	}
	pulls := map[string]float64{}
	wins := map[string]float64{}
	err := j.Store.View(func(tx *store.Tx) error {
		its, err := j.history.iterations(tx, j.RunID)
		if err != nil {
			return err
		}
		for _, it := range its {
			if it.Index >= iteration {
				break
			}
			for _, c := range it.Candidates {
				spec := it.Plan[c.Sample].Planner
				if c.Status == store.CandidateSkipped {
					continue
				}
				pulls[spec]++
				if c.Status == store.CandidatePromoted {
					wins[spec]++
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for k := range out {
		total := 0.0
		for _, s := range specs {
			total += pulls[s]
		}
		best, bestScore := specs[0], math.Inf(-1)
		for _, s := range specs {
			score := math.Inf(1) // untried first
			if pulls[s] > 0 {
				score = wins[s]/pulls[s] + math.Sqrt(2*math.Log(total)/pulls[s])
			}
			if score > bestScore {
				best, bestScore = s, score
			}
		}
		out[k] = best
		pulls[best]++
	}
	return out, nil
}

// proposeAll proposes every planned candidate not yet proposed, up to
// PlannerConcurrency at once; each is recorded as soon as it is settled.
func (j *Job) proposeAll(ctx context.Context, it *store.Iteration) error {
	before := j.arena.Episodes()
	var mu sync.Mutex // guards it
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(j.Config.PlannerConcurrency)
	for _, pc := range it.Plan {
		mu.Lock()
		done := candidate(it, pc.Sample) != nil
		mu.Unlock()
		if done {
			continue
		}
		if j.stop.Load() {
			break
		}
		g.Go(func() error {
			c, err := j.proposeOne(gctx, it, pc, &mu)
			if err != nil {
				return err
			}
			mu.Lock()
			setCandidate(it, *c)
			addUsage(&it.Usage, c.Usage)
			err = j.saveIteration(it)
			mu.Unlock()
			if c.Status != store.CandidateProposed {
				j.emit(Event{Kind: EventCandidate, Iteration: it.Index, Candidate: c})
			}
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	// The critic's recorded episodes and the local rounds' evaluations.
	it.Usage.Episodes += j.arena.Episodes() - before
	return j.saveIteration(it)
}

// proposeOne writes a candidate, refines it locally against the critic,
// and returns its record (the best local version as its policy).
func (j *Job) proposeOne(ctx context.Context, it *store.Iteration, pc store.PlannedCandidate, mu *sync.Mutex) (*store.Candidate, error) {
	c := &store.Candidate{Sample: pc.Sample}
	if reason, err := j.budgetNow(); err != nil {
		return nil, err
	} else if reason != "" {
		c.Status, c.Problem = store.CandidateSkipped, reason
		return c, nil
	}
	r := request{op: pc.Operator, inspirations: pc.Inspirations}
	if len(pc.Parents) > 0 {
		r.parent = pc.Parents[0]
	}
	if len(pc.Parents) > 1 {
		r.mate = pc.Parents[1]
	}
	out, err := j.propose(ctx, it, pc, pc.Sample, r)
	if err != nil {
		return nil, err
	}
	c.Attempts, c.Usage = len(out.Attempts), outcomeUsage(out)
	countRefusals(c, out)
	if out.Policy == nil {
		c.Status, c.Problem = refusal(out)
		return c, nil
	}
	c.Policy, c.Status = out.Policy.ID, store.CandidateProposed
	c.Local = []string{out.Policy.ID}
	if err := j.localPool(it.Index, out.Policy.ID); err != nil {
		return nil, err
	}
	// Local refinement: improve the candidate against the critic's
	// reflections on its own episodes; keep the best version.
	best, err := j.arena.Evaluate(ctx, c.Policy)
	if err != nil {
		return nil, err
	}
	for round := 1; round <= j.Config.LocalRounds; round++ {
		if best.Status != store.StatusOK || j.stop.Load() {
			break
		}
		if reason, err := j.budgetWith(c.Usage); err != nil {
			return nil, err
		} else if reason != "" {
			break
		}
		out, err := j.propose(ctx, it, pc, pc.Sample+1000*round, request{op: OpImprove, parent: c.Policy})
		if err != nil {
			return nil, err
		}
		addUsage(&c.Usage, outcomeUsage(out))
		c.Attempts += len(out.Attempts)
		countRefusals(c, out)
		if out.Policy == nil {
			continue
		}
		c.Local = append(c.Local, out.Policy.ID)
		if err := j.localPool(it.Index, out.Policy.ID); err != nil {
			return nil, err
		}
		ev, err := j.arena.Evaluate(ctx, out.Policy.ID)
		if err != nil {
			return nil, err
		}
		if ev.Status != store.StatusOK {
			countFailures(c, ev)
		}
		if ev.Status == store.StatusOK && ev.Mean.Efficiency > best.Mean.Efficiency {
			c.Policy, best = out.Policy.ID, ev
		}
	}
	return c, nil
}

// budgetNow checks the budgets against the usage as stored now; a budget
// reached stops the run after the iteration. Its error (the usage could
// not be read) stops the run: a budget that cannot be checked is not
// taken for one that is not reached.
func (j *Job) budgetNow() (string, error) { return j.budgetWith(store.RunUsage{}) }

// budgetWith is budgetNow counting also pending, the usage of work in
// hand that is not stored yet (a candidate between its local rounds).
// Candidates proposed at once (--planner-concurrency) do not see each
// other's pending calls, so they may overshoot a budget by one request
// each.
func (j *Job) budgetWith(pending store.RunUsage) (string, error) {
	if err := j.refreshUsage(); err != nil {
		return "", fmt.Errorf("check the budgets: %w", err)
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	stored := j.run.Usage
	addUsage(&j.run.Usage, pending)
	reason := j.budgetReached()
	j.run.Usage = stored
	if reason != "" && j.run.StopReason == "" {
		j.run.StopReason = reason
	}
	return reason, nil
}

// localPool adds a version to the iteration's local pool.
func (j *Job) localPool(iteration int, id string) error {
	return j.Store.Update(func(tx *store.Tx) error {
		return tx.AddMember(&store.Member{Policy: id, Pool: store.LocalPool(j.RunID, iteration), Reason: "candidate"})
	})
}

// evaluateAll evaluates every proposed candidate in self-play.
func (j *Job) evaluateAll(ctx context.Context, it *store.Iteration) error {
	before := j.arena.Episodes()
	g, gctx := errgroup.WithContext(ctx)
	evs := make([]*store.Evaluation, len(it.Candidates))
	for k, c := range it.Candidates {
		if c.Status != store.CandidateProposed {
			continue
		}
		g.Go(func() (err error) {
			evs[k], err = j.arena.Evaluate(gctx, c.Policy)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	for k := range it.Candidates {
		c := &it.Candidates[k]
		if evs[k] == nil {
			continue
		}
		c.Metrics, c.Status = evs[k].Mean, store.CandidateEvaluated
		if evs[k].Status != store.StatusOK {
			c.Status, c.Problem = store.CandidateFailed, evs[k].Error
			countFailures(c, evs[k])
			j.emit(Event{Kind: EventCandidate, Iteration: it.Index, Candidate: c})
		}
	}
	it.Usage.Episodes += j.arena.Episodes() - before
	return j.saveIteration(it)
}

// challengeAll plays each evaluated candidate against its opponents, then,
// in the order of the plan, promotes those above the threshold (their
// ratings and the opponents' are updated then) and trims the pool.
func (j *Job) challengeAll(ctx context.Context, it *store.Iteration) error {
	before := j.arena.Episodes()
	plan := map[int]store.PlannedCandidate{}
	for _, pc := range it.Plan {
		plan[pc.Sample] = pc
	}
	// The matches, all at once (as the Arena's slots allow).
	g, gctx := errgroup.WithContext(ctx)
	for _, c := range it.Candidates {
		if c.Status != store.CandidateEvaluated {
			continue
		}
		for _, opp := range plan[c.Sample].Opponents {
			for _, seed := range j.Config.MatchSeeds {
				g.Go(func() error {
					_, err := j.arena.Match(gctx, c.Policy, opp, seed)
					return err
				})
			}
		}
	}
	if err := g.Wait(); err != nil {
		return err
	}
	slices.SortFunc(it.Candidates, func(a, b store.Candidate) int { return a.Sample - b.Sample })
	for k := range it.Candidates {
		c := &it.Candidates[k]
		if c.Status != store.CandidateEvaluated {
			continue
		}
		rep, err := j.arena.Rate(ctx, c.Policy, plan[c.Sample].Opponents, false)
		if err != nil {
			return err
		}
		c.WinRate, c.Games, c.Elo = rep.WinRate(), rep.Games, rep.Elo
		c.Status = store.CandidateRejected
		if pool.Promote(c.WinRate, true, j.Config.Pool.PromoteThreshold) {
			if err := j.Store.Update(func(tx *store.Tx) error {
				return tx.AddMember(&store.Member{Policy: c.Policy, Pool: j.arena.GlobalPool(), Reason: "promoted"})
			}); err != nil {
				return err
			}
			if rep, err = j.arena.Rate(ctx, c.Policy, plan[c.Sample].Opponents, true); err != nil {
				return err
			}
			c.Elo, c.Status = rep.Elo, store.CandidatePromoted
		}
		if err := j.saveIteration(it); err != nil {
			return err
		}
		j.emit(Event{Kind: EventCandidate, Iteration: it.Index, Candidate: c})
	}
	if _, err := j.arena.Trim(ctx); err != nil {
		return err
	}
	it.Usage.Episodes += j.arena.Episodes() - before
	return j.saveIteration(it)
}

// populationChampion is the run's best policy: among its candidates in
// the global pool, the highest rated; else the best self-play efficiency
// among its evaluated candidates.
func (j *Job) populationChampion(ctx context.Context, it *store.Iteration) (string, store.Metrics, float64, error) {
	var best string
	var bestM store.Metrics
	bestElo, bestEff := math.Inf(-1), math.Inf(-1)
	inPool := false
	err := j.Store.View(func(tx *store.Tx) error {
		its, err := j.history.iterations(tx, j.RunID)
		if err != nil {
			return err
		}
		members, err := tx.Members(j.arena.GlobalPool())
		if err != nil {
			return err
		}
		member := map[string]bool{}
		for _, m := range members {
			member[m.Policy] = true
		}
		ratings, err := tx.Ratings(j.arena.GlobalPool())
		if err != nil {
			return err
		}
		elo := map[string]float64{}
		for _, r := range ratings {
			elo[r.Policy] = r.Elo
		}
		for _, ik := range its {
			if ik.Index == it.Index {
				ik = *it
			}
			for _, c := range ik.Candidates {
				switch {
				case c.Policy == "" || (c.Status != store.CandidatePromoted && c.Status != store.CandidateRejected):
				case member[c.Policy] && (!inPool || elo[c.Policy] > bestElo || (elo[c.Policy] == bestElo && c.Policy < best)):
					best, bestM, bestElo, inPool = c.Policy, c.Metrics, elo[c.Policy], true
				case !inPool && c.Metrics.Efficiency > bestEff:
					best, bestM, bestEff = c.Policy, c.Metrics, c.Metrics.Efficiency
				}
			}
		}
		return nil
	})
	if err != nil {
		return "", store.Metrics{}, 0, err
	}
	if !inPool {
		bestElo = 0
	}
	if best == "" {
		return "", store.Metrics{}, 0, nil
	}
	return best, bestM, bestElo, nil
}
