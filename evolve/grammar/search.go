package grammar

import (
	"context"
	"errors"
	"math/rand"

	"github.com/MaxHalford/eaopt"

	"policyevolve/envs/ssd"
)

// SearchConfig configures a genetic search over genomes. The zero value
// works except for Game and Space.
type SearchConfig struct {
	Game  ssd.Game
	Space Space
	// PopSize is the population (default 8); each generation breeds as
	// many children and keeps the best PopSize of parents and children.
	PopSize int
	// Generations after the initial population (default 3).
	Generations int
	// Seed is the source of every random choice.
	Seed uint64
	// Start seeds the initial population: its members as they are, and
	// the rest of the population their mutants (in turn). Without Start
	// the initial population is random genomes.
	Start []Genome
	// Mates join the initial population as they are, after Start, as
	// partners for crossover; unlike Start they are not mutated into
	// the rest of it, so the search's draws stay on Start (a parent's
	// improvement is not diluted by its inspirations).
	Mates []Genome
	// Bias steers the mutations (nil: uniform).
	Bias *Bias
	// OnGeneration, when set, is called after the initial population (0)
	// and after each generation with the best genome so far and its
	// score. It runs on the search's goroutine.
	OnGeneration func(generation int, best Genome, score float64)
}

// The search's default size: 8 genomes, 3 generations.
const (
	DefaultPopSize     = 8
	DefaultGenerations = 3
)

func (c *SearchConfig) defaults() {
	if c.PopSize <= 0 {
		c.PopSize = DefaultPopSize
	}
	if c.Generations <= 0 {
		c.Generations = DefaultGenerations
	}
}

// Scored is a genome and its score on the evaluator's seeds, with its
// print there (Evaluator.Print).
type Scored struct {
	Genome Genome
	Score  float64
	Print  string
}

// Search runs eaopt's genetic algorithm: a (μ+λ) scheme in which each
// generation breeds PopSize children by tournament (crossover of whole
// modules, then biased mutation) and keeps the best PopSize of parents
// and children. Fitness is the in-process self-play score on ev's seeds,
// except that a genome playing exactly like one met before (the same
// print) ranks below every genome that plays differently: the survivors
// are distinct behaviours as long as there are enough, rather than
// copies of the best that differ in parameters it never uses (measured:
// docs/evolution.md, "Why the search stalled"). It returns the distinct
// genomes met, best first (ties in the order met). The same config and
// evaluator give the same result.
func Search(ctx context.Context, ev *Evaluator, cfg SearchConfig) ([]Scored, error) {
	cfg.defaults()
	rng := rand.New(rand.NewSource(int64(cfg.Seed)))
	run := &searchRun{ctx: ctx, ev: ev, cfg: &cfg}
	n := 0
	newGenome := func(rng *rand.Rand) eaopt.Genome {
		g := cfg.initial(n, rng)
		n++
		return &individual{run: run, g: g}
	}
	ga, err := eaopt.GAConfig{
		NPops:        1,
		PopSize:      uint(cfg.PopSize),
		NGenerations: uint(cfg.Generations),
		HofSize:      1,
		Model: eaopt.ModDownToSize{
			NOffsprings: uint(cfg.PopSize),
			SelectorA:   eaopt.SelTournament{NContestants: 2},
			SelectorB:   eaopt.SelElitism{},
			MutRate:     0.9,
			CrossRate:   0.4,
		},
		RNG: rng,
		Callback: func(ga *eaopt.GA) {
			if cfg.OnGeneration != nil && len(ga.HallOfFame) > 0 && ga.HallOfFame[0].Genome != nil {
				best := ga.HallOfFame[0]
				cfg.OnGeneration(int(ga.Generations), best.Genome.(*individual).g, -best.Fitness)
			}
		},
	}.NewGA()
	if err != nil {
		return nil, err
	}
	if err := ga.Minimize(newGenome); err != nil {
		return nil, err
	}
	return run.ranked(), nil
}

// initial returns the n-th genome of the initial population: Start's
// members and then Mates as they are, then mutants of Start's members in
// turn (one or two mutations each, and another while the second undid
// the first: a mutant is never its start); random genomes without Start.
func (c *SearchConfig) initial(n int, rng *rand.Rand) Genome {
	var g Genome
	switch {
	case n < len(c.Start):
		g = c.Start[n].Canonical()
	case len(c.Start) > 0 && n < len(c.Start)+len(c.Mates):
		g = c.Mates[n-len(c.Start)].Canonical()
	case len(c.Start) > 0:
		start := c.Start[n%len(c.Start)].Canonical()
		start.Clamp(c.Space)
		g = start
		for m := 1 + rng.Intn(2); m > 0; m-- {
			Mutate(&g, c.Space, c.Bias, rng)
		}
		for try := 0; try < 8 && g.Canonical() == start; try++ {
			Mutate(&g, c.Space, c.Bias, rng)
		}
		return g
	default:
		return Random(c.Game, c.Space, rng)
	}
	g.Clamp(c.Space)
	return g
}

// searchRun is what the individuals of one search share.
type searchRun struct {
	ctx   context.Context
	ev    *Evaluator
	cfg   *SearchConfig
	met   []Scored // every genome scored, in the order met
	seen  map[Genome]bool
	first map[string]Genome // the first genome met with each print
}

// copyPenalty is added to the fitness of a genome that plays like one met
// before: more than any score difference, so that copies rank last.
const copyPenalty = 1e6

// ranked returns the genomes met, best first, ties in the order met.
func (r *searchRun) ranked() []Scored {
	out := append([]Scored(nil), r.met...)
	for i := 1; i < len(out); i++ { // stable insertion sort
		for j := i; j > 0 && out[j].Score > out[j-1].Score; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// individual adapts a genome to eaopt. eaopt evaluates the individuals of
// one population in turn (never ParallelEval here), so searchRun needs no
// lock; the Evaluator parallelises the seeds of one genome instead.
type individual struct {
	run *searchRun
	g   Genome
}

// Evaluate returns minus the score (eaopt minimises), plus copyPenalty
// for a genome that plays like another met before it.
func (x *individual) Evaluate() (float64, error) {
	r := x.run
	s, err := r.ev.Score(r.ctx, x.g)
	if err != nil {
		return 0, err
	}
	c := x.g.Canonical()
	p, _ := r.ev.Print(c)
	if !r.seen[c] {
		if r.seen == nil {
			r.seen, r.first = map[Genome]bool{}, map[string]Genome{}
		}
		r.seen[c] = true
		r.met = append(r.met, Scored{Genome: c, Score: s, Print: p})
		if _, ok := r.first[p]; !ok {
			r.first[p] = c
		}
	}
	if r.first[p] != c {
		return -s + copyPenalty, nil
	}
	return -s, nil
}

// Mutate applies one biased mutation.
func (x *individual) Mutate(rng *rand.Rand) {
	Mutate(&x.g, x.run.cfg.Space, x.run.cfg.Bias, rng)
}

// Crossover takes whole modules from the mate into the receiver, and only
// the receiver: eaopt passes the mate by value and would leave a changed
// mate's fitness stale (see LIBRARIES.md).
func (x *individual) Crossover(mate eaopt.Genome, rng *rand.Rand) {
	m, ok := mate.(*individual)
	if !ok {
		panic(errors.New("grammar: crossover with a foreign genome"))
	}
	fams := len(families(x.g.Game))
	mask := 1 + rng.Intn(1<<fams-2) // at least one module from each side
	x.g = Cross(x.g, m.g, mask)
}

// Clone copies the individual; genomes are values.
func (x *individual) Clone() eaopt.Genome {
	c := *x
	return &c
}
