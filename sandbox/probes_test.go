package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"
)

// The probes in testdata/yaegi pin down, one small function each, what
// the yaegi interpreter runs differently from Go: every divergence found
// so far, by hand or by FuzzAgree, and its neighbours. A probe is a
// function P_name() string of a policy source (fmt may be imported, to
// print values). Under the yaegi backend's rewrite it returns what the Go
// compiler makes of it, or, when its doc comment has a line
// "refused: TEXT", the rewrite refuses it with a message containing TEXT
// (or, for a check the rewrite adds, calling it stops with that message).
// A file whose package clause is preceded by "refused: TEXT" is refused
// as a whole. A probe that panics must panic on both.

// probe is one function of a probe file.
type probe struct {
	name    string
	refused string // the expected refusal, "" when it must agree
	first   int    // its first and last line
	last    int
}

type probeFile struct {
	path    string
	src     []byte
	refused string // the whole file's expected refusal
	probes  []probe
}

func readProbes(t *testing.T, path string) *probeFile {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	pf := &probeFile{path: path, src: src, refused: refusedNote(f.Doc)}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Recv != nil || !strings.HasPrefix(fd.Name.Name, "P_") {
			continue
		}
		pf.probes = append(pf.probes, probe{name: fd.Name.Name, refused: refusedNote(fd.Doc),
			first: fset.Position(fd.Pos()).Line, last: fset.Position(fd.End()).Line})
	}
	if len(pf.probes) == 0 {
		t.Fatalf("%s: no probes", path)
	}
	return pf
}

func refusedNote(cg *ast.CommentGroup) string {
	if cg == nil {
		return ""
	}
	for _, l := range strings.Split(cg.Text(), "\n") {
		if s, ok := strings.CutPrefix(strings.TrimSpace(l), "refused: "); ok {
			return s
		}
	}
	return ""
}

// TestYaegiProbes runs every probe on both backends' compilers.
func TestYaegiProbes(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "yaegi", "*.go"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no probe files: %v", err)
	}
	var files []*probeFile
	for _, p := range paths {
		files = append(files, readProbes(t, p))
	}
	native := nativeProbes(t, files)
	for _, pf := range files {
		t.Run(filepath.Base(pf.path), func(t *testing.T) {
			t.Parallel()
			got := yaegiProbes(t, pf)
			for i, p := range pf.probes {
				n, y := native[pf.path][i], got[p.name]
				switch {
				case pf.refused != "":
				case strings.HasPrefix(y, "REFUSED "):
					if p.refused == "" || !strings.Contains(y, p.refused) {
						t.Errorf("%s: refused with %q, want a refusal mentioning %q", p.name, y, p.refused)
					}
				case p.refused != "":
					t.Errorf("%s: yaegi gives %q (Go %q), want a refusal mentioning %q", p.name, y, n, p.refused)
				case strings.HasPrefix(n, "PANIC") && strings.HasPrefix(y, "PANIC"):
				case n != y:
					t.Errorf("%s: yaegi gives %q, Go gives %q", p.name, y, n)
				}
			}
		})
	}
}

// nativeProbes compiles every probe file with the Go toolchain, the way
// the native backend compiles a policy, in one build, and returns what
// each probe returns, in order.
func nativeProbes(t *testing.T, files []*probeFile) map[string][]string {
	t.Helper()
	return nativeProbesFor(t, files, runtime.GOARCH, nil)
}

// nativeProbesFor is nativeProbes for an architecture, the programs run
// by the command runner (an emulator) when it is not nil.
func nativeProbesFor(t *testing.T, files []*probeFile, goarch string, runner []string) map[string][]string {
	t.Helper()
	dir := t.TempDir()
	write := func(rel string, data []byte) {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", []byte(workerModule))
	ssdFiles, err := ssdSourceFiles("ssd")
	if err != nil {
		t.Fatal(err)
	}
	for n, b := range ssdFiles {
		write(n, moduleImports(b))
	}
	for k, pf := range files {
		c, err := recheck(pf.src, pf.path)
		if err != nil {
			t.Fatalf("%s: %v", pf.path, err)
		}
		src, err := nativeSource(c)
		if err != nil {
			t.Fatal(err)
		}
		var m strings.Builder
		m.WriteString("package main\n\nimport " + reservedPrefix + "os \"os\"\n\nfunc main() {\n\tfor _, f := range []func() string{")
		for _, p := range pf.probes {
			m.WriteString(p.name + ", ")
		}
		m.WriteString("} {\n\t\tfunc() {\n\t\t\tdefer func() {\n\t\t\t\tif r := recover(); r != nil {\n\t\t\t\t\t" +
			reservedPrefix + "os.Stdout.WriteString(\"PANIC\\x00\")\n\t\t\t\t}\n\t\t\t}()\n\t\t\t" +
			reservedPrefix + "os.Stdout.WriteString(f() + \"\\x00\")\n\t\t}()\n\t}\n}\n")
		write(fmt.Sprintf("cmd/p%d/policy.go", k), src)
		write(fmt.Sprintf("cmd/p%d/main.go", k), []byte(m.String()))
	}
	bin := filepath.Join(dir, "bin")
	args := append(append([]string{"build", "-trimpath"}, buildFlags(goarch)...), "-o", bin+string(filepath.Separator), "./cmd/...")
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(buildEnv(), "GOARCH="+goarch)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	results := map[string][]string{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for k, pf := range files {
		wg.Add(1)
		go func() {
			defer wg.Done()
			run := append(append([]string{}, runner...), filepath.Join(bin, fmt.Sprintf("p%d", k)))
			out, err := exec.Command(run[0], run[1:]...).Output()
			res := strings.Split(string(out), "\x00")
			mu.Lock()
			defer mu.Unlock()
			if err != nil || len(res) != len(pf.probes)+1 {
				t.Errorf("%s: the native program gave %d results for %d probes: %v", pf.path, len(res)-1, len(pf.probes), err)
				return
			}
			results[pf.path] = res[:len(pf.probes)]
		}()
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	return results
}

// yaegiProbes rewrites a probe file as the yaegi backend does (reset
// function included), leaving out the probes it refuses, interprets it in
// this process and returns what each probe returns, or "REFUSED " and the
// refusal.
func yaegiProbes(t *testing.T, pf *probeFile) map[string]string {
	t.Helper()
	out := map[string]string{}
	src := pf.src
	var code []byte
	for {
		c, err := recheck(src, pf.path)
		if err != nil {
			t.Fatalf("%s (probes refused so far left out): %v", pf.path, err)
		}
		r, _, err := withReset(c)
		if err != nil {
			t.Fatal(err)
		}
		code, err = rewriteForYaegi(r)
		if err == nil {
			break
		}
		var ve *ValidationError
		if !errors.As(err, &ve) {
			t.Fatalf("%s: %v", pf.path, err)
		}
		if pf.refused != "" {
			if !strings.Contains(err.Error(), pf.refused) {
				t.Fatalf("%s: refused with %v, want a refusal mentioning %q", pf.path, err, pf.refused)
			}
			return out
		}
		progress := false
		for _, is := range ve.Issues {
			p := probeAt(pf, is.Line)
			if p == nil {
				t.Fatalf("%s:%d: refused outside any probe: %s", pf.path, is.Line, is.Msg)
			}
			if _, done := out[p.name]; !done {
				out[p.name] = fmt.Sprintf("REFUSED %d:%d: %s", is.Line, is.Col, is.Msg)
				src = blankLines(src, p.first, p.last)
				progress = true
			}
		}
		if !progress {
			t.Fatalf("%s: refusal without effect: %v", pf.path, err)
		}
	}
	if pf.refused != "" {
		t.Fatalf("%s: accepted, want a refusal mentioning %q", pf.path, pf.refused)
	}
	i := newProbeInterp(t)
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("%s: yaegi fails to load it: %v", pf.path, r)
			}
		}()
		if _, err := i.Eval(string(code)); err != nil {
			t.Fatalf("%s: yaegi: %v", pf.path, err)
		}
	}()
	call := func(expr string) string { return probeCall(i, expr) }
	if bytes.Contains(code, []byte("func "+resetName+"()")) {
		if r := call("policy." + resetName + "()"); strings.HasPrefix(r, "PANIC") {
			t.Fatalf("%s: reset: %s", pf.path, r)
		}
	}
	for _, p := range pf.probes {
		if _, refused := out[p.name]; refused {
			continue
		}
		r := call("policy." + p.name + "()")
		if p.refused != "" && strings.HasPrefix(r, "PANIC") && strings.Contains(r, "the yaegi backend cannot run this") {
			r = "REFUSED " + r // a check the rewrite added
		}
		out[p.name] = r
	}
	return out
}

func probeAt(pf *probeFile, line int) *probe {
	for i := range pf.probes {
		if p := &pf.probes[i]; line >= p.first && line <= p.last {
			return p
		}
	}
	return nil
}

// blankLines replaces lines first to last (1-based) with empty lines.
func blankLines(src []byte, first, last int) []byte {
	lines := bytes.Split(src, []byte("\n"))
	for i := first - 1; i < last && i < len(lines); i++ {
		lines[i] = nil
	}
	return bytes.Join(lines, []byte("\n"))
}

// newProbeInterp is an interpreter as the worker makes one, with fmt
// for the probes to print their values.
func newProbeInterp(t *testing.T) *interp.Interpreter {
	t.Helper()
	i := interp.New(interp.Options{SourcecodeFilesystem: fstest.MapFS{}, Stdout: io.Discard, Stderr: io.Discard, Env: []string{}})
	ex := yaegiExports()
	ex["fmt/fmt"] = stdlib.Symbols["fmt/fmt"]
	if err := i.Use(ex); err != nil {
		t.Fatal(err)
	}
	return i
}

// probeCall evaluates expr in i: the string it returns, or "PANIC" and
// why it failed.
func probeCall(i *interp.Interpreter, expr string) (res string) {
	defer func() {
		if r := recover(); r != nil {
			res = fmt.Sprint("PANIC ", r)
		}
	}()
	v, err := i.Eval(expr)
	if err != nil {
		return "PANIC " + err.Error()
	}
	if v.IsValid() && v.CanInterface() {
		if s, ok := v.Interface().(string); ok {
			return s
		}
	}
	return ""
}
