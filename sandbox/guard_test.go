package sandbox

import (
	"errors"
	"strings"
	"testing"
)

// genericArrays are valid policies whose arrays have a type parameter
// for element: go/types' Sizeof asserts on them, and the size check
// called it, crashing the host (exit 2) in every command that admits
// source.
var genericArrays = map[string]string{
	"parameter": "package policy\n\nimport \"ssd\"\n\nfunc first[T any](xs [2]T) T { return xs[0] }\n\n" +
		"func Policy(v *ssd.View, agent int) int { return first([2]int{agent % 8, 1}) }\n",
	"field": "package policy\n\nimport \"ssd\"\n\ntype ring[T any] struct {\n\tbuf [3]T\n\tn   int\n}\n\n" +
		"func (r *ring[T]) push(x T) { r.buf[r.n%3] = x; r.n++ }\n\n" +
		"func Policy(v *ssd.View, agent int) int {\n\tvar r ring[int]\n\tr.push(agent)\n\treturn r.buf[0] % 8\n}\n",
	"local type": "package policy\n\nimport \"ssd\"\n\nfunc keep[T any](x T) T {\n\ttype pair struct{ a [4]T }\n\tvar p pair\n\tp.a[1] = x\n\treturn p.a[1]\n}\n\n" +
		"func Policy(v *ssd.View, agent int) int { return keep(agent) % 8 }\n",
}

// TestGenericArraysDoNotCrashTheHost: the three shapes the red team found
// are checked (sizes computed without asserting) and prepared for both
// backends, and a generic array type over the size limit is still
// refused once instantiated.
func TestGenericArraysDoNotCrashTheHost(t *testing.T) {
	for name, src := range genericArrays {
		t.Run(name, func(t *testing.T) {
			if _, err := Validate([]byte(src)); err != nil {
				t.Fatalf("validate: %v", err)
			}
			if _, err := prepare([]byte(src), Native); err != nil {
				t.Errorf("native: %v", err)
			}
			// Generics are outside the yaegi backend's subset: refused,
			// with the row named, not a crash.
			_, err := prepare([]byte(src), Yaegi)
			var ve *ValidationError
			if err != nil && (!errors.As(err, &ve) || !strings.Contains(err.Error(), "subset row")) {
				t.Errorf("yaegi: %v, want admitted or refused under a subset row", err)
			}
		})
	}
	big := "package policy\n\nimport \"ssd\"\n\ntype grid[T any] struct{ cells [1 << 20]T }\n\nvar g grid[[1 << 10]int]\n\n" +
		"func Policy(v *ssd.View, agent int) int { return g.cells[0][0] }\n"
	if _, err := Validate([]byte(big)); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "is larger than") {
		t.Errorf("an instantiated generic array of 8 GiB: %v, want it refused for its size", err)
	}
}

// TestPanicInAdmissionRefusesThePolicy: a panic in any stage of the
// analysis (the checker, the generated reset, the rewrite for either
// backend) refuses that policy with a message naming the stage, and the
// next policy is admitted normally. The stages run in the analysing child
// (see analyse), which the hook cannot reach: they are called here as the
// child calls them.
func TestPanicInAdmissionRefusesThePolicy(t *testing.T) {
	src := []byte(policyWith("return v.GreedyAction(agent)"))
	for _, c := range []struct {
		stage string
		be    Backend
		want  string
	}{
		{"checker", Native, "the sandbox's checker failed on this source (boom in checker"},
		{"reset", Native, "the sandbox's preparation for the native backend failed on this source (boom in reset"},
		{"native", Native, "the sandbox's preparation for the native backend failed on this source (boom in native"},
		{"yaegi", Yaegi, "the sandbox's preparation for the yaegi backend failed on this source (boom in yaegi"},
	} {
		t.Run(c.stage, func(t *testing.T) {
			stageHook = func(stage string) {
				if stage == c.stage {
					panic("boom in " + stage)
				}
			}
			_, err := prepare(src, c.be)
			stageHook = nil
			var ve *ValidationError
			if !errors.As(err, &ve) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want a refusal containing %q", err, c.want)
			}
			if !strings.Contains(err.Error(), "policyevolve/sandbox.TestPanicInAdmissionRefusesThePolicy") {
				t.Errorf("the refusal does not name the function that panicked: %v", err)
			}
			if _, err := prepare(src, c.be); err != nil {
				t.Fatalf("the next admission: %v", err)
			}
		})
	}
}
