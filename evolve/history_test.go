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
// calls' sums, each policy's exploitability from the stored matches — as
// the past grows between reads, other runs' records and other
// environments' matches included.
func TestPastReadOnce(t *testing.T) {
	s := storetest.Open(t, filepath.Join(t.TempDir(), "past.db"))
	env := store.EnvConfig{Game: "gathering", Map: "small", Agents: 4, MaxSteps: 100}
	other := env
	other.MaxSteps = 200
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
	b := matchBook{env: env}
	for round := range 6 {
		err := s.Update(func(tx *store.Tx) error {
			for k := range 3 {
				a, c := ids[rng.IntN(len(ids))], ids[rng.IntN(len(ids))]
				e := env
				if k == 2 {
					e = other
				}
				m := &store.Match{A: a, B: c, Env: e, Seed: uint64(round*10 + k), ScoreA: rng.Float64() * 10, ScoreB: rng.Float64() * 10}
				if err := tx.PutMatch(m); err != nil {
					return err
				}
			}
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
			if err := b.update(tx); err != nil {
				return err
			}
			against := map[string]bool{}
			for _, id := range ids[:6] {
				against[id] = true
			}
			for _, id := range ids {
				// Exploitability as the job computed it before it kept
				// the matches: every match of the policy, read now.
				ms, err := tx.MatchesOf(id)
				if err != nil {
					return err
				}
				want := 0.0
				for _, m := range ms {
					if m.Env != env {
						continue
					}
					mine, theirs, opp := m.ScoreA, m.ScoreB, m.B
					if m.B == id {
						mine, theirs, opp = m.ScoreB, m.ScoreA, m.A
					}
					if against[opp] && opp != id && theirs-mine > want {
						want = theirs - mine
					}
				}
				if got := b.exploitability(id, against); got != want {
					t.Errorf("round %d: exploitability of %.8s %v, want %v", round, id, got, want)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
