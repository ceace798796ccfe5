package main

import (
	"os/exec"
	"testing"
)

// TestShellQuote: a quoted word reads back, through sh, as itself, and
// runs nothing.
func TestShellQuote(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"policyevolve.db", "policyevolve.db"},
		{"/tmp/a-b_c/x.db", "/tmp/a-b_c/x.db"},
		{"x;$(id).db", `'x;$(id).db'`},
		{"my store.db", `'my store.db'`},
		{"it's.db", `'it'\''s.db'`},
		{"`id`", "'`id`'"},
		{"", "''"},
		{"a\nb", "'a\nb'"},
	} {
		got := shellQuote(c.in)
		if got != c.want {
			t.Errorf("shellQuote(%q) = %s, want %s", c.in, got, c.want)
		}
		if sh, err := exec.LookPath("sh"); err == nil {
			out, err := exec.Command(sh, "-c", "printf %s "+got).Output()
			if err != nil || string(out) != c.in {
				t.Errorf("sh read %s as %q (%v), want %q", got, out, err, c.in)
			}
		}
	}
	if got := storeFlag(storeOptions{path: "x;$(id).db"}); got != ` --store 'x;$(id).db'` {
		t.Errorf("storeFlag: %s", got)
	}
}
