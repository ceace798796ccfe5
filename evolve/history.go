package evolve

import (
	"sync"

	"policyevolve/store"
)

// A long job must cost the same per iteration at its thousandth iteration
// as at its tenth. What it reads of its own past grows with the run — its
// iterations (for the usage, the parents of the next plan, the champion),
// its LLM calls (for the budgets), the matches (for exploitability) — so
// it reads each record of that past once and keeps what it needs here,
// reading afterwards only what was added since. This is exact because
// what it keeps is never written again: a finished iteration is not
// changed, LLM calls are only appended, with increasing ids, and a match
// is never played again once stored (store.Tx.MatchesSince gives the
// matches in the order they were put).

// runHistory holds a run's finished iterations, read once.
type runHistory struct {
	mu   sync.Mutex
	done []store.Iteration // iterations 0 to len(done)-1, all finished
}

// iterations returns the run's iterations as stored: the finished ones
// from memory, the others (from the first unfinished one on) read now.
// The result shares its records with the cache: callers must not change
// them.
func (h *runHistory) iterations(tx *store.Tx, run string) ([]store.Iteration, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	rest, err := tx.IterationsFrom(run, len(h.done))
	if err != nil {
		return nil, err
	}
	k := 0
	for ; k < len(rest) && rest[k].Index == len(h.done) && rest[k].Done; k++ {
		h.done = append(h.done, rest[k])
	}
	out := make([]store.Iteration, 0, len(h.done)+len(rest)-k)
	return append(append(out, h.done...), rest[k:]...), nil
}

// ledger sums a run's LLM calls, reading each call once.
type ledger struct {
	mu    sync.Mutex
	last  uint64 // the largest call id read
	usage store.RunUsage
}

// read brings the sums up to date and returns them: calls, tokens and cost
// of the run's calls (its other fields are zero).
func (l *ledger) read(tx *store.Tx, run string) (store.RunUsage, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	u := l.usage
	last, err := tx.LLMCallsSince(l.last, func(c *store.LLMCall) error {
		if c.Run == run {
			u.LLMCalls++
			u.InputTokens += c.TokensIn
			u.OutputTokens += c.TokensOut
			u.ReasoningTokens += c.TokensReasoning
			u.Cost += c.Cost
		}
		return nil
	})
	if err != nil {
		return store.RunUsage{}, err
	}
	l.last, l.usage = last, u
	return u, nil
}

// matchBook holds, for each pair of policies that met on an environment,
// the largest margin by which the second beat the first, read from the
// match log once.
type matchBook struct {
	mu    sync.Mutex
	env   store.EnvConfig
	last  uint64                        // the match log's last sequence number read
	worst map[string]map[string]float64 // policy → opponent → largest margin
}

// update reads the matches stored since the last update.
func (b *matchBook) update(tx *store.Tx) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.worst == nil {
		b.worst = map[string]map[string]float64{}
	}
	note := func(p, opp string, margin float64) {
		m := b.worst[p]
		if m == nil {
			m = map[string]float64{}
			b.worst[p] = m
		}
		if old, ok := m[opp]; !ok || margin > old {
			m[opp] = margin
		}
	}
	last, err := tx.MatchesSince(b.last, func(_ uint64, m *store.Match) error {
		if m.Env == b.env {
			note(m.A, m.B, m.ScoreB-m.ScoreA)
			note(m.B, m.A, m.ScoreA-m.ScoreB)
		}
		return nil
	})
	b.last = last
	return err
}

// exploitability is the largest margin by which a policy of against
// (other than p) beat p in the matches read, or 0.
func (b *matchBook) exploitability(p string, against map[string]bool) float64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	worst, met := 0.0, b.worst[p]
	for opp := range against {
		if margin, ok := met[opp]; ok && opp != p && margin > worst {
			worst = margin
		}
	}
	return worst
}
