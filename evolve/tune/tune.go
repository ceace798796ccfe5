package tune

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand"
	"os"
	"strings"
	"sync"

	"github.com/MaxHalford/eaopt"

	"policyevolve/envs"
	"policyevolve/sandbox"
)

// Config configures a tuning run. Sandbox, Map and Agents are required;
// every other field has a default.
type Config struct {
	// Sandbox runs the candidates: the source is untrusted. Native
	// candidates are built into a temporary worker cache, removed at the
	// end, so that tuning does not fill the user's.
	Sandbox *sandbox.Sandbox
	Map     *envs.Map
	Agents  int
	Steps   int // episode length; 0 means envs.DefaultMaxSteps
	// TrainSeeds score the candidates (default DefaultTrainSeeds);
	// HeldOutSeeds decide whether the winner is kept (default 0-4).
	TrainSeeds, HeldOutSeeds []uint64
	// Budget is the number of candidates scored on the training seeds,
	// the original included (default 40). A candidate met twice is scored
	// once; candidates bred past the budget are not played (they rank
	// last).
	Budget int
	// PopSize is the GA's population (default: the original and two
	// probes per literal, 4 to 12, at most half the budget).
	PopSize int
	// MaxLiterals bounds the literals tuned, the first in the source
	// (default 16).
	MaxLiterals int
	// Seed is the source of every random choice.
	Seed uint64
	// Workers plays that many episodes of a candidate at once (default 1).
	Workers int
	// Progress, when set, is called after the initial population and
	// after each generation.
	Progress func(Progress)
}

// DefaultTrainSeeds are the default training seeds, apart from the
// held-out ones (0-4, the arena's evaluation seeds).
var DefaultTrainSeeds = []uint64{1000, 1001, 1002}

// Progress is the state of a tuning run after a generation.
type Progress struct {
	Generation          int
	Evaluations, Budget int
	Failed              int     // candidates that failed to build or to play
	Original, Best      float64 // training efficiency
}

// Change is one constant the tuned source changes.
type Change struct {
	Literal Literal
	New     string
}

// Result is what a tuning run found.
type Result struct {
	Literals []Literal // the literals tuned
	// Tuned is the best candidate, with a comment listing its changes;
	// nil when none beat the original on the training seeds.
	Tuned   []byte
	Changes []Change
	// Mean efficiency of the original and of Tuned on each seed set
	// (HeldOut only when Tuned is set).
	TrainOriginal, TrainTuned     float64
	HeldOutOriginal, HeldOutTuned float64
	// Kept: Tuned also beat the original on the held-out seeds.
	Kept bool
	// HeldOutFailure says why Tuned failed on the held-out seeds, if it
	// did (a result, not an error: it is then not kept).
	HeldOutFailure string
	Evaluations    int // candidates scored
	Failed         int // of which failed
}

func (c *Config) defaults(lits int) error {
	switch {
	case c.Sandbox == nil:
		return errors.New("tune: no sandbox")
	case c.Map == nil:
		return errors.New("tune: no map")
	case c.Agents < 1:
		return fmt.Errorf("tune: %d agents", c.Agents)
	}
	if len(c.TrainSeeds) == 0 {
		c.TrainSeeds = DefaultTrainSeeds
	}
	if len(c.HeldOutSeeds) == 0 {
		c.HeldOutSeeds = []uint64{0, 1, 2, 3, 4}
	}
	if c.Budget <= 0 {
		c.Budget = 40
	}
	if c.Budget < 4 {
		return fmt.Errorf("tune: a budget of %d candidates is too small (at least 4)", c.Budget)
	}
	if c.PopSize <= 0 {
		c.PopSize = min(12, max(4, 1+2*lits))
	}
	c.PopSize = max(2, min(c.PopSize, c.Budget/2))
	if c.MaxLiterals <= 0 {
		c.MaxLiterals = 16
	}
	return nil
}

// Run tunes the numeric literals of src (see Find) with eaopt's GA: each
// candidate is src with other values, built and played in self-play
// through the sandbox on the training seeds; its fitness is its mean
// efficiency, a candidate that fails scoring worst. The initial
// population is the original, then for each literal a probe low and a
// probe high in its range, then mutants. The best candidate that beats
// the original on the training seeds is then played on the held-out seeds
// with the original, and Kept when it wins there too.
func Run(ctx context.Context, src []byte, cfg Config) (*Result, error) {
	lits, err := Find(src)
	if err != nil {
		return nil, fmt.Errorf("tune: %w", err)
	}
	if len(lits) == 0 {
		return nil, errors.New("tune: the source has no numeric constant to tune (see tune.Find for what counts)")
	}
	if err := cfg.defaults(len(lits)); err != nil {
		return nil, err
	}
	if len(lits) > cfg.MaxLiterals {
		lits = lits[:cfg.MaxLiterals]
	}
	sb, cleanup, err := candidateSandbox(cfg.Sandbox)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	r := &runner{ctx: ctx, cfg: &cfg, sb: sb, src: src, lits: lits, scores: map[string]float64{}}
	orig := make([]float64, len(lits))
	for i, l := range lits {
		orig[i] = l.Value
	}
	base, failure, err := r.play(src, cfg.TrainSeeds)
	if err != nil {
		return nil, err
	}
	if failure != nil {
		return nil, fmt.Errorf("tune: the policy fails on the training seeds: %w", failure)
	}
	r.scores[string(src)] = base
	r.evals = 1
	res := &Result{Literals: lits, TrainOriginal: base}
	starts := r.starts(orig)
	n, seen, stale := 0, 0, 0
	ga, err := eaopt.GAConfig{
		// Generations go on until the budget is spent, or until three in a
		// row meet no new candidate (a small space, exhausted).
		NPops: 1, PopSize: uint(cfg.PopSize), NGenerations: uint(cfg.Budget), HofSize: 1,
		Model: eaopt.ModDownToSize{NOffsprings: uint(cfg.PopSize), SelectorA: eaopt.SelTournament{NContestants: 2},
			SelectorB: eaopt.SelElitism{}, MutRate: 0.9, CrossRate: 0.3},
		RNG: rand.New(rand.NewSource(int64(cfg.Seed))),
		Callback: func(ga *eaopt.GA) {
			if r.evals == seen {
				stale++
			} else {
				seen, stale = r.evals, 0
			}
			if cfg.Progress != nil {
				cfg.Progress(Progress{Generation: int(ga.Generations), Evaluations: r.evals,
					Budget: cfg.Budget, Failed: r.failed, Original: base, Best: -ga.HallOfFame[0].Fitness})
			}
		},
		EarlyStop: func(*eaopt.GA) bool { return r.evals >= cfg.Budget || stale >= 3 },
	}.NewGA()
	if err != nil {
		return nil, err
	}
	err = ga.Minimize(func(rng *rand.Rand) eaopt.Genome {
		c := &candidate{r: r}
		if n < len(starts) {
			c.v = starts[n]
		} else {
			c.v = append([]float64(nil), orig...)
			c.mutate(rng, 1+rng.Intn(2))
		}
		n++
		return c
	})
	res.Evaluations, res.Failed = r.evals, r.failed
	if err != nil {
		return res, err
	}
	best := ga.HallOfFame[0]
	if -best.Fitness <= base {
		return res, nil
	}
	vals := best.Genome.(*candidate).v
	tuned := Apply(src, lits, vals)
	for i, l := range lits {
		if s := l.format(vals[i]); l.value(vals[i]) != l.value(l.Value) {
			res.Changes = append(res.Changes, Change{Literal: l, New: s})
		}
	}
	res.TrainTuned = -best.Fitness
	if res.HeldOutOriginal, err = r.mustPlay(src, cfg.HeldOutSeeds); err != nil {
		return res, err
	}
	res.HeldOutTuned, failure, err = r.play(tuned, cfg.HeldOutSeeds)
	if err != nil {
		return res, err
	}
	res.Tuned = annotate(tuned, res, cfg.TrainSeeds)
	if failure != nil {
		res.HeldOutFailure = failure.Error()
	}
	res.Kept = failure == nil && res.HeldOutTuned > res.HeldOutOriginal
	return res, nil
}

// candidateSandbox is a sandbox like sb whose native workers go to a
// temporary cache, removed by cleanup.
func candidateSandbox(sb *sandbox.Sandbox) (*sandbox.Sandbox, func(), error) {
	if sb.Backend() != sandbox.Native {
		return sb, func() {}, nil
	}
	dir, err := os.MkdirTemp("", "policyevolve-tune-")
	if err != nil {
		return nil, nil, fmt.Errorf("tune: %w", err)
	}
	cfg := sb.Config()
	cfg.Backend, cfg.CacheDir = sandbox.Native, dir
	out, err := sandbox.New(cfg)
	if err != nil {
		os.RemoveAll(dir)
		return nil, nil, fmt.Errorf("tune: %w", err)
	}
	return out, func() { os.RemoveAll(dir) }, nil
}

// starts are the first members of the initial population: the original,
// then a low and a high probe of each literal in turn (those that differ
// from the original).
func (r *runner) starts(orig []float64) [][]float64 {
	out := [][]float64{orig}
	for i, l := range r.lits {
		for _, q := range []float64{0.15, 0.85} {
			v := l.value(l.Lo + q*(l.Hi-l.Lo))
			if v == l.value(l.Value) {
				continue
			}
			c := append([]float64(nil), orig...)
			c[i] = v
			out = append(out, c)
		}
	}
	return out
}

// annotate appends to a tuned source a comment listing its changes (at
// the end, so that line numbers stay those of the original).
func annotate(src []byte, res *Result, seeds []uint64) []byte {
	var b strings.Builder
	b.Write(src)
	if len(src) > 0 && src[len(src)-1] != '\n' {
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "\n// Constants tuned by policyevolve tune (self-play efficiency on training seeds %v: %.3f -> %.3f):\n",
		seeds, res.TrainOriginal, res.TrainTuned)
	for _, c := range res.Changes {
		fmt.Fprintf(&b, "//   line %d: %s -> %s (%s)\n", c.Literal.Line, c.Literal.Text, c.New, c.Literal.Where)
	}
	return []byte(b.String())
}

// runner is what the candidates of one run share. eaopt evaluates them
// one at a time, so it needs no lock.
type runner struct {
	ctx    context.Context
	cfg    *Config
	sb     *sandbox.Sandbox
	src    []byte
	lits   []Literal
	scores map[string]float64 // by candidate source
	evals  int
	failed int
}

// score returns a candidate's training efficiency, -Inf when it fails.
func (r *runner) score(v []float64) (float64, error) {
	src := Apply(r.src, r.lits, v)
	if s, ok := r.scores[string(src)]; ok {
		return s, nil
	}
	if r.evals >= r.cfg.Budget { // the last generation's surplus: not played
		return math.Inf(-1), nil
	}
	r.evals++
	s, failure, err := r.play(src, r.cfg.TrainSeeds)
	if err != nil {
		return 0, err
	}
	if failure != nil {
		r.failed++
		s = math.Inf(-1)
	}
	r.scores[string(src)] = s
	return s, nil
}

// mustPlay is play for the original, whose failure is an error.
func (r *runner) mustPlay(src []byte, seeds []uint64) (float64, error) {
	s, failure, err := r.play(src, seeds)
	if err == nil && failure != nil {
		err = fmt.Errorf("tune: the policy fails on the held-out seeds: %w", failure)
	}
	return s, err
}

// play builds src and plays it in self-play on seeds: the mean
// efficiency, or the policy's failure (which is a result), or an error of
// the system.
func (r *runner) play(src []byte, seeds []uint64) (eff float64, failure, err error) {
	prog, err := r.sb.Compile(r.ctx, src)
	if errors.Is(err, sandbox.ErrInvalid) {
		return 0, err, nil
	}
	if err != nil {
		return 0, nil, fmt.Errorf("tune: %w", err)
	}
	effs := make([]float64, len(seeds))
	errs := make([]error, len(seeds))
	var wg sync.WaitGroup
	sem := make(chan struct{}, max(1, r.cfg.Workers))
	for i, seed := range seeds {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			effs[i], errs[i] = r.episode(prog, seed)
		}()
	}
	wg.Wait()
	sum := 0.0
	for i, err := range errs {
		if err == nil {
			sum += effs[i]
			continue
		}
		if policyFailure(err) {
			return 0, fmt.Errorf("seed %d: %w", seeds[i], err), nil
		}
		return 0, nil, fmt.Errorf("tune: seed %d: %w", seeds[i], err)
	}
	return sum / float64(len(seeds)), nil, nil
}

func (r *runner) episode(prog *sandbox.Program, seed uint64) (float64, error) {
	env, err := envs.New(envs.Config{Map: r.cfg.Map, Agents: r.cfg.Agents, MaxSteps: r.cfg.Steps})
	if err != nil {
		return 0, err
	}
	all := make([]int, r.cfg.Agents)
	for i := range all {
		all[i] = i
	}
	res, err := envs.Run(r.ctx, env, []envs.Seat{{Actor: prog.Actor(), Agents: all}}, envs.Options{Seed: seed, Verify: true})
	if err != nil {
		return 0, err
	}
	return res.Metrics.Efficiency, nil
}

// policyFailure reports whether err is the policy's failure, a result,
// rather than the system's.
func policyFailure(err error) bool {
	var pe *sandbox.PolicyError
	return errors.As(err, &pe) || errors.Is(err, sandbox.ErrInvalid) ||
		errors.Is(err, envs.ErrNoAction) || errors.Is(err, envs.ErrTampered)
}

// candidate adapts a vector of literal values to eaopt.
type candidate struct {
	r *runner
	v []float64
}

// Evaluate returns minus the training efficiency (eaopt minimises); a
// failed candidate is +Inf.
func (c *candidate) Evaluate() (float64, error) {
	s, err := c.r.score(c.v)
	return -s, err
}

// Mutate changes one literal, sometimes two.
func (c *candidate) Mutate(rng *rand.Rand) {
	k := 1
	if rng.Float64() < 0.3 {
		k = 2
	}
	c.mutate(rng, k)
}

func (c *candidate) mutate(rng *rand.Rand, k int) {
	for ; k > 0; k-- {
		i := rng.Intn(len(c.v))
		l := c.r.lits[i]
		old := l.value(c.v[i])
		v := old
		if rng.Float64() < 0.25 {
			v = l.Lo + rng.Float64()*(l.Hi-l.Lo)
		} else {
			v += rng.NormFloat64() * 0.15 * (l.Hi - l.Lo)
		}
		v = l.value(math.Max(l.Lo, math.Min(l.Hi, v)))
		if v == old && !l.Float { // an integer step too small to show
			v = old + 1
			if v > l.Hi {
				v = old - 1
			}
		}
		c.v[i] = v
	}
}

// Crossover takes each literal from the mate with even odds, changing
// only the receiver (eaopt passes the mate by value; see LIBRARIES.md).
func (c *candidate) Crossover(mate eaopt.Genome, rng *rand.Rand) {
	m := mate.(*candidate)
	v := append([]float64(nil), c.v...)
	for i := range v {
		if rng.Intn(2) == 0 {
			v[i] = m.v[i]
		}
	}
	c.v = v
}

// Clone copies the candidate.
func (c *candidate) Clone() eaopt.Genome {
	return &candidate{r: c.r, v: append([]float64(nil), c.v...)}
}
