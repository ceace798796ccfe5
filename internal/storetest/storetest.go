package storetest

import (
	"testing"

	"policyevolve/store"
)

// Open opens (creating) the store at path; when the test ends, store.Check
// must find no problem.
func Open(t testing.TB, path string) *store.Store {
	t.Helper()
	s, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		problems, err := s.Check()
		if err != nil {
			t.Error(err)
		}
		for _, p := range problems {
			t.Errorf("store check: %s", p)
		}
	})
	return s
}
