package planner

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand"
	"slices"
	"strings"

	"policyevolve/envs"
	"policyevolve/envs/ssd"
	"policyevolve/evolve/grammar"
	"policyevolve/store"
)

// GrammarPlanner is the offline planner: it proposes genomes of the
// strategy grammar (package grammar) rendered to Go, and needs no LLM.
// Init runs a short genetic search from random genomes; Improve one seeded
// from the parent, scoring candidates in process on TrainSeeds, with
// mutations biased by the critic's diagnostics; Crossover tries every mix
// of the parents' modules; Fix re-renders. Every proposal is one rendered
// genome, one planner call. It is safe for concurrent use.
type GrammarPlanner struct {
	// TrainSeeds are the episodes on which candidates are scored (default
	// grammar.TrainSeeds, apart from the arena's evaluation seeds).
	TrainSeeds []uint64
	// PopSize and Generations size Improve's search (defaults 8 and 3:
	// about 32 genomes scored, a few seconds on the default maps).
	PopSize, Generations int
	// Workers plays that many episodes at once (default 1).
	Workers int
}

var _ Planner = (*GrammarPlanner)(nil)

// GrammarName is the grammar planner's name in Origin.Planner.
const GrammarName = "grammar"

// Name is "grammar".
func (p *GrammarPlanner) Name() string { return GrammarName }

// grammarTask is what every call needs from the task.
type grammarTask struct {
	game  ssd.Game
	space grammar.Space
	ev    *grammar.Evaluator
}

func (p *GrammarPlanner) task(t Task) (*grammarTask, error) {
	if t.Env.Map == nil {
		return nil, errors.New("grammar planner: the task has no environment")
	}
	game, err := gameOf(t)
	if err != nil {
		return nil, fmt.Errorf("grammar planner: %w", err)
	}
	seeds := p.TrainSeeds
	if len(seeds) == 0 {
		seeds = grammar.TrainSeeds
	}
	ev := &grammar.Evaluator{Map: t.Env.Map, Agents: t.Env.Config.Agents, Steps: t.Env.Config.MaxSteps,
		Seeds: seeds, Workers: p.Workers}
	// An exploit run's genomes are scored as invaders of its target when
	// the target is a built-in, which may run in process; a source target
	// never does (untrusted code runs in the sandbox), and its genomes
	// are searched by self-play, the arena scoring what is proposed.
	if tg := t.Target; tg != nil && tg.Builtin != "" && tg.Invaders >= 1 && tg.Invaders < t.Env.Config.Agents {
		f, err := envs.Builtin(tg.Builtin)
		if err != nil {
			return nil, fmt.Errorf("grammar planner: target %s: %w", tg.Name, err)
		}
		ev.Residents, ev.Invaders = f, tg.Invaders
	}
	return &grammarTask{game: game, space: grammar.Space{Agents: t.Env.Config.Agents}, ev: ev}, nil
}

// rngFor derives a call's random source from the task's seed and sample,
// the operator and the parents: the same request draws the same numbers.
func rngFor(t Task, op string, parents ...string) (*rand.Rand, uint64) {
	h := fnv.New64a()
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], t.Seed)
	h.Write(b[:])
	binary.LittleEndian.PutUint64(b[:], uint64(t.Sample))
	h.Write(b[:])
	h.Write([]byte(op))
	for _, id := range parents {
		h.Write([]byte{0})
		h.Write([]byte(id))
	}
	seed := h.Sum64()
	return rand.New(rand.NewSource(int64(seed))), seed
}

// propose renders g into a proposal.
func (p *GrammarPlanner) propose(g grammar.Genome, op string, parents []string, notes ...string) (*Proposal, error) {
	src, err := grammar.Render(g)
	if err != nil {
		return nil, fmt.Errorf("grammar planner: %w: %v", grammar.ErrBug, err)
	}
	lines := append([]string{}, g.Describe()...)
	lines = append(lines, notes...)
	return &Proposal{Source: src, State: g, Notes: strings.Join(lines, "\n"),
		Origin: store.Origin{Planner: GrammarName, Operator: op, Parents: parents}}, nil
}

// Init runs a search of Improve's size whose first population is random
// genomes (every kind and number drawn uniformly: no module is seeded
// with a known answer) and proposes the best genome it met. A lone random
// genome would spend a planner call on what one generation of any search
// beats (docs/offline-planner.md).
func (p *GrammarPlanner) Init(ctx context.Context, req InitRequest) (*Proposal, error) {
	gt, err := p.task(req.Task)
	if err != nil {
		return nil, err
	}
	_, seed := rngFor(req.Task, OpInit)
	best, err := p.search(ctx, req.Task, gt, seed, nil, nil)
	if err != nil {
		return nil, err
	}
	return p.propose(best.Genome, OpInit, nil, "searched from random genomes",
		fmt.Sprintf("efficiency %.3f in process on training seeds %v (%d genomes scored)", best.Score, gt.ev.Seeds, gt.ev.Played()))
}

// search runs the planner's genetic search from starts (random genomes
// when there are none) and returns the best genome it met that the run
// has not written.
func (p *GrammarPlanner) search(ctx context.Context, t Task, gt *grammarTask, seed uint64, starts []grammar.Genome, bias *grammar.Bias) (grammar.Scored, error) {
	ranked, err := grammar.Search(ctx, gt.ev, grammar.SearchConfig{Game: gt.game, Space: gt.space,
		PopSize: p.PopSize, Generations: p.Generations, Seed: seed, Start: starts, Bias: bias})
	if err != nil {
		return grammar.Scored{}, fmt.Errorf("grammar planner: %w", err)
	}
	if best, ok := pick(ranked, t); ok {
		return best, nil
	}
	return ranked[0], nil // everything it met was written: the fix loop mutates it
}

// pick is grammar.Child of ranked, skipping the genomes whose rendering
// the task says the run has written (Task.Written): proposing one would
// spend a call on a policy the fix loop refuses as a duplicate. It
// reports false when ranked holds no genome that is neither avoided nor
// written.
func pick(ranked []grammar.Scored, t Task, avoid ...grammar.Genome) (grammar.Scored, bool) {
	left := ranked
	for {
		c, ok := grammar.Child(left, avoid...)
		if !ok || !written(c.Genome, t) {
			return c, ok
		}
		left = slices.DeleteFunc(slices.Clone(left), func(s grammar.Scored) bool { return s.Genome.Canonical() == c.Genome.Canonical() })
	}
}

// written reports whether the task says g's rendering was written before.
func written(g grammar.Genome, t Task) bool {
	if t.Written == nil {
		return false
	}
	src, err := grammar.Render(g)
	return err == nil && t.Written(src)
}

// mutant is a mutation of g, drawn again (up to eight draws in all)
// while refuse says no to it.
func mutant(g grammar.Genome, space grammar.Space, bias *grammar.Bias, rng *rand.Rand, refuse func(grammar.Genome) bool) grammar.Genome {
	m := g
	grammar.Mutate(&m, space, bias, rng)
	for try := 1; try < 8 && refuse(m); try++ {
		m = g
		grammar.Mutate(&m, space, bias, rng)
	}
	return m
}

// genomeOf reads a scored policy as a genome for the task's game.
func genomeOf(s Scored, game ssd.Game) (grammar.Genome, error) {
	g, err := grammar.Parse([]byte(s.Policy.Source))
	if err != nil {
		return grammar.Genome{}, err
	}
	if g.Game != game {
		return grammar.Genome{}, fmt.Errorf("a %s genome, and the task is %s", g.Game, game)
	}
	return *g, nil
}

// Improve runs a short search from the parent (and the inspirations that
// are genomes) and proposes the best genome it met other than those. With
// diagnostics, at the critic feedback level (or none set), mutations lean
// the way they point. A parent that is not a genome (a built-in, an LLM's
// policy) cannot be evolved by the grammar: the search then starts from
// the genome inspirations, or from random genomes, and the proposal says
// so in its Notes, with Operator init when no genome was used.
func (p *GrammarPlanner) Improve(ctx context.Context, req ImproveRequest) (*Proposal, error) {
	gt, err := p.task(req.Task)
	if err != nil {
		return nil, err
	}
	var start []grammar.Genome
	var used []string
	var notes []string
	if g, err := genomeOf(req.Parent, gt.game); err == nil {
		start, used = append(start, g), append(used, req.Parent.Policy.ID)
	} else {
		notes = append(notes, fmt.Sprintf("parent %.12s is not a genome the grammar can evolve (%v)", req.Parent.Policy.ID, err))
	}
	// The inspirations that are genomes are the search's mates when the
	// parent is one (crossed with, not mutated: the search's draws stay
	// on the parent), its starts when it is not.
	var mates []grammar.Genome
	parentIsGenome := len(start) > 0
	for _, s := range req.Inspirations {
		if g, err := genomeOf(s, gt.game); err == nil {
			used = append(used, s.Policy.ID)
			if parentIsGenome {
				mates = append(mates, g)
			} else {
				start = append(start, g)
			}
		}
	}
	var bias *grammar.Bias
	if req.Feedback == Critic || req.Feedback == "" {
		bias = grammar.BiasFrom(req.Diagnostics)
	}
	if bias != nil {
		notes = append(notes, "mutations lean on the critic: "+strings.Join(bias.Reasons, "; "))
	}
	_, seed := rngFor(req.Task, OpImprove, used...)
	ranked, err := grammar.Search(ctx, gt.ev, grammar.SearchConfig{Game: gt.game, Space: gt.space,
		PopSize: p.PopSize, Generations: p.Generations, Seed: seed, Start: start, Mates: mates, Bias: bias})
	if err != nil {
		return nil, fmt.Errorf("grammar planner: %w", err)
	}
	child, ok := pick(ranked, req.Task, append(start[:len(start):len(start)], mates...)...)
	switch {
	case !ok && len(start) == 0: // random starts, and every genome met was written
		child = ranked[0]
	case !ok: // the search met nothing new: propose a mutant of the first start
		rng, _ := rngFor(req.Task, OpImprove+"/mutant", used...)
		g := mutant(start[0], gt.space, bias, rng, func(g grammar.Genome) bool { return written(g, req.Task) })
		if child.Score, err = gt.ev.Score(ctx, g); err != nil {
			return nil, fmt.Errorf("grammar planner: %w", err)
		}
		child.Genome = g
	}
	notes = append(notes, fmt.Sprintf("efficiency %.3f in process on training seeds %v (%d genomes scored)",
		child.Score, gt.ev.Seeds, gt.ev.Played()))
	op := OpImprove
	if len(used) == 0 {
		op = OpInit
	}
	return p.propose(child.Genome, op, used, notes...)
}

// Crossover scores every mix of the parents' whole modules in process and
// proposes the best. When only one parent is a genome it improves that
// one (Operator improve), when neither is it searches from random genomes
// (Operator init); Notes say so.
func (p *GrammarPlanner) Crossover(ctx context.Context, req CrossoverRequest) (*Proposal, error) {
	gt, err := p.task(req.Task)
	if err != nil {
		return nil, err
	}
	a, errA := genomeOf(req.A, gt.game)
	b, errB := genomeOf(req.B, gt.game)
	switch {
	case errA != nil && errB != nil:
		return p.Improve(ctx, ImproveRequest{Task: req.Task, Parent: req.A, Inspirations: []Scored{req.B}})
	case errA != nil:
		return p.Improve(ctx, ImproveRequest{Task: req.Task, Parent: req.B, Inspirations: []Scored{req.A}})
	case errB != nil:
		return p.Improve(ctx, ImproveRequest{Task: req.Task, Parent: req.A, Inspirations: []Scored{req.B}})
	}
	parents := []string{req.A.Policy.ID, req.B.Policy.ID}
	children := grammar.Crossovers(a, b)
	note := fmt.Sprintf("the best of %d mixes of the parents' modules", len(children))
	if len(children) == 0 { // the parents differ in at most one whole module
		rng, _ := rngFor(req.Task, OpCrossover, parents...)
		// A mutant of the first that is not the second either (one
		// mutation apart, it may be), nor written before.
		g := mutant(a, gt.space, nil, rng, func(g grammar.Genome) bool {
			return g.Canonical() == b.Canonical() || written(g, req.Task)
		})
		children, note = []grammar.Genome{g}, "the parents' only mixes are themselves: a mutant of the first"
	} else if fresh := slices.DeleteFunc(slices.Clone(children), func(g grammar.Genome) bool { return written(g, req.Task) }); len(fresh) > 0 {
		children = fresh // the mixes the run has not written
	}
	best, err := grammar.Best(ctx, gt.ev, children)
	if err != nil {
		return nil, fmt.Errorf("grammar planner: %w", err)
	}
	return p.propose(best.Genome, OpCrossover, parents,
		fmt.Sprintf("%s, efficiency %.3f in process on training seeds %v", note, best.Score, gt.ev.Seeds))
}

// Fix re-renders the failed proposal's genome. A genome's rendering passes
// the sandbox's check unless the grammar has a bug: when the re-rendering
// is the source that failed, Fix returns an error wrapping grammar.ErrBug
// with the problem, rather than propose it again.
func (p *GrammarPlanner) Fix(ctx context.Context, req FixRequest) (*Proposal, error) {
	if req.Failed == nil {
		return nil, errors.New("grammar planner: nothing to fix")
	}
	g, ok := req.Failed.State.(grammar.Genome)
	if !ok {
		return nil, fmt.Errorf("grammar planner: cannot fix a proposal of another planner (%T)", req.Failed.State)
	}
	if errors.Is(req.Problem, ErrDuplicate) || DescribeProblem(req.Problem).Kind == "duplicate" {
		// Written before: mutate the genome, with the attempt's own draws.
		gt, err := p.task(req.Task)
		if err != nil {
			return nil, err
		}
		rng, _ := rngFor(req.Task, OpFix, fmt.Sprint(req.Attempt), headerOf(g))
		g = mutant(g, gt.space, nil, rng, func(g grammar.Genome) bool { return written(g, req.Task) })
		return p.propose(g, req.Failed.Origin.Operator, req.Failed.Origin.Parents, "mutated: the first version had been written before")
	}
	next, err := p.propose(g, req.Failed.Origin.Operator, req.Failed.Origin.Parents)
	if err != nil {
		return nil, err
	}
	if bytes.Equal(next.Source, req.Failed.Source) {
		return nil, fmt.Errorf("grammar planner: %w: the rendering of genome %s fails the sandbox's check: %v",
			grammar.ErrBug, headerOf(g), req.Problem)
	}
	next.Notes = req.Failed.Notes
	return next, nil
}

// headerOf is the genome's JSON, for error messages.
func headerOf(g grammar.Genome) string {
	js, err := g.MarshalJSON()
	if err != nil {
		return fmt.Sprintf("%+v", g)
	}
	return string(js)
}
