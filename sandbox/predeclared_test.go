package sandbox

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestPolicyMayDeclarePredeclaredNames: valid Go that declares its own
// new (or hides another predeclared name) is admitted when no code the
// sandbox adds needs the builtin, and otherwise refused with a message at
// the policy's own declaration, never at a line the sandbox generated.
func TestPolicyMayDeclarePredeclaredNames(t *testing.T) {
	// A package-level func new and a zero-valued variable, which the
	// generated reset zeroes: that reset used new(T), and the policy was
	// refused with "policy.go:22:14: pt (type) is not an expression".
	ownNew := "package policy\n\nimport \"ssd\"\n\ntype pt struct{ x, y int }\n\nfunc new(x, y int) pt { return pt{x, y} }\n\nvar home pt\n\n" +
		"func Policy(v *ssd.View, agent int) int {\n\tif home.x == 0 {\n\t\thome = new(1, 2)\n\t}\n\treturn v.GreedyAction(agent)\n}\n"
	for _, be := range []Backend{Native, Yaegi} {
		if _, err := prepare([]byte(ownNew), be); err != nil {
			t.Errorf("%s: own func new: %v", be, err)
		}
	}
	// A parameter named new in a function with a named result: yaegi's
	// rewrite zeroes the result with new(int), which the parameter hides.
	param := "package policy\n\nimport \"ssd\"\n\nfunc pick(new int) (r int) {\n\tif new > 3 {\n\t\tr = new % 8\n\t}\n\treturn\n}\n\n" +
		"func Policy(v *ssd.View, agent int) int { return pick(agent) }\n"
	if _, err := prepare([]byte(param), Native); err != nil {
		t.Errorf("native: a parameter named new: %v", err)
	}
	_, err := prepare([]byte(param), Yaegi)
	var ve *ValidationError
	if !errors.As(err, &ve) || len(ve.Issues) != 1 || ve.Issues[0].Line != 5 || ve.Issues[0].Col != 11 ||
		!strings.Contains(ve.Issues[0].Msg, "this variable named new hides Go's predeclared new") {
		t.Errorf("yaegi: a parameter named new: %v, want it refused at 5:11", err)
	}
	// A local variable named string, converted to []byte: the native
	// backend's conversion helper no longer needs string().
	local := "package policy\n\nimport \"ssd\"\n\nfunc Policy(v *ssd.View, agent int) int {\n\tstring := \"abc\"\n\tb := []byte(string)\n\treturn int(b[agent%3]) % 8\n}\n"
	if _, err := newSandbox(t, Native).Compile(context.Background(), []byte(local)); err != nil {
		t.Errorf("native: a local named string: %v", err)
	}
}

// TestCompileErrorsInAddedCode: a compiler error on a line past the
// policy's own is reported as the added code's, at the policy's first
// line, not at a line number the author never wrote.
func TestCompileErrorsInAddedCode(t *testing.T) {
	src := []byte("package policy\n\nimport \"ssd\"\n\nfunc Policy(v *ssd.View, agent int) int { return 0 }\n")
	out := []byte("# ssd/cmd/worker\ncmd/worker/policy.go:5:49: x declared and not used\ncmd/worker/policy.go:12:3: undefined: y\n")
	err := compileIssues(out, src)
	var ve *ValidationError
	if !errors.As(err, &ve) || len(ve.Issues) != 2 {
		t.Fatalf("%v", err)
	}
	if is := ve.Issues[0]; is.Line != 5 || is.Col != 49 || is.Snippet == "" {
		t.Errorf("the policy's own line: %+v", is)
	}
	if is := ve.Issues[1]; is.Line != 1 || is.Col != 1 || !strings.Contains(is.Msg, "the code the sandbox adds to this policy does not build: undefined: y") {
		t.Errorf("an added line: %+v", is)
	}
}
