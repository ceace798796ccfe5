package sandbox

import (
	"context"
	"errors"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"policyevolve/sandbox/difftest"
)

// subsetRows used by a source under the yaegi rewrite, and whether the
// rewrite refused it.
func rowsOf(t testing.TB, src []byte) (map[rowID]int, error) {
	t.Helper()
	c, err := recheck(src, "rows")
	if err != nil {
		t.Fatalf("%v\n%s", err, numbered(src))
	}
	// The rows of the source as written (withReset renames init
	// functions), then those of what yaegi is given.
	rows := map[rowID]int{}
	(&rewriter{c: c, helperIdx: map[string]string{}, rowsUsed: rows}).allowList()
	if c, _, err = withReset(c); err != nil {
		t.Fatal(err)
	}
	rw := &rewriter{c: c, helperIdx: map[string]string{}, rowsUsed: rows}
	rw.collect()
	if len(rw.issues) > 0 {
		return rw.rowsUsed, &ValidationError{File: PolicyFileName, Issues: rw.issues}
	}
	return rw.rowsUsed, nil
}

// evidenceSeeds are the generated programs whose agreeing entry
// functions count as evidence; the seed corpus of FuzzAgree and the
// sweeps compare programs of the same generator on both backends.
const evidenceSeeds = 20

// TestSubsetEvidence: every allowed row of the subset is used by probes
// that agree on both backends (testdata/yaegi, compared by
// TestYaegiProbes) or by generated programs whose entry functions the
// yaegi backend accepts (compared by FuzzAgree). A row nothing
// exercises has no evidence and must not be allowed.
func TestSubsetEvidence(t *testing.T) {
	used := map[rowID]map[string]bool{}
	note := func(rows map[rowID]int, from string) {
		for id := range rows {
			if used[id] == nil {
				used[id] = map[string]bool{}
			}
			used[id][from] = true
		}
	}
	paths, _ := filepath.Glob(filepath.Join("testdata", "yaegi", "*.go"))
	for _, p := range paths {
		pf := readProbes(t, p)
		if pf.refused != "" {
			continue
		}
		src := pf.src
		// Leave out the probes that are refused: they are evidence of
		// the refusal only.
		for _, pr := range pf.probes {
			if pr.refused != "" {
				src = blankLines(src, pr.first, pr.last)
			}
		}
		rows, err := rowsOf(t, src)
		if err != nil {
			t.Fatalf("%s: the probes that must agree are refused: %v", p, err)
		}
		note(rows, "probes")
	}
	for seed := uint64(0); seed < evidenceSeeds; seed++ {
		prog := difftest.Generate(seed, agreeConfig)
		for i := range prog.Entries {
			src, _ := prog.Source([]int{i})
			rows, err := rowsOf(t, src)
			if err == nil {
				note(rows, "generated")
			}
		}
	}
	for _, r := range subsetRows {
		if r.Allowed && len(used[r.ID]) == 0 {
			t.Errorf("row %s (%s) is allowed but no probe or generated program that agrees uses it", r.ID, r.Construct)
		}
	}
	if testing.Verbose() {
		for _, r := range subsetRows {
			if r.Allowed {
				var from []string
				for f := range used[r.ID] {
					from = append(from, f)
				}
				sort.Strings(from)
				t.Logf("%-4s %-10s %s", r.ID, strings.Join(from, "+"), r.Construct)
			}
		}
	}
}

// subsetDoc is the page whose table lists the subset.
const subsetDoc = "../docs/yaegi.md"

// TestSubsetDocumented: the docs' table of the subset lists every
// row, with its construct.
func TestSubsetDocumented(t *testing.T) {
	doc, err := os.ReadFile(subsetDoc)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range subsetRows {
		line := "| " + string(r.ID) + " | " + strings.ReplaceAll(r.Construct, "|", `\|`) + " |"
		if !strings.Contains(string(doc), line) {
			t.Errorf("%s does not list row %s as %q", subsetDoc, r.ID, line)
		}
	}
}

// TestSubsetRefusals: constructs outside the subset are refused with
// their row named and the advice to run the policy on the native
// backend; those no machine agrees on are refused on every backend.
func TestSubsetRefusals(t *testing.T) {
	for _, tc := range []struct {
		name, decls, body string
		row               rowID
		both              bool
	}{
		{"generic function", "func first[T any](xs []T) T { return xs[0] }", "return first([]int{1})", rowGeneric, false},
		{"generic type", "type box[T any] struct{ v T }", "b := box[int]{1}; return b.v", rowGeneric, false},
		{"alias", "type A = int", "var a A = 1; return a", rowAlias, false},
		{"complex", "", "c := complex(1, 2); return int(real(c))", rowComplex, false},
		{"ambiguous assertion", "type M int", "var x any = M(1); if _, ok := x.(int); ok { return 1 }; return 0", rowAssertAmbig, false},
		{"ambiguous type switch", "type M int", "var x any = M(1); switch x.(type) { case int: return 1 }; return 0", rowTypeSwitchBad, false},
		{"interface field ==", "type B struct{ V any }", "return len(fmt(B{1} == B{2}))", rowCompareIface, false},
		{"interface field key", "type B struct{ V any }", "m := map[B]int{}; return len(m)", rowMapKeyIface, false},
		{"interface field switch", "type B struct{ V any }", "switch (B{1}) { case B{int8(1)}: return 1 }; return 0", rowCompareIface, false},
		{"zero-size pointers", "type Z struct{}", "a, b := &Z{}, &Z{}; if a == b { return 1 }; return 0", rowCompareZero, false},
		{"slice to array", "", "s := []int{1, 2}; a := [2]int(s); return a[0]", rowConvOther, false},
		{"print", "", "println(1); return 0", rowBuiltinOther, false},
		{"yaegi lacks it", "", `_ = strings.Lines; return 0`, rowStdMissing, false},
		{"math.Exp", "", "return int(math.Exp(1))", rowArchMath, true},
		{"math.Pow fraction", "", "return int(math.Pow(2, 0.3))", rowArchMath, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := "package policy\n\nimport (\n\t\"math\"\n\t\"ssd\"\n\t\"strings\"\n)\n\nvar _ = math.Pi\nvar _ = strings.ToLower\n\n" +
				"func fmt(b bool) string { if b { return \"t\" }; return \"\" }\n\n" + tc.decls +
				"\n\nfunc f() int {\n\t" + tc.body + "\n}\n\nfunc Policy(v *ssd.View, agent int) int { return f() % 1 }\n"
			c, err := Validate([]byte(src))
			if err != nil {
				t.Fatalf("invalid test policy: %v\n%s", err, src)
			}
			_, err = rewriteForYaegi(c)
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("yaegi: accepted, want a refusal under row %s", tc.row)
			}
			want := "(subset row " + string(tc.row) + ")"
			found := false
			for _, is := range ve.Issues {
				if strings.Contains(is.Msg, want) {
					found = true
					advice := strings.Contains(is.Msg, "run it on the native backend")
					if advice == tc.both || !strings.HasPrefix(is.Msg, refusalPrefix) && !strings.HasPrefix(is.Msg, bothPrefix) || is.Line == 0 {
						t.Errorf("refusal %q (line %d): want the row, a line and the native backend's advice only for yaegi's own rows", is.Msg, is.Line)
					}
				}
			}
			if !found {
				t.Fatalf("refused with %v, want %s", err, want)
			}
			_, nerr := nativeSource(c)
			if tc.both != (nerr != nil) {
				t.Errorf("native backend: %v, want a refusal: %v", nerr, tc.both)
			}
		})
	}
}

// TestReflectImporterMatchesToolchain: without a toolchain, type
// information comes from the interpreter's symbol table; the rewrite
// for yaegi of the examples and the probe files is then byte for byte
// what it is with the toolchain's.
func TestReflectImporterMatchesToolchain(t *testing.T) {
	ri := newReflectImporter()
	ssdPkg, err := checkSSD(ri)
	if err != nil {
		t.Fatalf("ssd against the symbol table: %v", err)
	}
	paths, _ := filepath.Glob(filepath.Join("..", "examples", "policies", "*.go"))
	more, _ := filepath.Glob(filepath.Join("testdata", "yaegi", "*.go"))
	paths = append(paths, more...)
	if len(paths) < 10 {
		t.Fatalf("only %d sources", len(paths))
	}
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		want, werr := rewriteWith(t, src, nil, nil)
		got, gerr := rewriteWith(t, src, ri, ssdPkg)
		if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
			t.Errorf("%s: toolchain: %v; symbol table: %v", p, werr, gerr)
			continue
		}
		if string(want) != string(got) {
			t.Errorf("%s: the rewrites differ", p)
		}
	}
}

// rewriteWith type-checks src with the importer given (nil: the
// toolchain's) and rewrites it for yaegi.
func rewriteWith(t *testing.T, src []byte, std *reflectImporter, ssdPkg *types.Package) ([]byte, error) {
	t.Helper()
	if std == nil {
		c, err := recheck(src, "x")
		if err != nil {
			t.Fatal(err)
		}
		return rewriteForYaegi(c)
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, PolicyFileName, src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	typeEnv.mu.Lock()
	pkg, info, err := typeCheckWith(policyImporter{std, ssdPkg}, fset, f, nil)
	typeEnv.mu.Unlock()
	if err != nil {
		t.Fatalf("symbol table: %v", err)
	}
	return rewriteForYaegi(&Checked{Source: src, ID: "x", Fset: fset, File: f, Types: pkg, Info: info})
}

// TestInterpreterFailureIsRefusal: a source the interpreter fails to
// load (here made so by the test's hook, standing in for an interpreter
// bug the subset does not know) is refused with the construct and its
// line when yaegi gives one, never with yaegi's raw message alone.
func TestInterpreterFailureIsRefusal(t *testing.T) {
	if raceEnabled {
		t.Skip("the yaegi worker cannot start under the race detector")
	}
	line := strconv.Itoa(strings.Count(okPolicy[:strings.Index(okPolicy, "return v.GreedyAction")], "\n") + 1)
	for _, tc := range []struct {
		name, edit string
		want       []string
	}{
		// A range over an integer variable: a compile panic in yaegi,
		// with no position.
		{"panic", "n := 2; for range n {}; ", []string{"the interpreter failed to load the policy"}},
		// A name yaegi cannot resolve: an error with a position.
		{"error", "x := zzz; _ = x; ", []string{"the interpreter failed to load the function Policy at line " + line}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rewriteHook = func(b []byte) []byte {
				return []byte(strings.Replace(string(b), "return v.GreedyAction(agent)", tc.edit+"return v.GreedyAction(agent)", 1))
			}
			defer func() { rewriteHook = nil }()
			sb := newSandbox(t, Yaegi)
			p, err := sb.Compile(context.Background(), []byte(okPolicy))
			if err == nil {
				defer p.Close()
				_, err = p.SmokeTest(context.Background(), 0)
			}
			if err == nil {
				t.Fatal("the interpreter loaded it")
			}
			msg := err.Error()
			for _, want := range append(tc.want, refusalPrefix, "(subset row X3)", "run it on the native backend") {
				if !strings.Contains(msg, want) {
					t.Errorf("%q does not say %q", msg, want)
				}
			}
		})
	}
}

// TestExamplesInYaegiSubset: every example policy stays inside the
// yaegi backend's subset (the fallback where there is no Go toolchain).
func TestExamplesInYaegiSubset(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "examples", "policies", "*.go"))
	if err != nil || len(files) < 4 {
		t.Fatalf("examples: %v %v", files, err)
	}
	sb := newSandbox(t, Yaegi)
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		p, err := sb.Compile(context.Background(), src)
		if err != nil {
			t.Errorf("%s: the yaegi backend refuses it: %v", f, err)
			continue
		}
		p.Close()
	}
}
