package sandbox

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestFreshProbes runs the probe set of testdata/fresh27: 103 small
// programs, one Go feature each, written after the subset without
// looking at its table (so not annotated with what to expect), on both
// backends. Each probe must give the same result on both, or be refused
// by the yaegi backend naming its row; a silent difference (both run,
// results differ) or a raw crash (the interpreter fails with a message
// that is not a refusal) fails the test. Every probe is interpreted
// alone, the others blanked out, so that one refusal does not hide the
// rest. The figures go to the log (go test -run TestFreshProbes -v).
func TestFreshProbes(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "fresh27", "*.go"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fresh probes: %v", err)
	}
	var files []*probeFile
	for _, p := range paths {
		files = append(files, readProbes(t, p))
	}
	native := nativeProbes(t, files)
	var identical, refused, interpFail, silent, raw []string
	for _, pf := range files {
		for i, p := range pf.probes {
			name := filepath.Base(pf.path) + " " + p.name
			n := native[pf.path][i]
			y := yaegiAlone(t, pf, i)
			switch {
			case strings.HasPrefix(y, "REFUSED ") && strings.Contains(y, "(subset row X3)"):
				interpFail = append(interpFail, name+": "+y)
			case strings.HasPrefix(y, "REFUSED ") && strings.Contains(y, "(subset row "):
				refused = append(refused, name+": "+y)
			case strings.HasPrefix(y, "REFUSED "):
				raw = append(raw, name+": "+y)
			case strings.HasPrefix(n, "PANIC") && strings.HasPrefix(y, "PANIC"), n == y:
				identical = append(identical, name)
			case strings.HasPrefix(y, "PANIC") && !strings.HasPrefix(n, "PANIC"):
				raw = append(raw, fmt.Sprintf("%s: yaegi %q, Go %q", name, y, n))
			default:
				silent = append(silent, fmt.Sprintf("%s: yaegi %q, Go %q", name, y, n))
			}
		}
	}
	t.Logf("%d probes: %d identical, %d refused with the construct named, %d refused as interpreter failures (row X3), %d silent differences, %d raw crashes",
		len(identical)+len(refused)+len(interpFail)+len(silent)+len(raw), len(identical), len(refused), len(interpFail), len(silent), len(raw))
	for _, r := range append(refused, interpFail...) {
		t.Log("refused: " + r)
	}
	for _, s := range silent {
		t.Error("silent difference: " + s)
	}
	for _, r := range raw {
		t.Error("raw crash: " + r)
	}
}

// yaegiAlone interprets probe i of pf alone (the other probes blanked
// out) as the yaegi backend does, and returns its result, "PANIC …", or
// "REFUSED " and the refusal, as the host would report it.
func yaegiAlone(t *testing.T, pf *probeFile, i int) string {
	t.Helper()
	src := pf.src
	for k, p := range pf.probes {
		if k != i {
			src = blankLines(src, p.first, p.last)
		}
	}
	// Imports the blanked probes used, used at the end (lines stay).
	src = append(append([]byte{}, src...), "\n"...)
	for path, use := range map[string]string{`"math"`: "math.Pi", `"strings"`: "strings.ToLower", `"sort"`: "sort.Ints",
		`"strconv"`: "strconv.Itoa", `"errors"`: "errors.New", `"math/bits"`: "bits.Len", `"container/heap"`: "heap.Init", `"fmt"`: "fmt.Sprint"} {
		if strings.Contains(string(pf.src), "\t"+path+"\n") || strings.Contains(string(pf.src), "import "+path+"\n") {
			src = append(src, "var _ = "+use+"\n"...)
		}
	}
	c, err := recheck(src, pf.path)
	if err != nil {
		t.Fatalf("%s: %v", pf.path, err)
	}
	r, _, err := withReset(c)
	if err != nil {
		t.Fatal(err)
	}
	code, err := rewriteForYaegi(r)
	if err != nil {
		var ve *ValidationError
		if !errors.As(err, &ve) {
			t.Fatal(err)
		}
		return "REFUSED " + ve.Issues[0].Msg
	}
	in := newProbeInterp(t)
	loadErr := func() (err error) {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("yaegi: %v", r)
			}
		}()
		_, err = in.Eval(string(code))
		return err
	}()
	if loadErr != nil {
		// The worker reports a load failure so (see interpreterFailure).
		return "REFUSED " + interpreterFailure(src, loadErr.Error(), "load")
	}
	call := func(expr string) string { return probeCall(in, expr) }
	if strings.Contains(string(code), "func "+resetName+"()") {
		if r := call("policy." + resetName + "()"); strings.HasPrefix(r, "PANIC") {
			return "REFUSED " + interpreterFailure(src, r, "run")
		}
	}
	res := call("policy." + pf.probes[i].name + "()")
	if strings.HasPrefix(res, "PANIC") && (interpreterInternal(res) || strings.Contains(res, refusalPrefix)) {
		// The worker reports these as refusals (see proc.reported).
		if strings.Contains(res, refusalPrefix) {
			return "REFUSED " + strings.TrimPrefix(res, "PANIC ")
		}
		return "REFUSED " + interpreterFailure(src, fmt.Sprintf("%d:1: %s", pf.probes[i].first, res), "run")
	}
	return res
}
