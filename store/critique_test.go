package store

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestCritiqueRecord: a critique keeps its level, diagnostics, reflections,
// environment, seeds and opponents; a critique stored before those fields
// existed still reads; bad diagnostics are refused and nothing is stored.
func TestCritiqueRecord(t *testing.T) {
	s := newStore(t)
	a := addPolicy(t, s, "package policy // critiqued")
	full := Critique{
		Run: "run-1", Policy: a, Source: "llm:fake:m", Text: "1. stop beaming", Iteration: 3, Level: "critic",
		Env: env, Seeds: []uint64{0, 1, 2}, Opponents: []string{"bfs"},
		Diagnostics: json.RawMessage(`{"game":"gathering","reward":12.5}`),
		Reflections: []Reflection{{Code: "friendly-fire", Text: "stop beaming", Stake: 19.5}, {Code: "idle", Text: "move", Stake: 0.5}},
		Fallback:    "",
	}
	old := []byte(`{"id":2,"policy":"` + a + `","source":"analytic","text":"stands still","created":"2026-01-02T03:04:05Z"}`)
	err := s.Update(func(tx *Tx) error {
		if err := tx.AddCritique(&full); err != nil {
			return err
		}
		if _, err := tx.b.Bucket(bCritiques).NextSequence(); err != nil {
			return err
		}
		if err := tx.b.Bucket(bCritiques).Put(u64(2), old); err != nil {
			return err
		}
		return tx.b.Bucket(bCritiqueIndex).Put(critiqueIndexKey(a, 2), nil) // as the migration to schema 2 indexes it
	})
	if err != nil {
		t.Fatal(err)
	}
	bad := &Critique{Policy: a, Text: "x", Diagnostics: json.RawMessage(`{"reward":`)}
	if err := s.Update(func(tx *Tx) error { return tx.AddCritique(bad) }); err == nil {
		t.Fatal("invalid diagnostics were accepted")
	}
	err = s.View(func(tx *Tx) error {
		got, err := tx.Critiques(a)
		if err != nil {
			return err
		}
		if len(got) != 2 {
			t.Fatalf("%d critiques, want 2: %+v", len(got), got)
		}
		want := full
		want.ID, want.Created = 1, got[0].Created
		if !reflect.DeepEqual(got[0], want) {
			t.Errorf("critique read back as\n%+v\nwant\n%+v", got[0], want)
		}
		if o := got[1]; o.ID != 2 || o.Text != "stands still" || o.Level != "" || o.Env != (EnvConfig{}) || o.Diagnostics != nil || o.Reflections != nil {
			t.Errorf("old critique read back as %+v", o)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Later critiques get later ids.
	c := &Critique{Policy: a, Text: "again", Level: "dense"}
	if err := s.Update(func(tx *Tx) error { return tx.AddCritique(c) }); err != nil || c.ID != 3 {
		t.Fatalf("id %d, error %v", c.ID, err)
	}
}
