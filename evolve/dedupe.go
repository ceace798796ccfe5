package evolve

import (
	"context"
	"fmt"
	"sync"

	"policyevolve/evolve/planner"
	"policyevolve/store"
)

// dedupe knows the normalised ids of the store's policies, to tell a
// planner that its proposal was written before.
type dedupe struct {
	mu   sync.Mutex
	seen map[string]dedupeEntry // planner.NormalizedID → first policy with it
}

type dedupeEntry struct {
	policy string
	origin store.Origin
}

// loadDedupe indexes the source policies a run's candidates must not
// repeat: those the run wrote itself and the members of its global pool.
// A policy another run wrote is not a duplicate: runs compared side by
// side (compare) may write the same policy independently, and each must
// be able to count it.
func loadDedupe(s *store.Store, run, globalPool string) (*dedupe, error) {
	d := &dedupe{seen: map[string]dedupeEntry{}}
	var ps []store.Policy
	inPool := map[string]bool{}
	err := s.View(func(tx *store.Tx) (err error) {
		if ps, err = tx.Policies(); err != nil {
			return err
		}
		members, err := tx.Members(globalPool)
		for _, m := range members {
			inPool[m.Policy] = true
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	// Normalising parses each source (milliseconds each, seconds for a
	// long run's thousands): outside the transaction, which would hold the
	// store's lock meanwhile.
	for _, p := range ps {
		if p.Builtin == "" && (p.Origin.Run == run && run != "" || inPool[p.ID]) {
			d.add(&p)
		}
	}
	return d, nil
}

func (d *dedupe) add(p *store.Policy) {
	d.mu.Lock()
	defer d.mu.Unlock()
	id := planner.NormalizedID([]byte(p.Source))
	if _, ok := d.seen[id]; !ok {
		d.seen[id] = dedupeEntry{policy: p.ID, origin: p.Origin}
	}
}

// screen refuses a source written before the candidate's iteration: by
// an earlier iteration of the run, or a member of its pool. What the
// iteration's own candidates write is not screened: they are proposed at
// once (--planner-concurrency), and which of two equal policies came
// first would depend on the order their calls finished, so that a seed
// would no longer give one result. (A resumed candidate proposing again
// what it proposed before the interruption is not a duplicate either.)
func (d *dedupe) screen(self store.Origin) func(context.Context, []byte) error {
	return func(_ context.Context, src []byte) error {
		id := planner.NormalizedID(src)
		d.mu.Lock()
		e, ok := d.seen[id]
		d.mu.Unlock()
		if !ok || (e.origin.Run == self.Run && e.origin.Run != "" && e.origin.Iteration >= self.Iteration) {
			return nil
		}
		return fmt.Errorf("%w: it is the same as policy %.12s already in the store (once formatting, comments and the names of locals are set aside)",
			planner.ErrDuplicate, e.policy)
	}
}
