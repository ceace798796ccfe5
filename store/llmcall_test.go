package store

import (
	"errors"
	"testing"
)

func TestLLMCallByKey(t *testing.T) {
	s := newStore(t)
	calls := []*LLMCall{
		{Run: "run-1", Key: "k1", Error: "503 after 5 attempts"}, // failed: never an answer
		{Run: "run-1", Key: "k1", Answer: "first"},
		{Run: "run-1", Key: "k1", Answer: "second"}, // recorded again: the first stays the answer
		{Run: "run-2", Key: "k1", Answer: "other run"},
		{Run: "run-1", Answer: "no key"},
	}
	err := s.Update(func(tx *Tx) error {
		for _, c := range calls {
			if err := tx.AddLLMCall(c); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		run, key, want string
	}{
		{"run-1", "k1", "first"},
		{"run-2", "k1", "other run"},
		{"run-3", "k1", ""},
		{"run-1", "k2", ""},
		{"run-1", "", ""},
	} {
		err := s.View(func(tx *Tx) error {
			c, err := tx.LLMCallByKey(tc.run, tc.key)
			if tc.want == "" {
				if !errors.Is(err, ErrNotFound) {
					t.Errorf("%s/%s: got %+v, %v; want ErrNotFound", tc.run, tc.key, c, err)
				}
				return nil
			}
			if err != nil || c.Answer != tc.want {
				t.Errorf("%s/%s: got %+v, %v; want answer %q", tc.run, tc.key, c, err, tc.want)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if problems, err := s.Check(); err != nil || len(problems) > 0 {
		t.Fatalf("check: %v %v", problems, err)
	}
}
