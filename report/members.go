package report

import (
	"errors"
	"sort"

	"policyevolve/store"
)

// loadMembers reads the final pool: the members of the run's global pool
// with their ratings and evaluations, best rated first; for a chain, the
// policy of each iteration, in order.
func (r *Run) loadMembers(tx *store.Tx) error {
	if r.Pool == "" {
		for _, it := range r.Iterations {
			for _, c := range it.Candidates {
				if c.Policy == "" {
					continue
				}
				m, err := r.member(tx, c.Policy)
				if err != nil {
					return err
				}
				m.Reason = c.Status
				r.Members = append(r.Members, m)
			}
		}
		return nil
	}
	ms, err := tx.Members(r.Pool)
	if err != nil {
		return err
	}
	for _, sm := range ms {
		m, err := r.member(tx, sm.Policy)
		if err != nil {
			return err
		}
		m.Reason = sm.Reason
		if err := m.rate(tx, r.Pool); err != nil {
			return err
		}
		r.Members = append(r.Members, m)
	}
	welfare := !r.Config.Objective.Rated() // listed by self-play, else by rating
	sort.SliceStable(r.Members, func(i, j int) bool {
		a, b := r.Members[i], r.Members[j]
		if welfare && a.Metrics.Efficiency != b.Metrics.Efficiency {
			return a.Metrics.Efficiency > b.Metrics.Efficiency
		}
		if a.Elo != b.Elo {
			return a.Elo > b.Elo
		}
		return a.Policy.ID < b.Policy.ID
	})
	return nil
}

// rate reads the member's rating in pool, if it has one.
func (m *Member) rate(tx *store.Tx, pool string) error {
	rating, err := tx.Rating(pool, m.Policy.ID)
	switch {
	case err == nil:
		m.Rated, m.Elo = true, rating.Elo
		m.Games, m.Wins, m.Draws, m.Losses = rating.Games, rating.Wins, rating.Draws, rating.Losses
	case !errors.Is(err, store.ErrNotFound):
		return err
	}
	return nil
}

// member reads one policy with its evaluation on the run's environment.
func (r *Run) member(tx *store.Tx, id string) (Member, error) {
	p, err := tx.Policy(id)
	if err != nil {
		return Member{}, err
	}
	m := Member{Policy: *p, Champion: id == r.Record.Champion}
	ev, err := evaluation(tx, id, r)
	if err != nil {
		return m, err
	}
	if ev != nil {
		m.Evaluated, m.Metrics, m.Failed, m.Backend, m.Seeds = true, ev.Mean, ev.Status != store.StatusOK, ev.Backend, ev.Seeds
	}
	return m, nil
}
