package grammar

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync"

	"policyevolve/envs"
)

// Evaluator scores genomes in process: every agent of the environment
// plays the genome (self-play), one episode per seed, and the score is the
// mean efficiency (the sum of all returns per step), the paper's U. It
// remembers scores by genome, so a genome is played once, and each
// genome's print: its efficiency, equality and sustainability on every
// seed, which two genomes that play alike share (many do: a parameter of
// a branch never taken, a threshold never reached). An Evaluator is safe
// for concurrent use.
type Evaluator struct {
	Map    *envs.Map
	Agents int
	Steps  int // episode length; 0 means envs.DefaultMaxSteps
	Seeds  []uint64
	// Workers plays that many seeds at once (default 1). The score does
	// not depend on it.
	Workers int
	// Residents, when set, makes Score an invasion's: the genome plays
	// agents 0…Invaders−1 among residents running this in-process
	// (trusted, built-in) policy, and scores its invaders' mean per-agent
	// return (the exploit objective's score; docs/objectives.md). Unset:
	// the genome plays every agent, scored by efficiency.
	Residents envs.PolicyFactory
	Invaders  int

	mu     sync.Mutex
	scores map[Genome]float64
	prints map[Genome]string
	played int
}

// Print returns the print of a genome Score has scored: its efficiency,
// equality and sustainability on each seed, exactly. Genomes with the
// same print almost surely play the same episodes (who collects what,
// and when).
func (e *Evaluator) Print(g Genome) (string, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	p, ok := e.prints[g.Canonical()]
	return p, ok
}

// Played is the number of genomes played so far (remembered ones not
// counted again).
func (e *Evaluator) Played() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.played
}

// Score returns g's mean efficiency over the seeds (with Residents, its
// invaders' mean per-agent return among them).
func (e *Evaluator) Score(ctx context.Context, g Genome) (float64, error) {
	g = g.Canonical()
	e.mu.Lock()
	s, ok := e.scores[g]
	e.mu.Unlock()
	if ok {
		return s, nil
	}
	res, err := e.Play(ctx, g, e.Seeds)
	if err != nil {
		return 0, err
	}
	var print strings.Builder
	for _, r := range res {
		if e.Residents != nil {
			s += invaderReturn(r.Returns, e.Invaders)
		} else {
			s += r.Metrics.Efficiency
		}
		m := r.Metrics
		fmt.Fprintf(&print, "%x,%x,%x;", math.Float64bits(m.Efficiency), math.Float64bits(m.Equality), math.Float64bits(m.Sustainability))
	}
	s /= float64(len(res))
	e.mu.Lock()
	if e.scores == nil {
		e.scores, e.prints = map[Genome]float64{}, map[Genome]string{}
	}
	if _, ok := e.scores[g]; !ok {
		e.played++
	}
	e.scores[g], e.prints[g] = s, print.String()
	e.mu.Unlock()
	return s, nil
}

// Play runs g in self-play on each seed and returns the results in seed
// order.
func (e *Evaluator) Play(ctx context.Context, g Genome, seeds []uint64) ([]*envs.Result, error) {
	if len(seeds) == 0 {
		return nil, fmt.Errorf("grammar: no seeds to play")
	}
	out := make([]*envs.Result, len(seeds))
	errs := make([]error, len(seeds))
	workers := max(1, min(e.Workers, len(seeds)))
	next := make(chan int, len(seeds))
	for i := range seeds {
		next <- i
	}
	close(next)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i], errs[i] = e.episode(ctx, g, seeds[i])
			}
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("grammar: seed %d: %w", seeds[i], err)
		}
	}
	return out, nil
}

func (e *Evaluator) episode(ctx context.Context, g Genome, seed uint64) (*envs.Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	env, err := envs.New(envs.Config{Map: e.Map, Agents: e.Agents, MaxSteps: e.Steps})
	if err != nil {
		return nil, err
	}
	if e.Residents != nil {
		var mine, theirs []int
		for i := range e.Agents {
			if i < e.Invaders {
				mine = append(mine, i)
			} else {
				theirs = append(theirs, i)
			}
		}
		return envs.Run(ctx, env, []envs.Seat{{Actor: g.Actor(), Agents: mine}, {Actor: &envs.PolicyActor{New: e.Residents}, Agents: theirs}}, envs.Options{Seed: seed})
	}
	all := make([]int, e.Agents)
	for i := range all {
		all[i] = i
	}
	return envs.Run(ctx, env, []envs.Seat{{Actor: g.Actor(), Agents: all}}, envs.Options{Seed: seed})
}

// invaderReturn is the mean of the first k returns (0 when there are
// none).
func invaderReturn(returns []float64, k int) float64 {
	k = min(k, len(returns))
	if k <= 0 {
		return 0
	}
	sum := 0.0
	for _, r := range returns[:k] {
		sum += r
	}
	return sum / float64(k)
}
