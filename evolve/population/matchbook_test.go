package population

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"policyevolve/internal/storetest"
	"policyevolve/store"
)

// TestMatchBook: the exploitability the mode reads from the matches it
// keeps (matchbook.go) is what reading every match of the policy gives,
// as matches are stored between reads, other environments' included.
func TestMatchBook(t *testing.T) {
	s := storetest.Open(t, filepath.Join(t.TempDir(), "matches.db"))
	env := store.EnvConfig{Game: "gathering", Map: "small", Agents: 4, MaxSteps: 100}
	other := env
	other.MaxSteps = 200
	const seed = 5
	t.Logf("seed: %d", seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	var ids []string
	err := s.Update(func(tx *store.Tx) error {
		for i := range 12 {
			p := &store.Policy{Source: fmt.Sprintf("package p // %d", i)}
			if _, err := tx.PutPolicy(p); err != nil {
				return err
			}
			ids = append(ids, p.ID)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	against := map[string]bool{}
	for _, id := range ids[:6] {
		against[id] = true
	}
	var b matchBook
	for round := range 6 {
		err := s.Update(func(tx *store.Tx) error {
			for k := range 3 {
				e := env
				if k == 2 {
					e = other
				}
				m := &store.Match{A: ids[rng.IntN(len(ids))], B: ids[rng.IntN(len(ids))], Env: e, Seed: uint64(round*10 + k),
					ScoreA: rng.Float64() * 10, ScoreB: rng.Float64() * 10}
				if err := tx.PutMatch(m); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		err = s.View(func(tx *store.Tx) error {
			if err := b.update(tx, env); err != nil {
				return err
			}
			for _, id := range ids {
				// Exploitability as the mode computed it before it kept
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
