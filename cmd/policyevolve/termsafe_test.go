package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"policyevolve/store"
)

func TestTermSafe(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain text, — and é", "plain text, — and é"},
		{"line\n\tindented", "line\n\tindented"},
		{"\x1b[2J\x1b]0;pwned\a", `\x1b[2J\x1b]0;pwned\x07`},
		{"carriage\rreturn", `carriage\x0dreturn`},
		{"del\x7f", `del\x7f`},
		{"c1 \u009b31m", `c1 \x9b31m`},
		{"bidi \u202eevil\u2066", `bidi \u202eevil\u2066`},
		{"bad utf-8 \xff\xfe", `bad utf-8 \xff\xfe`},
	} {
		if got := termSafe(c.in); got != c.want {
			t.Errorf("termSafe(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestPolicyTextReachesNoTerminalRaw: what a policy wrote (its source,
// its comments) and an error quoting a user's argument are printed with
// their control characters escaped.
func TestPolicyTextReachesNoTerminalRaw(t *testing.T) {
	db := filepath.Join(t.TempDir(), "s.db")
	s, err := store.Open(db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := &store.Policy{Source: "package policy\n\n// \x1b]0;pwned\x07\x1b[2J hello\n"}
	if err := s.Update(func(tx *store.Tx) error { _, err := tx.PutPolicy(p); return err }); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, context.Background(), "pool", "show", p.ID[:12], "--store", db)
	if code != 0 || strings.ContainsRune(out, 0x1b) || strings.ContainsRune(out, 0x07) || !strings.Contains(out, `\x1b]0;pwned\x07\x1b[2J hello`) {
		t.Errorf("pool show: exit %d, %q, %s", code, out, errOut)
	}
	code, _, errOut = runCLI(t, context.Background(), "validate", "--game", "gathering", "/nonexistent/\x1b[2J.go")
	if code == 0 || strings.ContainsRune(errOut, 0x1b) || !strings.Contains(errOut, `/nonexistent/\x1b[2J.go`) {
		t.Errorf("validate: exit %d, %q", code, errOut)
	}
}
