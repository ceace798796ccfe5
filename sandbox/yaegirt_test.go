package sandbox

import (
	"context"
	"errors"
	"strings"
	"testing"

	"policyevolve/envs"
	"policyevolve/envs/ssd"
)

// TestYaegiRuntimeErrors: a run-time error of the policy itself (an
// index out of range, a slice out of bounds, a nil function called) is
// reported on the yaegi backend as Go words it, a panic of the policy,
// not as an internal error of the interpreter.
func TestYaegiRuntimeErrors(t *testing.T) {
	if raceEnabled {
		t.Skip("the yaegi worker cannot run under the race detector")
	}
	ctx := context.Background()
	sb := newSandbox(t, Yaegi)
	m, err := envs.BuiltinMap(ssd.Gathering, "small")
	if err != nil {
		t.Fatal(err)
	}
	cfg := envs.Config{Map: m, Agents: 2, MaxSteps: 10}
	for _, tc := range []struct{ name, body, want string }{
		{"slice index", "s := []int{1, 2}\n\treturn s[v.Step()+2]", "index out of range"},
		{"array index", "var a [2]int\n\treturn a[v.Step()+2]", "index out of range"},
		{"string index", "s := \"ab\"\n\treturn int(s[v.Step()+2])", "index out of range"},
		{"slice bounds", "s := []int{1, 2}\n\treturn len(s[1 : v.Step()+3])", "slice bounds out of range"},
		{"nil function", "var f func() int\n\treturn f()", "nil pointer dereference"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := "package policy\n\nimport \"ssd\"\n\nfunc Policy(v *ssd.View, agent int) int {\n\t" + tc.body + "\n}\n"
			p, err := sb.Compile(ctx, []byte(src))
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			_, err = p.SelfPlay(ctx, cfg, envs.Options{Seed: 0})
			var pe *PolicyError
			if !errors.As(err, &pe) || !errors.Is(err, ErrPanic) || !strings.Contains(pe.Detail, tc.want) ||
				strings.Contains(err.Error(), "internal error") || strings.Contains(err.Error(), refusalPrefix) {
				t.Fatalf("got %v, want a panic of the policy saying %q", err, tc.want)
			}
		})
	}
}
