package population

import (
	"sync"

	"policyevolve/store"
)

// The population mode reads the matches of the store once: a match is
// never played again once stored, and store.Tx.MatchesSince gives those
// stored since the last read, in the order they were put. Reading every
// match of every parent candidate at each iteration made the storing time
// of an iteration grow with the square of the run's length.

// matchBook holds, for each pair of policies that met on an environment,
// the largest margin by which the second beat the first, read from the
// match log once.
type matchBook struct {
	mu    sync.Mutex
	env   store.EnvConfig
	last  uint64                        // the match log's last sequence number read
	worst map[string]map[string]float64 // policy → opponent → largest margin
}

// update reads the matches stored on env since the last update (env is
// the same at every call).
func (b *matchBook) update(tx *store.Tx, env store.EnvConfig) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.worst == nil {
		b.worst, b.env = map[string]map[string]float64{}, env
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
	if err != nil {
		// The entries read so far are noted; reading again starts where
		// this read started (a margin noted twice is the same margin).
		return err
	}
	b.last = last
	return nil
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
