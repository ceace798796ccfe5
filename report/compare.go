package report

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"

	"policyevolve/elo"
	"policyevolve/evolve"
	"policyevolve/evolve/episode"
	"policyevolve/evolve/experiment"
	"policyevolve/store"
)

// Comparison is what compare measured: per method (chain, population,
// and the baselines bfs, exploit and coop), the champions' self-play
// metrics, their ratings in a league of all champions and baselines, how
// exploitable they are, and what the runs spent.
//
// compare keeps no record of its own: it is found in the store through
// its runs, whose pool tag is "ID-MODE-R" (compare's id, the method, the
// run's number), and its league through the matches stored for it. The
// league's ratings are fitted again from those matches (elo.RoundRobin on
// the same players in the same order), so they are compare's.
type Comparison struct {
	ID         string
	Env        store.EnvConfig
	Budget     int // planner calls per run
	Runs       int // runs per method
	EvalSeeds  []uint64
	MatchSeeds []uint64
	Planners   []string
	Rows       []CompareRow
	// League: every match of the league is stored. While compare is still
	// running its searches (or was stopped), it is not, and the ratings
	// and exploitability columns stay empty.
	League bool
}

// CompareRow is one method: its runs (none for a baseline) and the mean,
// min and max of each column over them.
type CompareRow struct {
	Method    string
	Runs      []string
	Statuses  []string // each run's status
	Champions []string
	// Self-play metrics of the champions on the comparison's seeds.
	Efficiency, Equality, Sustainability, Peace experiment.Stat
	// League rating and exploitability (the largest margin by which a
	// league member beats the champion; 0: none does).
	Rating, Exploitability experiment.Stat
	// What the runs spent.
	PlannerCalls, LLMCalls, Tokens, Cost, WallSeconds experiment.Stat
	// Progress is the runs' best-so-far curve per planner call, as
	// compare stored it (none for a baseline, nor before compare ended).
	Progress []experiment.ProgressPoint
}

// Baseline reports whether the row is a built-in policy.
func (r CompareRow) Baseline() bool { return len(r.Runs) == 0 }

// comparisonOf is the comparison a pool tag belongs to, or "".
func comparisonOf(tag string) string {
	id, _, _, _ := experiment.ParseTag(tag)
	return id
}

// storedComparison is the comparison as compare stored it when it ended
// (every row, in compare's order, with compare's statistics), or nil.
func storedComparison(tx *store.Tx, id string) (*Comparison, error) {
	rep, err := experiment.Stored(tx, id)
	if rep == nil || err != nil {
		return nil, err
	}
	c := &Comparison{ID: id, Env: rep.Env, Budget: rep.Budget, Runs: rep.Runs, EvalSeeds: rep.Seeds, League: true}
	for _, r := range rep.Rows {
		row := CompareRow{Method: r.Method, Runs: r.Runs, Champions: r.Champions, Efficiency: r.Efficiency, Equality: r.Equality,
			Sustainability: r.Sustainability, Peace: r.Peace, Rating: r.Rating, Exploitability: r.Exploitability,
			PlannerCalls: r.PlannerCalls, LLMCalls: r.LLMCalls, Tokens: r.Tokens, Cost: r.Cost, WallSeconds: r.WallSeconds, Progress: r.Progress}
		for _, id := range r.Runs {
			run, err := tx.Run(id)
			if err != nil {
				return nil, fmt.Errorf("comparison %s names run %s: %w", c.ID, id, err)
			}
			row.Statuses = append(row.Statuses, run.Status)
			if c.MatchSeeds == nil {
				var cfg evolve.JobConfig
				if json.Unmarshal(run.Config, &cfg) == nil && cfg.MatchSeeds != nil {
					c.MatchSeeds, c.Planners = cfg.MatchSeeds, cfg.Planners
				}
			}
		}
		c.Rows = append(c.Rows, row)
	}
	return c, nil
}

// loadComparison finds comparison id: as compare stored it when it ended,
// else (compare still running, or stopped) from its runs and the league
// matches stored so far.
func loadComparison(tx *store.Tx, id string) (*Comparison, error) {
	if c, err := storedComparison(tx, id); c != nil || err != nil {
		return c, err
	}
	runs, err := tx.Runs()
	if err != nil {
		return nil, err
	}
	type entry struct {
		n   int
		run store.Run
		cfg evolve.JobConfig
	}
	byMode := map[string][]entry{}
	var first *entry
	for _, run := range runs {
		var cfg evolve.JobConfig
		if json.Unmarshal(run.Config, &cfg) != nil {
			continue
		}
		cid, method, n, ok := experiment.ParseTag(cfg.PoolTag)
		if !ok || cid != id {
			continue
		}
		e := entry{n, run, cfg.WithDefaults()}
		byMode[method] = append(byMode[method], e)
		if first == nil {
			first = &e
		}
	}
	if first == nil {
		return nil, fmt.Errorf("%w: no comparison %q in the store (its runs have the pool tag %s-MODE-N; runs show RUN_ID names it)", ErrNotFound, id, id)
	}
	env, err := runEnv(tx, &first.run, first.cfg)
	if err != nil {
		return nil, err
	}
	c := &Comparison{ID: id, Env: env.Config, Budget: first.cfg.MaxPlannerCalls, EvalSeeds: first.cfg.EvalSeeds,
		MatchSeeds: first.cfg.MatchSeeds, Planners: first.cfg.Planners}
	for _, mode := range []string{evolve.ModeChain, evolve.ModePopulation} {
		es := byMode[mode]
		sort.Slice(es, func(i, j int) bool { return es[i].n < es[j].n })
		c.Runs = max(c.Runs, len(es))
		row := CompareRow{Method: mode}
		for _, e := range es {
			row.Runs = append(row.Runs, e.run.ID)
			row.Statuses = append(row.Statuses, e.run.Status)
			u := e.run.Usage
			row.PlannerCalls.Add(float64(u.Proposals))
			row.LLMCalls.Add(float64(u.LLMCalls))
			row.Tokens.Add(float64(u.InputTokens + u.OutputTokens))
			row.Cost.Add(u.Cost)
			row.WallSeconds.Add(u.WallSeconds)
			if e.run.Champion != "" {
				row.Champions = append(row.Champions, e.run.Champion)
			}
		}
		c.Rows = append(c.Rows, row)
	}
	for _, name := range experiment.Baselines {
		c.Rows = append(c.Rows, CompareRow{Method: name, Champions: []string{store.SourceID(episode.BuiltinSource(name))}})
	}
	for k := range c.Rows {
		row := &c.Rows[k]
		for _, p := range row.Champions {
			ev, err := tx.Evaluation(p, c.Env, c.EvalSeeds)
			if errors.Is(err, store.ErrNotFound) {
				continue
			}
			if err != nil {
				return nil, err
			}
			row.Efficiency.Add(ev.Mean.Efficiency)
			row.Equality.Add(ev.Mean.Equality)
			row.Sustainability.Add(ev.Mean.Sustainability)
			row.Peace.Add(ev.Mean.Peace)
		}
	}
	return c, c.league(tx)
}

// errUnplayed: a match of the league is not in the store.
var errUnplayed = errors.New("match not played")

// league fits the league's ratings from its stored matches, if all are
// stored, with compare's players in compare's order: the champions of
// the methods, then the baselines, each once.
func (c *Comparison) league(tx *store.Tx) error {
	var players []string
	index := map[string]int{}
	for _, row := range c.Rows {
		for _, p := range row.Champions {
			if _, ok := index[p]; !ok {
				index[p] = len(players)
				players = append(players, p)
			}
		}
	}
	l, err := elo.RoundRobin(context.Background(), len(players), c.MatchSeeds, func(_ context.Context, i, j int, seed uint64) (*elo.Result, error) {
		m, err := storedMatch(tx, players[i], players[j], c.Env, seed)
		if err != nil {
			return nil, err
		}
		return &elo.Result{ScoreA: m.ScoreA, ScoreB: m.ScoreB, Outcome: m.Outcome}, nil
	})
	if errors.Is(err, errUnplayed) {
		return nil
	}
	if err != nil {
		return err
	}
	c.League = true
	ex := l.Exploitability()
	for k := range c.Rows {
		row := &c.Rows[k]
		for _, p := range row.Champions {
			i := index[p]
			row.Rating.Add(l.Ratings[i])
			row.Exploitability.Add(math.Max(0, -ex[i].Margin))
		}
	}
	return nil
}

// storedMatch is the match of a against b on seed as stored, either way
// round (a match with the sides named the other way is the same two
// episodes, mirrored), or errUnplayed.
func storedMatch(tx *store.Tx, a, b string, env store.EnvConfig, seed uint64) (*store.Match, error) {
	m, err := tx.Match(a, b, env, seed)
	if !errors.Is(err, store.ErrNotFound) {
		return m, err
	}
	r, err := tx.Match(b, a, env, seed)
	if errors.Is(err, store.ErrNotFound) {
		return nil, errUnplayed
	}
	if err != nil {
		return nil, err
	}
	return &store.Match{A: a, B: b, Env: r.Env, Seed: r.Seed, ScoreA: r.ScoreB, ScoreB: r.ScoreA, Outcome: 1 - r.Outcome, Backend: r.Backend}, nil
}
