package population

import (
	"cmp"
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"sync"

	"golang.org/x/sync/errgroup"

	"policyevolve/evolve/planner"
	"policyevolve/evolve/search"
	"policyevolve/pool"
	"policyevolve/store"
)

// Config is what a population search reads of the job's configuration
// (evolve.JobConfig, defaults applied).
type Config struct {
	Iterations int // iterations of the run
	Candidates int // candidates per iteration (M)
	// CrossoverRate is the share of candidates that cross two parents (0:
	// none); LocalRounds the local refinement rounds per candidate (0:
	// none).
	CrossoverRate float64
	LocalRounds   int
	// LocalStop ends a candidate's refinement after that many rounds in
	// a row that did not improve it (0: all LocalRounds rounds).
	LocalStop int
	// Refine is which candidates are refined: RefineAll or RefineRace
	// (see refineAll).
	Refine string
	// BestFirst orders each Pareto front of parents best first by the
	// objective (ties in the seeded order): self-play efficiency under
	// welfare and robust, the rating under elo; else the seeded order
	// alone.
	BestFirst bool
	// Lead hands the first parent of the order (the best, with BestFirst)
	// to the first half of the candidates (rounded up), and the next ones
	// in order to the rest; without it candidate k takes the k-th parent.
	Lead bool
	// Planners are the specs of the planners; with several, a UCB1 bandit
	// picks each candidate's.
	Planners []string
	Pool     pool.Config
	// Invasion makes invasion resistance a parent-selection objective.
	Invasion bool
	// Objective decides who is promoted (pool.Admit: the arena's
	// Objective decides what a game counts) and who is champion:
	// docs/objectives.md. RobustMargin is the margin of the robust
	// objective's invasion test (pool.Resists).
	Objective    pool.Objective
	RobustMargin float64
	// MatchSeeds are the seeds of each candidate's matches.
	MatchSeeds []uint64
	// PlannerConcurrency bounds the candidates proposed at once.
	PlannerConcurrency int
	// Recheck are the seeds a contender for champion, or for the lead of
	// an iteration's parents, is also played on (search.Crown; none: the
	// evaluation seeds alone decide).
	Recheck []uint64
}

// How an iteration's candidates are refined (Config.Refine).
const (
	RefineAll  = "all"  // every candidate
	RefineRace = "race" // best first, only those that can lead
)

// Mode is PolicyEvolve's search. Each iteration plans its candidates from
// the global pool as it stands (parents by Pareto rank over Elo, the
// social metrics and exploitability; opponents by softmax over Elo; a
// planner each), proposes them (with local refinement against the
// critic), evaluates them in self-play, plays them against their
// opponents, promotes those whose win rate is above the threshold, and
// trims the pool.
type Mode struct {
	run     search.Run
	cfg     Config
	matches matchBook // the matches stored so far, read once
}

var _ search.Mode = (*Mode)(nil)

// New returns the population search of cfg, run in run.
func New(run search.Run, cfg Config) *Mode { return &Mode{run: run, cfg: cfg} }

// Iterations is the configuration's.
func (m *Mode) Iterations() int { return m.cfg.Iterations }

// Plan plans the iteration unless it has a plan; a budget reached before
// stops the run.
func (m *Mode) Plan(ctx context.Context, it *store.Iteration) (bool, error) {
	if len(it.Plan) > 0 {
		return true, nil
	}
	if reason, err := m.run.Budget(store.RunUsage{}); err != nil || reason != "" {
		return false, err
	}
	return true, m.plan(ctx, it)
}

// Play runs the phases of the iteration: propose, evaluate, challenge.
func (m *Mode) Play(ctx context.Context, it *store.Iteration) (bool, error) {
	for _, phase := range []struct {
		name string
		run  func(context.Context, *store.Iteration) error
	}{{"propose", m.proposeAll}, {"evaluate", m.evaluateAll}, {"challenge", m.challengeAll}} {
		// Only an interruption stops between phases: a budget reached
		// while proposing (no planner call is made after it) lets the
		// iteration evaluate, challenge and close what it proposed.
		if m.run.Interrupted() {
			return false, nil
		}
		m.run.Phase(it.Index, phase.name)
		if err := phase.run(ctx, it); err != nil {
			return false, err
		}
	}
	return true, nil
}

// plan chooses, for each candidate of the iteration, its operator,
// parents, inspirations, opponents and planner, from the pool as it
// stands, and stores the plan before anything it leads to.
func (m *Mode) plan(ctx context.Context, it *store.Iteration) error {
	a := m.run.Arena()
	members, err := a.Members(ctx)
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
	for _, mb := range members {
		inPool[mb.ID] = true
	}
	if err := m.run.Store().View(func(tx *store.Tx) error {
		for _, mb := range members {
			p, err := tx.Policy(mb.ID)
			if err != nil {
				return err
			}
			if p.Builtin == "" {
				sources = append(sources, mb)
			}
		}
		its, err := m.run.Past(tx)
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
	if err := m.exploitability(sources, members); err != nil {
		return err
	}
	if m.cfg.Invasion {
		var ids []string
		for _, mb := range members {
			ids = append(ids, mb.ID)
		}
		for i := range sources {
			_, gain, err := a.WorstInvader(ctx, sources[i].ID, ids)
			if err != nil {
				return err
			}
			sources[i].Invadability = gain
		}
	}
	rng := rand.New(rand.NewPCG(m.run.SeedFor("plan", it.Index), 0))
	var by func(pool.Member) float64
	if m.cfg.BestFirst {
		by = func(mb pool.Member) float64 { return mb.Efficiency }
		switch {
		case m.cfg.Objective.Rated():
			by = func(mb pool.Member) float64 { return mb.Elo }
		case m.cfg.Objective.Exploits():
			// Best first as invaders of the target (each source's
			// invasion is stored once, played when missing).
			invader := map[string]float64{}
			for _, mb := range sources {
				ev, err := search.Scored(ctx, a, mb.ID)
				if err != nil {
					return err
				}
				invader[mb.ID] = search.Score(ev)
			}
			by = func(mb pool.Member) float64 { return invader[mb.ID] }
		default:
			if err := m.recheckLead(ctx, it, sources); err != nil {
				return err
			}
		}
	}
	order := ParentOrder(sources, rng, by)
	picks, err := m.pickPlanners(it.Index, m.cfg.Candidates)
	if err != nil {
		return err
	}
	for k := 0; k < m.cfg.Candidates; k++ {
		pc := store.PlannedCandidate{Sample: k, Planner: picks[k], Seed: m.run.SeedFor("candidate", it.Index, k)}
		at := ParentAt(k, m.cfg.Candidates, m.cfg.Lead)
		switch {
		case len(order) == 0:
			pc.Operator = planner.OpInit
		case len(order) >= 2 && m.cfg.CrossoverRate > 0 && rng.Float64() < m.cfg.CrossoverRate:
			a := order[at%len(order)]
			b := order[(at+1+rng.IntN(len(order)-1))%len(order)]
			if b == a {
				b = order[(at+1)%len(order)]
			}
			pc.Operator, pc.Parents = planner.OpCrossover, []string{a, b}
		default:
			parent := order[at%len(order)]
			pc.Operator, pc.Parents = planner.OpImprove, []string{parent}
			for d := 1; d < len(order) && len(pc.Inspirations) < 3; d++ {
				pc.Inspirations = append(pc.Inspirations, order[(at+d)%len(order)])
			}
		}
		for _, mb := range pool.SampleOpponents(members, m.cfg.Pool.Opponents, m.cfg.Pool.Temperature, rng) {
			pc.Opponents = append(pc.Opponents, mb.ID)
		}
		sort.Strings(pc.Opponents)
		it.Plan = append(it.Plan, pc)
	}
	return m.run.Save(it)
}

// recheckLead rechecks the sources that would lead the parent order by
// self-play efficiency, as the champion is (search.Crown), and gives each
// one rechecked its score over every seed it played: the leader is then
// the best on more seeds than the evaluation's, and its lineage gets half
// the iteration's proposals (ParentAt). Its episodes count in the
// iteration's usage.
func (m *Mode) recheckLead(ctx context.Context, it *store.Iteration, sources []pool.Member) error {
	recheck := m.recheck()
	if recheck == nil {
		return nil
	}
	a := m.run.Arena()
	before := a.Episodes()
	es := make([]pool.Entrant, len(sources))
	for i, mb := range sources {
		es[i] = pool.Entrant{ID: mb.ID, Welfare: mb.Efficiency}
	}
	if _, _, err := search.Crown(ctx, pool.Welfare, es, recheck); err != nil {
		return err
	}
	for i := range sources {
		sources[i].Efficiency = es[i].Welfare
	}
	it.Usage.Episodes += a.Episodes() - before
	return nil
}

// recheck is the run's Recheck (nil without recheck seeds).
func (m *Mode) recheck() search.Recheck {
	return search.Rechecker(m.run.Arena(), m.cfg.Recheck, m.run.Logf)
}

// ParentAt is the place in the parent order of candidate k's parent (of
// an iteration's n candidates; taken modulo the order's length): k, or
// with lead 0 for the first half of the candidates (rounded up) and 1, 2,
// … for the rest, so that the best lineage gets half the iteration's
// proposals (docs/evolution.md, "Why the search stalled").
func ParentAt(k, n int, lead bool) int {
	if !lead {
		return k
	}
	return max(0, k-(n+1)/2+1)
}

// ParentOrder orders the sources for parent picking: front by front
// (pool.SelectionFronts), each front in an order drawn from rng (over the
// ids sorted) and, when by is not nil, then by by's score, highest first
// (the drawn order breaking ties).
func ParentOrder(sources []pool.Member, rng *rand.Rand, by func(pool.Member) float64) []string {
	var order []string
	for _, front := range pool.SelectionFronts(sources) {
		ms := make([]pool.Member, len(front))
		for i, k := range front {
			ms[i] = sources[k]
		}
		sort.Slice(ms, func(a, b int) bool { return ms[a].ID < ms[b].ID })
		rng.Shuffle(len(ms), func(a, b int) { ms[a], ms[b] = ms[b], ms[a] })
		if by != nil {
			sort.SliceStable(ms, func(a, b int) bool { return by(ms[a]) > by(ms[b]) })
		}
		for _, mb := range ms {
			order = append(order, mb.ID)
		}
	}
	return order
}

// exploitability sets each policy's Exploitability from the matches
// stored against the pool's members: the largest margin by which a member
// beat it (docs/decisions.md: elo.League.Exploitability's measure, over
// the matches played so far).
func (m *Mode) exploitability(members, against []pool.Member) error {
	in := map[string]bool{}
	for _, mb := range against {
		in[mb.ID] = true
	}
	env := m.run.Arena().Env.Config
	if err := m.run.Store().View(func(tx *store.Tx) error { return m.matches.update(tx, env) }); err != nil {
		return err
	}
	for i := range members {
		members[i].Exploitability = m.matches.exploitability(members[i].ID, in)
	}
	return nil
}

// pickPlanners chooses each candidate's planner: the only one, or by a
// UCB1 bandit over how often each planner's candidates were promoted in
// the run's earlier iterations (an arm picked in this iteration counts as
// tried, without a reward yet, so that picks spread).
func (m *Mode) pickPlanners(iteration, n int) ([]string, error) {
	specs := m.cfg.Planners
	out := make([]string, n)
	if len(specs) == 1 {
		for k := range out {
			out[k] = specs[0]
		}
		return out, nil
	}
	pulls := map[string]float64{}
	wins := map[string]float64{}
	err := m.run.Store().View(func(tx *store.Tx) error {
		its, err := m.run.Past(tx)
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

// proposeAll proposes every planned candidate not yet proposed: first each
// one's first version (up to PlannerConcurrency at once; each recorded as
// soon as it is settled), then their local refinement (refineAll).
func (m *Mode) proposeAll(ctx context.Context, it *store.Iteration) error {
	a := m.run.Arena()
	before := a.Episodes()
	var mu sync.Mutex // guards it
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(m.cfg.PlannerConcurrency)
	for _, pc := range it.Plan {
		mu.Lock()
		done := it.Candidate(pc.Sample) != nil
		mu.Unlock()
		if done {
			continue
		}
		if m.run.Stopping() {
			break
		}
		g.Go(func() error {
			// Go waits for room: the job may have been asked to stop
			// meanwhile, and then no new candidate starts.
			if m.run.Stopping() {
				return nil
			}
			c, err := m.draft(gctx, it, pc)
			if err != nil {
				return err
			}
			mu.Lock()
			it.SetCandidate(*c)
			it.Usage.Add(c.Usage)
			err = m.run.Save(it)
			mu.Unlock()
			if c.Status != store.CandidateDrafted {
				m.run.Settled(it.Index, c)
			}
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	if err := m.refineAll(ctx, it); err != nil {
		return err
	}
	// The critic's recorded episodes and the local rounds' evaluations.
	it.Usage.Episodes += a.Episodes() - before
	return m.run.Save(it)
}

// draft writes a candidate's first version and returns its record, drafted
// (local refinement to come) unless no version was written.
func (m *Mode) draft(ctx context.Context, it *store.Iteration, pc store.PlannedCandidate) (*store.Candidate, error) {
	c := &store.Candidate{Sample: pc.Sample}
	if reason, err := m.run.Budget(store.RunUsage{}); err != nil {
		return nil, err
	} else if reason != "" {
		c.Status, c.Problem = store.CandidateSkipped, reason
		return c, nil
	}
	r := search.Request{Op: pc.Operator, Inspirations: pc.Inspirations}
	if len(pc.Parents) > 0 {
		r.Parent = pc.Parents[0]
	}
	if len(pc.Parents) > 1 {
		r.Mate = pc.Parents[1]
	}
	out, err := m.run.Propose(ctx, it, pc, pc.Sample, r)
	if err != nil {
		return nil, err
	}
	c.Attempts, c.Usage = len(out.Attempts), search.OutcomeUsage(out)
	search.CountRefusals(c, out)
	if out.Policy == nil {
		c.Status, c.Problem = search.Refusal(out)
		return c, nil
	}
	c.Policy, c.Status = out.Policy.ID, store.CandidateDrafted
	c.Local = []string{out.Policy.ID}
	return c, m.localPool(it.Index, out.Policy.ID)
}

// refineAll refines the iteration's drafted candidates locally, each
// stored, proposed, when its refinement is done. Under RefineAll every
// one is refined, up to PlannerConcurrency at once. Under RefineRace one
// at a time, best first version first (ties in plan order), and a
// candidate whose first version is clearly below the best that the
// iteration's refined candidates reached (canLead) is not refined at all:
// a round spent on a candidate that cannot lead its iteration is a call
// the leader did not get (docs/evolution.md, "Why the search stalled",
// cause 8). Either way a resumed iteration refines again, from its first
// version, a candidate whose refinement was not stored (the job was
// killed, or asked to stop, during it): the rounds are seeded by the
// candidate, so it finds the same versions.
func (m *Mode) refineAll(ctx context.Context, it *store.Iteration) error {
	a := m.run.Arena()
	var todo []int // places in it.Candidates
	for k, c := range it.Candidates {
		if c.Status == store.CandidateDrafted {
			todo = append(todo, k)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	m.run.Phase(it.Index, "refine")
	firsts := make([]*store.Evaluation, len(it.Candidates))
	g, gctx := errgroup.WithContext(ctx)
	for _, k := range todo {
		g.Go(func() (err error) {
			firsts[k], err = search.Scored(gctx, a, it.Candidates[k].Local[0])
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	// The best that refined candidates of the iteration reached, those
	// stored by an interrupted run included.
	var lead *store.Evaluation
	race := m.cfg.Refine == RefineRace
	if race {
		// A failed first version cannot lead: it goes last.
		score := func(k int) float64 { return search.Score(firsts[k]) }
		slices.SortStableFunc(todo, func(x, y int) int {
			return cmp.Or(cmp.Compare(score(y), score(x)), it.Candidates[x].Sample-it.Candidates[y].Sample)
		})
		for _, c := range it.Candidates {
			if c.Status != store.CandidateDrafted && c.Policy != "" && len(c.Local) > 1 {
				ev, err := search.Scored(ctx, a, c.Policy)
				if err != nil {
					return err
				}
				lead = leader(lead, ev)
			}
		}
	}
	var mu sync.Mutex // guards it
	g, gctx = errgroup.WithContext(ctx)
	g.SetLimit(m.cfg.PlannerConcurrency)
	if race {
		g.SetLimit(1)
	}
	for _, k := range todo {
		g.Go(func() error {
			if m.run.Stopping() {
				return nil
			}
			mu.Lock()
			c := it.Candidates[k]
			mu.Unlock()
			c.Local = slices.Clone(c.Local)
			rounds := m.cfg.LocalRounds
			if race && !canLead(firsts[k], lead) {
				rounds = 0
			}
			best, spent, err := m.refine(gctx, it, it.Plan[c.Sample], &c, firsts[k], rounds)
			if err != nil {
				return err
			}
			if m.run.Stopping() {
				// Perhaps cut short: it stays drafted, and the
				// resumed run refines it whole.
				return nil
			}
			if race && len(c.Local) > 1 {
				lead = leader(lead, best) // one at a time
			}
			mu.Lock()
			it.Usage.Add(spent)
			c.Status = store.CandidateProposed
			it.Candidates[k] = c
			err = m.run.Save(it)
			mu.Unlock()
			return err
		})
	}
	return g.Wait()
}

// leader is the better of two evaluations by the objective's score
// (search.Score: self-play efficiency, or an invasion's invader return;
// nil or failed: none), the first on a tie.
func leader(a, b *store.Evaluation) *store.Evaluation {
	if b == nil || b.Status != store.StatusOK {
		return a
	}
	if a == nil || search.Score(b) > search.Score(a) {
		return b
	}
	return a
}

// canLead says whether a candidate whose first version evaluated as first
// may still lead an iteration led by lead (nil: nobody yet): it played,
// and it is not behind the lead by more than the standard error of the
// lead's mean efficiency over its seeds — closer than that, the seeds
// cannot tell the two apart.
func canLead(first, lead *store.Evaluation) bool {
	if first.Status != store.StatusOK {
		return false
	}
	return lead == nil || search.Score(first) >= search.Score(lead)-StdErr(lead)
}

// StdErr is the standard error of an evaluation's score (search.Score:
// mean efficiency, or an invasion's invader return) over its seeds (0
// with fewer than two).
func StdErr(ev *store.Evaluation) float64 {
	n := float64(len(ev.PerSeed))
	if n < 2 {
		return 0
	}
	var sum, sq float64
	for _, r := range ev.PerSeed {
		sum += search.SeedScore(ev, r)
	}
	mean := sum / n
	for _, r := range ev.PerSeed {
		d := search.SeedScore(ev, r) - mean
		sq += d * d
	}
	return math.Sqrt(sq/(n-1)) / math.Sqrt(n)
}

// refine improves a drafted candidate against the critic's reflections on
// its own episodes, for up to rounds rounds (fewer under LocalStop or a
// budget), keeping the best version as its policy; first is its first
// version's evaluation, pc its plan. It returns the evaluation of the
// version kept and the rounds' usage (also added to c's).
func (m *Mode) refine(ctx context.Context, it *store.Iteration, pc store.PlannedCandidate, c *store.Candidate, first *store.Evaluation, rounds int) (*store.Evaluation, store.RunUsage, error) {
	a := m.run.Arena()
	best := first
	var spent store.RunUsage // the rounds' usage, not stored yet
	flat := 0                // rounds in a row that did not improve the candidate
	for round := 1; round <= rounds; round++ {
		if best.Status != store.StatusOK || m.run.Stopping() {
			break
		}
		if reason, err := m.run.Budget(spent); err != nil {
			return nil, spent, err
		} else if reason != "" {
			break
		}
		if m.cfg.LocalStop > 0 && flat >= m.cfg.LocalStop {
			break
		}
		flat++
		out, err := m.run.Propose(ctx, it, pc, pc.Sample+store.LocalRoundStride*round, search.Request{Op: planner.OpImprove, Parent: c.Policy, Spent: c.Usage.Proposals})
		if err != nil {
			return nil, spent, err
		}
		c.Usage.Add(search.OutcomeUsage(out))
		spent.Add(search.OutcomeUsage(out))
		c.Attempts += len(out.Attempts)
		search.CountRefusals(c, out)
		if out.Policy == nil {
			continue
		}
		c.Local = append(c.Local, out.Policy.ID)
		if err := m.localPool(it.Index, out.Policy.ID); err != nil {
			return nil, spent, err
		}
		ev, err := search.Scored(ctx, a, out.Policy.ID)
		if err != nil {
			return nil, spent, err
		}
		if ev.Status != store.StatusOK {
			search.CountFailures(c, ev)
		}
		if ev.Status == store.StatusOK && search.Score(ev) > search.Score(best) {
			c.Policy, best, flat = out.Policy.ID, ev, 0
		}
	}
	return best, spent, nil
}

// localPool adds a version to the iteration's local pool.
func (m *Mode) localPool(iteration int, id string) error {
	return m.run.Store().Update(func(tx *store.Tx) error {
		return tx.AddMember(&store.Member{Policy: id, Pool: store.LocalPool(m.run.ID(), iteration), Reason: "candidate"})
	})
}

// evaluateAll evaluates every proposed candidate in self-play and, when
// the objective Exploits, as an invader (search.Invade).
func (m *Mode) evaluateAll(ctx context.Context, it *store.Iteration) error {
	a := m.run.Arena()
	before := a.Episodes()
	g, gctx := errgroup.WithContext(ctx)
	evs := make([]*store.Evaluation, len(it.Candidates))
	for k, c := range it.Candidates {
		if c.Status != store.CandidateProposed {
			continue
		}
		g.Go(func() (err error) {
			evs[k], err = a.Evaluate(gctx, c.Policy)
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
			search.CountFailures(c, evs[k])
		}
	}
	// Under an objective that Exploits, each is also scored as an
	// invader (its invasion is stored: a resumed run reads it back).
	g, gctx = errgroup.WithContext(ctx)
	for k := range it.Candidates {
		if evs[k] == nil {
			continue
		}
		c := &it.Candidates[k]
		g.Go(func() error { return search.Invade(gctx, a, c) })
	}
	if err := g.Wait(); err != nil {
		return err
	}
	for k := range it.Candidates {
		if c := &it.Candidates[k]; evs[k] != nil && c.Status == store.CandidateFailed {
			m.run.Settled(it.Index, c)
		}
	}
	it.Usage.Episodes += a.Episodes() - before
	return m.run.Save(it)
}

// challengeAll plays each evaluated candidate against its opponents, then,
// in the order of the plan, promotes those above the threshold (their
// ratings and the opponents' are updated then) and trims the pool.
func (m *Mode) challengeAll(ctx context.Context, it *store.Iteration) error {
	a := m.run.Arena()
	before := a.Episodes()
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
			for _, seed := range m.cfg.MatchSeeds {
				g.Go(func() error {
					_, err := a.Match(gctx, c.Policy, opp, seed)
					return err
				})
			}
		}
	}
	if err := g.Wait(); err != nil {
		return err
	}
	slices.SortFunc(it.Candidates, func(a, b store.Candidate) int { return a.Sample - b.Sample })
	if m.cfg.Objective.InvasionTest() {
		if err := m.invasionTests(ctx, it); err != nil {
			return err
		}
	}
	for k := range it.Candidates {
		c := &it.Candidates[k]
		if c.Status != store.CandidateEvaluated {
			continue
		}
		rep, err := a.Rate(ctx, c.Policy, plan[c.Sample].Opponents, false)
		if err != nil {
			return err
		}
		c.WinRate, c.Games, c.Elo = rep.WinRate(), len(rep.Games), rep.Elo
		c.Status = store.CandidateRejected
		if m.cfg.Objective.Admit(c.WinRate, true, c.Invasion != nil && c.Invasion.Resists, m.cfg.Pool.PromoteThreshold) {
			if err := m.run.Store().Update(func(tx *store.Tx) error {
				return tx.AddMember(&store.Member{Policy: c.Policy, Pool: a.GlobalPool(), Reason: "promoted"})
			}); err != nil {
				return err
			}
			if rep, err = a.Rate(ctx, c.Policy, plan[c.Sample].Opponents, true); err != nil {
				return err
			}
			c.Elo, c.Status = rep.Elo, store.CandidatePromoted
		}
		if err := m.run.Save(it); err != nil {
			return err
		}
		m.run.Settled(it.Index, c)
	}
	if _, err := a.Trim(ctx); err != nil {
		return err
	}
	it.Usage.Episodes += a.Episodes() - before
	return m.run.Save(it)
}

// invasionTests gives every evaluated candidate of the iteration that has
// none its invasion test (the robust objective): one agent of each member
// of the global pool among its own, on the match seeds. All are made
// against the pool as it is before any of the iteration's promotions, and
// stored before any, so that a resumed iteration finds the same verdicts.
func (m *Mode) invasionTests(ctx context.Context, it *store.Iteration) error {
	a := m.run.Arena()
	members, err := a.Members(ctx)
	if err != nil {
		return err
	}
	ids := make([]string, len(members))
	for i, mb := range members {
		ids[i] = mb.ID
	}
	sort.Strings(ids)
	tested := false
	for k := range it.Candidates {
		c := &it.Candidates[k]
		if c.Status != store.CandidateEvaluated || c.Invasion != nil {
			continue
		}
		inv, err := a.InvasionTest(ctx, c.Policy, ids)
		if err != nil {
			return err
		}
		inv.Resists = pool.Resists(inv.Gain, inv.Residents, m.cfg.RobustMargin)
		c.Invasion, tested = &inv, true
	}
	if !tested {
		return nil
	}
	return m.run.Save(it)
}

// Champion is the run's best policy under the objective (pool.Champion)
// among its candidates that were evaluated and challenged the pool: under
// elo the highest rated of those in the global pool, else the best in
// self-play; under welfare the best in self-play; under robust the best in
// self-play among those that resisted invasion, else the least invaded.
// "Best in self-play" is rechecked: each contender the rule picks is
// played on Config.Recheck's seeds too before it is taken (search.Crown).
func (m *Mode) Champion(ctx context.Context, it *store.Iteration) (search.Champion, error) {
	var cs []store.Candidate
	var es []pool.Entrant
	gp := m.run.Arena().GlobalPool()
	err := m.run.Store().View(func(tx *store.Tx) error {
		its, err := m.run.Past(tx)
		if err != nil {
			return err
		}
		members, err := tx.Members(gp)
		if err != nil {
			return err
		}
		member := map[string]bool{}
		for _, mb := range members {
			member[mb.Policy] = true
		}
		ratings, err := tx.Ratings(gp)
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
				if c.Policy == "" || (c.Status != store.CandidatePromoted && c.Status != store.CandidateRejected) {
					continue
				}
				cs = append(cs, c)
				es = append(es, search.Entrant(c, member[c.Policy], elo[c.Policy]))
			}
		}
		return nil
	})
	if err != nil {
		return search.Champion{}, err
	}
	best, rechecked, err := search.Crown(ctx, m.cfg.Objective, es, m.recheck())
	if err != nil || best < 0 {
		return search.Champion{}, err
	}
	ch := search.Champion{Policy: cs[best].Policy, Metrics: cs[best].Metrics}
	ch.Rechecked = search.RecheckedScore(m.cfg.Objective, es, best, rechecked)
	if es[best].Member {
		ch.Elo = es[best].Elo
	}
	return ch, nil
}
