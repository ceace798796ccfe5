package evolve

import (
	"context"
	"encoding/binary"
	"errors"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"policyevolve/store"
)

// TestBudgetReadFailureStopsTheRun: when the run's usage cannot be read
// while a budget is checked (here an LLM call record that does not
// decode appears once the iteration has begun), the run stops with that
// error, before any planner call; it used to count as "no budget
// reached", leaving --max-cost unenforced.
func TestBudgetReadFailureStopsTheRun(t *testing.T) {
	cfg := tinyConfig(ModePopulation)
	cfg.MaxCost = 1
	j := newJob(t, cfg)
	garbage := binary.BigEndian.AppendUint64(nil, 1<<40)
	poke := func(put bool) {
		db, err := bolt.Open(j.Store.Path(), 0o644, &bolt.Options{Timeout: 10 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		err = db.Update(func(tx *bolt.Tx) error {
			if put {
				return tx.Bucket([]byte("llm_calls")).Put(garbage, []byte("{not json"))
			}
			return tx.Bucket([]byte("llm_calls")).Delete(garbage)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { poke(false) }) // before the store's own check
	var proposedAfter int
	poisoned := false
	j.Events = ReporterFunc(func(e Event) {
		switch {
		case e.Kind == EventIteration && e.Iteration == 0:
			poke(true)
			poisoned = true
		case e.Kind == EventCandidate && poisoned:
			proposedAfter++
		}
	})
	_, err := j.Run(context.Background())
	if !errors.Is(err, store.ErrDamaged) || !strings.Contains(err.Error(), "check the budgets") {
		t.Fatalf("the run ended with %v, want the failed budget check", err)
	}
	if !poisoned || proposedAfter > 0 {
		t.Fatalf("poisoned %v; %d candidates were proposed after the usage stopped reading", poisoned, proposedAfter)
	}
}
