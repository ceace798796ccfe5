package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const okPolicy = `package policy

import "ssd"

func Policy(v *ssd.View, agent int) int { return v.GreedyAction(agent) }
`

func TestValidateExamples(t *testing.T) {
	files, _ := filepath.Glob("../examples/policies/*.go")
	if len(files) < 4 {
		t.Fatalf("found %d example policies", len(files))
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		c, err := Validate(src)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if c.Types == nil || c.ID != SourceID(src) {
			t.Errorf("%s: no type information or wrong id", f)
		}
	}
}

func TestValidateRejects(t *testing.T) {
	for _, c := range []struct {
		name string
		src  string
		want string // "line:col: message" of one issue
	}{
		{"empty", "", "1:1: empty source"},
		{"syntax", "package policy\n\nfunc Policy(v *ssd.View, agent int) int {\n\treturn 1 +\n}\n", "5:1: syntax error"},
		{"package", strings.Replace(okPolicy, "package policy", "package main", 1), "1:9: package is main; a policy must be in package policy"},
		{"os", "package policy\n\nimport \"os\"\n", `3:8: import "os" is not allowed; a policy may import only ssd, math, math/bits, sort, strings, strconv, errors, container/heap`},
		{"net", "package policy\n\nimport (\n\t\"ssd\"\n\t\"net\"\n)\n", `5:2: import "net" is not allowed`},
		{"os/exec", "package policy\n\nimport x \"os/exec\"\n", `3:8: import "os/exec" is not allowed`},
		{"unsafe", "package policy\n\nimport \"unsafe\"\n", `3:8: import "unsafe" is not allowed`},
		{"reflect", "package policy\n\nimport \"reflect\"\n", `3:8: import "reflect" is not allowed`},
		{"syscall", "package policy\n\nimport \"syscall\"\n", `3:8: import "syscall" is not allowed`},
		{"fmt", "package policy\n\nimport \"fmt\"\n", `3:8: import "fmt" is not allowed`},
		{"cgo", "package policy\n\n// #include <stdio.h>\nimport \"C\"\n", `4:8: cgo (import "C") is not allowed in a policy`},
		{"dot import", "package policy\n\nimport . \"math\"\n", `3:8: dot import of "math" is not allowed`},
		{"linkname", "package policy\n\nimport _ \"math\"\n\n//go:linkname now runtime.nanotime\nfunc now() int64\n", "5:1: compiler directive go:linkname is not allowed in a policy"},
		{"embed", "package policy\n\n//go:embed secret.txt\nvar s string\n", "3:1: compiler directive go:embed is not allowed"},
		{"line directive", "package policy\n\n//line other.go:1\nvar s string\n", "3:1: line directives are not allowed"},
		{"go statement", "package policy\n\nimport \"ssd\"\n\nfunc Policy(v *ssd.View, agent int) int {\n\tgo func() {}()\n\treturn 0\n}\n", "6:2: go statements are not allowed"},
		{"channel", "package policy\n\nimport \"ssd\"\n\nvar c = make(chan int)\n\nfunc Policy(v *ssd.View, agent int) int { return 0 }\n", "5:14: channels are not allowed"},
		{"select", "package policy\n\nimport \"ssd\"\n\nfunc Policy(v *ssd.View, agent int) int {\n\tselect {}\n}\n", "6:2: select is not allowed"},
		{"no policy", "package policy\n\nfunc F() {}\n", "1:1: no function Policy"},
		{"wrong signature", "package policy\n\nimport \"ssd\"\n\nfunc Policy(v *ssd.View) int { return 0 }\n", "5:6: Policy has type func(v *ssd.View) int; want func Policy(v *ssd.View, agent int) int"},
		{"policy variable", "package policy\n\nimport \"ssd\"\n\nvar Policy = func(v *ssd.View, agent int) int { return 0 }\n", "5:5: Policy is a variable; it must be declared as func Policy"},
		{"type error", "package policy\n\nimport \"ssd\"\n\nfunc Policy(v *ssd.View, agent int) int { return v.Teleport(agent) }\n", "5:52: v.Teleport undefined (type *ssd.View has no field or method Teleport)"},
		{"unexported field", "package policy\n\nimport \"ssd\"\n\nfunc Policy(v *ssd.View, agent int) int {\n\tv.st.Pos[agent] = v.ApplePos(0)\n\treturn 7\n}\n", "6:4: v.st undefined"},
		{"main", okPolicy + "\nfunc main() {}\n", "7:6: the name main is reserved"},
		{"build constraint", "// +build ignore\n\npackage policy\n", "1:1: build constraints (+build) are not allowed"},
		{"yaegi tags", "package policy\n\n//yaegi:tags x\n", "3:1: interpreter directives (//yaegi:) are not allowed"},
		{"constant string bomb", "package policy\n\nconst s0 = \"xxxxxxxx\"\n" + func() string {
			var b strings.Builder
			for i := 1; i <= 26; i++ {
				fmt.Fprintf(&b, "const s%d = s%d + s%d\n", i, i-1, i-1)
			}
			return b.String()
		}(), "20:13: this constant expression could build a string of up to 1310720 bytes"},
		{"huge array", okPolicy + "\nvar big [1 << 31]byte\n", "7:5: type [2147483648]byte is larger than"},
		{"huge literal", okPolicy + "\nvar big = []byte{1 << 30: 1}\n", "7:18: composite literal index 1073741824 is beyond"},
		{"reserved prefix", okPolicy + "\nvar __pe_x int\n", "7:5: names starting with __pe_ are reserved"},
		{"bidi override in a comment", okPolicy + "\n// is admin\u202e \u2066// not\u2069\u2066\nvar x int\n", "7:12: bidirectional control character U+202E is not allowed"},
		{"bidi isolate in a string", okPolicy + "\nvar s = \"a\u2067b\"\n", "7:11: bidirectional control character U+2067 is not allowed"},
		{"foreign variable", "package policy\n\nimport (\n\t\"errors\"\n\t\"ssd\"\n)\n\nfunc Policy(v *ssd.View, agent int) int {\n\terrors.ErrUnsupported = nil\n\treturn 0\n}\n",
			"9:2: errors.ErrUnsupported is a variable of another package: a policy may read it but not assign it"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Validate([]byte(c.src))
			var ve *ValidationError
			if !errors.As(err, &ve) || !errors.Is(err, ErrInvalid) {
				t.Fatalf("got %v, want a ValidationError", err)
			}
			found := false
			for _, is := range ve.Issues {
				if strings.HasPrefix(is.String(), c.want) {
					found = true
				}
			}
			if !found {
				t.Fatalf("issues:\n%v\nwant one starting %q", err, c.want)
			}
			if !strings.HasPrefix(err.Error(), "policy.go:") {
				t.Errorf("error %q does not name the file", err)
			}
		})
	}
}

func TestValidateReportsAllProblemsWithSnippets(t *testing.T) {
	src := "package policy\n\nimport (\n\t\"os\"\n\t\"net\"\n)\n\nfunc Policy() {\n\tgo os.Exit(1)\n}\n"
	_, err := Validate([]byte(src))
	var ve *ValidationError
	if !errors.As(err, &ve) || len(ve.Issues) < 3 {
		t.Fatalf("got %v, want at least 3 issues", err)
	}
	if ve.Issues[0].Line != 4 || ve.Issues[0].Snippet != `"os"` {
		t.Errorf("first issue %+v, want line 4 with its snippet", ve.Issues[0])
	}
	if !strings.Contains(err.Error(), "\n\tgo os.Exit(1)") {
		t.Errorf("the message lacks the offending line:\n%v", err)
	}
}

func TestValidateSizeLimit(t *testing.T) {
	src := okPolicy + "\n// " + strings.Repeat("x", MaxSourceSize) + "\n"
	if _, err := Validate([]byte(src)); err == nil || !strings.Contains(err.Error(), "the limit is") {
		t.Fatalf("got %v", err)
	}
}

func FuzzValidate(f *testing.F) {
	f.Add(okPolicy)
	f.Add("package policy\nimport \"C\"\n")
	f.Add("package policy\n//go:linkname x y\n")
	for _, name := range []string{"bfs", "coop"} {
		if b, err := os.ReadFile("../examples/policies/" + name + ".go"); err == nil {
			f.Add(string(b))
		}
	}
	f.Fuzz(func(t *testing.T, src string) {
		c, err := Validate([]byte(src))
		if err != nil {
			var ve *ValidationError
			if !errors.As(err, &ve) || len(ve.Issues) == 0 {
				t.Fatalf("error %v is not a ValidationError with issues", err)
			}
			return
		}
		if c.Types == nil || c.Types.Scope().Lookup("Policy") == nil {
			t.Fatal("accepted a source without Policy")
		}
		// Whatever validates must also rewrite for yaegi or be refused
		// with a ValidationError, never fail otherwise.
		if _, err := rewriteForYaegi(c); err != nil {
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("rewrite failed with %v", err)
			}
		}
	})
}

// TestValidateIsCheapOnHostileSources: validation runs in the host, so a
// source built to make it slow or huge must stay cheap (the limits, not
// the timing, are asserted: the issue count is capped, the bomb refused
// before the checker folds it).
func TestValidateIsCheapOnHostileSources(t *testing.T) {
	var b strings.Builder
	b.WriteString("package policy\n\nfunc f() {\n")
	for b.Len() < MaxSourceSize-10 {
		b.WriteString("x\n") // undefined: x, on every line
	}
	b.WriteString("}\n")
	_, err := Validate([]byte(b.String()))
	var ve *ValidationError
	if !errors.As(err, &ve) || len(ve.Issues) != shownIssues+1 || !strings.Contains(ve.Issues[shownIssues].Msg, "more problems") {
		t.Fatalf("got %d issues: %v", len(ve.Issues), err)
	}
}
