package difftest_test

import (
	"bytes"
	"strings"
	"testing"

	"policyevolve/sandbox"
	"policyevolve/sandbox/difftest"
)

// TestGeneratedProgramsAreValid: every generated program, and every
// subset of its entry functions, is a valid policy (it passes the
// sandbox's validation, type checking included); generation is a pure
// function of the seed.
func TestGeneratedProgramsAreValid(t *testing.T) {
	for seed := uint64(0); seed < 4; seed++ {
		p := difftest.Generate(seed, difftest.Config{})
		src, spans := p.Source(nil)
		if _, err := sandbox.Validate(src); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if again, _ := difftest.Generate(seed, difftest.Config{}).Source(nil); !bytes.Equal(src, again) {
			t.Fatalf("seed %d: two generations differ", seed)
		}
		entries := 0
		for _, sp := range spans {
			if sp.Entry >= 0 {
				entries++
			}
		}
		if entries != len(p.Entries) {
			t.Fatalf("seed %d: %d entry spans for %d entries", seed, entries, len(p.Entries))
		}
		// Odd entries alone, and one entry alone.
		var odd []int
		for i := 1; i < len(p.Entries); i += 2 {
			odd = append(odd, i)
		}
		for _, keep := range [][]int{odd, {int(seed) % len(p.Entries)}, {}} {
			sub, _ := p.Source(keep)
			if _, err := sandbox.Validate(sub); err != nil {
				t.Fatalf("seed %d, entries %v: %v", seed, keep, err)
			}
		}
		// The traced variants are valid too, with or without checkpoints
		// (which may make a program too large to run: the diagnosis then
		// does without them), and the checkpoints leave the random
		// choices, hence the entry functions, unchanged.
		cp := difftest.Generate(seed, difftest.Config{Checkpoint: true})
		for _, prog := range []*difftest.Program{p, cp} {
			for _, skip := range []int{difftest.TraceCalls, difftest.TraceChunks, 0} {
				tsrc, tr := prog.TracedSource(nil, 3, 1, skip)
				if len(tsrc) > sandbox.MaxSourceSize && prog == cp {
					continue
				}
				if _, err := sandbox.Validate(tsrc); err != nil {
					t.Fatalf("seed %d, traced (%d): %v", seed, skip, err)
				}
				if len(tr.Lines) == 0 || !strings.Contains(string(tsrc), "panic(") {
					t.Fatalf("seed %d: the traced source has no trace points", seed)
				}
			}
		}
		if len(cp.Entries) != len(p.Entries) || cp.Entries[0].Name != p.Entries[0].Name {
			t.Fatalf("seed %d: checkpointing changed the entries", seed)
		}
	}
}
