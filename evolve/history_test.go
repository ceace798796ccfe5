package evolve

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"testing"

	"policyevolve/internal/storetest"
	"policyevolve/store"
)

// TestPastReadOnce: what the job keeps of its past (history.go) is what
// reading the whole past every time gives — the run's iterations, its LLM
// calls' sums — as the past grows between reads, other runs' records
// included.
func TestPastReadOnce(t *testing.T) {
	s := storetest.Open(t, filepath.Join(t.TempDir(), "past.db"))
	const seed = 5
	t.Logf("seed: %d", seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	var ids []string
	var runs []*store.Run
	err := s.Update(func(tx *store.Tx) error {
		for i := range 12 {
			p := &store.Policy{Source: fmt.Sprintf("package p // %d", i)}
			if _, err := tx.PutPolicy(p); err != nil {
				return err
			}
			ids = append(ids, p.ID)
		}
		for range 2 {
			r := &store.Run{Status: store.StatusRunning}
			if err := tx.CreateRun(r); err != nil {
				return err
			}
			runs = append(runs, r)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var h runHistory
	var l ledger
	for round := range 6 {
		err := s.Update(func(tx *store.Tx) error {
			for _, r := range runs {
				if err := tx.AddLLMCall(&store.LLMCall{Run: r.ID, TokensIn: rng.IntN(100), TokensOut: 7, Cost: rng.Float64()}); err != nil {
					return err
				}
				// The iteration before is finished now; this one is not.
				if round > 0 {
					done := &store.Iteration{Run: r.ID, Index: round - 1, Done: true, Usage: store.RunUsage{Proposals: round}}
					if err := tx.PutIteration(done); err != nil {
						return err
					}
				}
				it := &store.Iteration{Run: r.ID, Index: round, Usage: store.RunUsage{Episodes: round}}
				if err := tx.PutIteration(it); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		err = s.View(func(tx *store.Tx) error {
			run := runs[0].ID
			got, err := h.iterations(tx, run)
			if err != nil {
				return err
			}
			want, err := tx.Iterations(run)
			if err != nil {
				return err
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("round %d: iterations %+v, want %+v", round, got, want)
			}
			sums, err := l.read(tx, run)
			if err != nil {
				return err
			}
			calls, err := tx.LLMCalls(run)
			if err != nil {
				return err
			}
			var want2 store.RunUsage
			for _, c := range calls {
				want2.LLMCalls++
				want2.InputTokens += c.TokensIn
				want2.OutputTokens += c.TokensOut
				want2.Cost += c.Cost
			}
			if sums != want2 {
				t.Errorf("round %d: LLM sums %+v, want %+v", round, sums, want2)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
