package evolve

import (
	"sync"

	"policyevolve/store"
)

// A long job must cost the same per iteration at its thousandth iteration
// as at its tenth. What it reads of its own past grows with the run — its
// iterations (for the usage, and, through search.Run.Past, the parents
// of the next plan and the champion), its LLM calls (for the budgets), the
// matches (for exploitability, kept by the population mode) — so it reads
// each record of that past once and keeps what it needs, reading
// afterwards only what was added since. This is exact because what it
// keeps is never written again: a finished iteration is not changed, and
// LLM calls are only appended, with increasing ids.

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

// read brings the sums up to date and returns them: calls (and those
// without a price), tokens and cost of the run's calls (its other fields
// are zero).
func (l *ledger) read(tx *store.Tx, run string) (store.RunUsage, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	u := l.usage
	last, err := tx.LLMCallsSince(l.last, func(c *store.LLMCall) error {
		if c.Run == run {
			u.LLMCalls++
			if c.Unpriced {
				u.UnpricedCalls++
			}
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
