package sandbox

import (
	"context"
	"errors"
	"go/parser"
	"go/token"
	"go/types"
	"slices"
	"strings"
	"testing"

	"policyevolve/envs"
	"policyevolve/envs/ssd"
	"policyevolve/envs/ssd/worker"
)

// TestForeignVariables: every exported variable of every allowed package,
// as the type checker (native backend) and the interpreter's symbol table
// (yaegi) know them, is restored by workers before every episode, and a
// policy that assigns it, changes it or takes its address is refused.
func TestForeignVariables(t *testing.T) {
	loadTypeEnv()
	if typeEnv.err != nil {
		t.Skip(typeEnv.err)
	}
	var native, yaegi []string
	for _, p := range AllowedImports {
		if p == "ssd" {
			continue
		}
		pkg, err := typeEnv.std.Import(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range pkg.Scope().Names() {
			if v, ok := pkg.Scope().Lookup(n).(*types.Var); ok && v.Exported() {
				native = append(native, pkg.Name()+"."+n)
			}
		}
	}
	for _, n := range typeEnv.ssd.Scope().Names() {
		if v, ok := typeEnv.ssd.Scope().Lookup(n).(*types.Var); ok && v.Exported() {
			native = append(native, "ssd."+n)
		}
	}
	for key, syms := range yaegiExports() {
		for n, v := range syms {
			if v.CanSet() {
				yaegi = append(yaegi, key[strings.LastIndexByte(key, '/')+1:]+"."+n)
			}
		}
	}
	restored := worker.StdVars()
	for _, l := range [][]string{native, yaegi, restored} {
		slices.Sort(l)
	}
	if !slices.Equal(native, restored) || !slices.Equal(yaegi, restored) {
		t.Fatalf("variables: %v (type checker), %v (yaegi), %v restored by workers", native, yaegi, restored)
	}
	for _, name := range native {
		pkg, _, _ := strings.Cut(name, ".")
		head := "package policy\n\nimport (\n\t\"" + pkg + "\"\n\t\"ssd\"\n)\n\n"
		for _, body := range []string{
			name + " = nil", name + ", _ = nil, 0", "p := &" + name + "\n\t_ = p", "x := 0\n\t" + name + " = " + name + "\n\t_ = x",
		} {
			src := head + "func Policy(v *ssd.View, agent int) int {\n\t" + body + "\n\treturn 0\n}\n"
			_, err := Validate([]byte(src))
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), name+" is a variable of another package") {
				t.Errorf("%q: %v, want it refused", body, err)
			}
		}
		// Reading is allowed.
		src := head + "func Policy(v *ssd.View, agent int) int {\n\tif " + name + " == nil {\n\t\treturn 1\n\t}\n\treturn 0\n}\n"
		if _, err := Validate([]byte(src)); err != nil {
			t.Errorf("reading %s: %v", name, err)
		}
	}
}

// TestForeignWritesOnTheSyntax: without type information the rule holds
// on the syntax, and a local variable named like an import is the
// policy's own.
func TestForeignWritesOnTheSyntax(t *testing.T) {
	check := func(src string) []Issue {
		v := &validation{src: []byte(src), fset: token.NewFileSet()}
		f, err := parser.ParseFile(v.fset, PolicyFileName, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		v.checkForeignWrites(f, nil)
		return v.issues
	}
	if is := check("package policy\n\nimport \"strconv\"\n\nfunc f() {\n\tstrconv.ErrRange = nil\n\t(strconv.ErrSyntax) = nil\n}\n"); len(is) != 2 || is[0].Line != 6 || is[1].Line != 7 {
		t.Errorf("issues %v, want lines 6 and 7", is)
	}
	if is := check("package policy\n\nimport \"strconv\"\n\nfunc f() {\n\tstrconv := struct{ ErrRange error }{}\n\tstrconv.ErrRange = nil\n}\n"); len(is) != 0 {
		t.Errorf("a local variable: %v", is)
	}
}

// countingPolicy counts the episodes its worker played in
// strconv.ErrRange, and stands still from the second on: what a policy
// could do when a worker's episodes shared the standard library's
// variables (seed 1 scored 2.18 after seed 0, 2.58 alone).
const countingPolicy = `package policy

import (
	"errors"
	"ssd"
	"strconv"
)

var seen bool

func Policy(v *ssd.View, agent int) int {
	if !seen {
		seen = true
		n, _ := strconv.Atoi(strconv.ErrRange.Error())
		strconv.ErrRange = errors.New(strconv.Itoa(n + 1))
	}
	n, _ := strconv.Atoi(strconv.ErrRange.Error())
	if n > 1 {
		return ssd.Stand
	}
	return v.GreedyAction(agent)
}
`

// TestEpisodesDoNotShareTheStandardLibrary: the episode-counting policy is
// refused at admission; and behind that rule, a worker restores the
// variables before every episode: compiled without the rule, the policy
// plays seed 1 after seed 0, in the same worker, exactly as seed 1 alone,
// on both backends.
func TestEpisodesDoNotShareTheStandardLibrary(t *testing.T) {
	if _, err := Validate([]byte(countingPolicy)); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "15:3: strconv.ErrRange is a variable") {
		t.Fatalf("admission: %v, want the assignment refused", err)
	}
	m, _ := envs.BuiltinMap(ssd.Gathering, "small")
	cfg := envs.Config{Map: m, Agents: 2, MaxSteps: 100}
	for _, be := range backends {
		t.Run(string(be), func(t *testing.T) {
			sb := newSandbox(t, be)
			alone := compileUnchecked(t, sb, countingPolicy)
			want, err := alone.SelfPlay(context.Background(), cfg, envs.Options{Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			p := compileUnchecked(t, sb, countingPolicy)
			if _, err := p.SelfPlay(context.Background(), cfg, envs.Options{Seed: 0}); err != nil {
				t.Fatal(err)
			}
			if len(p.idle) != 1 {
				t.Fatalf("%d idle workers after the first episode, want 1 (to play the second)", len(p.idle))
			}
			got, err := p.SelfPlay(context.Background(), cfg, envs.Options{Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.Returns, want.Returns) {
				t.Fatalf("seed 1 after seed 0: returns %v; alone: %v", got.Returns, want.Returns)
			}
		})
	}
}

// compileUnchecked is Compile without the policy rules (the source is
// type-checked only): to test what stands behind them.
func compileUnchecked(t *testing.T, sb *Sandbox, src string) *Program {
	t.Helper()
	c, err := recheck([]byte(src), SourceID([]byte(src)))
	if err != nil {
		t.Fatal(err)
	}
	r, reset, err := withReset(c)
	if err != nil {
		t.Fatal(err)
	}
	prep := &prepared{id: c.ID, source: c.Source, reset: reset, reusable: reset || !hasState(c)}
	p := &Program{ID: c.ID, Source: c.Source, Backend: sb.backend, sb: sb, reusable: prep.reusable}
	switch sb.backend {
	case Native:
		if prep.code, err = nativeSource(r); err == nil {
			p.binary, err = sb.build(context.Background(), prep)
		}
	case Yaegi:
		p.code, err = rewriteForYaegi(r)
	}
	if err != nil {
		t.Fatal(err)
	}
	keepForClose(p)
	t.Cleanup(p.Close)
	return p
}
