package tune

import (
	"bytes"
	"context"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"policyevolve/envs"
	"policyevolve/envs/ssd"
	"policyevolve/sandbox"
)

const snippet = `package policy

import "ssd"

const threshold = 0.9
const grid = 4
var cells [grid]int
const one = 1

type params struct{ Reach int }

var p = params{Reach: 7}

func Policy(v *ssd.View, agent int) int {
	for i := 0; i < 4; i++ {
		cells[i] = i * 2
	}
	if v.WasteDensity() > threshold && agent >= 3 && agent > 1 {
		return 8
	}
	if d := float64(agent) * 0.25; d < -2.5 {
		return cells[2]
	}
	switch agent {
	case 5:
		return 1
	}
	return 7
}
`

func TestFind(t *testing.T) {
	lits, err := Find([]byte(snippet))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range lits {
		got = append(got, l.Text+" "+l.Where)
	}
	want := []string{"0.9 const threshold", "1 const one", "7 field Reach", "3 comparison", "0.25 arithmetic", "-2.5 comparison"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("found %q\nwant  %q", got, want)
	}
	for _, l := range lits {
		if string([]byte(snippet)[l.Offset:l.End]) != l.Text {
			t.Errorf("%s: offsets %d-%d do not span it", l, l.Offset, l.End)
		}
	}
	byText := map[string]Literal{}
	for _, l := range lits {
		byText[l.Text] = l
	}
	ranges := []struct {
		text   string
		lo, hi float64
	}{{"0.9", 0, 1}, {"3", 0, 7}, {"7", 0, 14}, {"-2.5", -5, 0}, {"0.25", 0, 1}}
	for _, r := range ranges {
		if l := byText[r.text]; l.Lo != r.lo || l.Hi != r.hi {
			t.Errorf("%s searched in [%v, %v], want [%v, %v]", r.text, l.Lo, l.Hi, r.lo, r.hi)
		}
	}
}

func TestApply(t *testing.T) {
	src := []byte(snippet)
	lits, err := Find(src)
	if err != nil {
		t.Fatal(err)
	}
	vals := []float64{0.1234, 2, 9, -1, 1, 3}
	out := string(Apply(src, lits, vals))
	for _, want := range []string{"const threshold = 0.123\n", "const one = 2\n", "Reach: 9}", "agent >= (-1)", "* 1.0;", "d < 3.0 {"} {
		if !strings.Contains(out, want) {
			t.Errorf("applied source lacks %q:\n%s", want, out)
		}
	}
	if _, err := sandbox.Validate([]byte(out)); err != nil {
		t.Fatalf("applied source does not validate: %v", err)
	}
	orig := make([]float64, len(lits))
	for i, l := range lits {
		orig[i] = l.Value
	}
	if !bytes.Equal(Apply(src, lits, orig), src) {
		t.Error("applying the original values changes the source")
	}
}

// FuzzFind: Find never panics, its literals span their text, writing
// back their own values leaves the source as it was, and writing other
// values keeps a source that parses parsing.
func FuzzFind(f *testing.F) {
	f.Add([]byte(snippet))
	b, err := os.ReadFile(filepath.Join("testdata", "lazy_cleaners.go"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Fuzz(func(t *testing.T, src []byte) {
		lits, err := Find(src)
		if err != nil {
			return
		}
		vals := make([]float64, len(lits))
		other := make([]float64, len(lits))
		for i, l := range lits {
			if string(src[l.Offset:l.End]) != l.Text {
				t.Fatalf("literal %s does not span its text", l)
			}
			vals[i] = l.Value
			other[i] = l.Lo + 0.37*(l.Hi-l.Lo) - 0.5
		}
		if !bytes.Equal(Apply(src, lits, vals), src) {
			t.Fatal("writing back the literals' own values changed the source")
		}
		if _, err := parser.ParseFile(token.NewFileSet(), "p.go", Apply(src, lits, other), 0); err != nil {
			t.Fatalf("new values break the syntax: %v", err)
		}
	})
}

// TestTunerFixesBadConstant: a Cleanup policy whose cleaners wait for a
// waste density the river never reaches (nobody ever cleans) is tuned
// into one that cleans, and the tuned policy beats the original on
// held-out seeds it was not tuned on.
func TestTunerFixesBadConstant(t *testing.T) {
	if raceEnabled {
		t.Skip("the yaegi worker cannot start under the race detector")
	}
	src, err := os.ReadFile(filepath.Join("testdata", "lazy_cleaners.go"))
	if err != nil {
		t.Fatal(err)
	}
	sb, err := sandbox.New(sandbox.Config{Backend: sandbox.Yaegi, StepTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	m, err := envs.BuiltinMap(ssd.Cleanup, "default")
	if err != nil {
		t.Fatal(err)
	}
	const seed = 1
	t.Logf("seed: %d", seed)
	var lines []Progress
	res, err := Run(context.Background(), src, Config{Sandbox: sb, Map: m, Agents: 10, Steps: 250,
		TrainSeeds: []uint64{100, 101}, HeldOutSeeds: []uint64{0, 1, 2}, Budget: 12, Seed: seed, Workers: 2,
		Progress: func(p Progress) { lines = append(lines, p) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("train %.3f -> %.3f, held out %.3f -> %.3f, %d candidates (%d failed), changes %v",
		res.TrainOriginal, res.TrainTuned, res.HeldOutOriginal, res.HeldOutTuned, res.Evaluations, res.Failed, res.Changes)
	if !res.Kept || res.HeldOutTuned <= res.HeldOutOriginal {
		t.Fatalf("tuned policy not kept: held out %.3f vs original %.3f", res.HeldOutTuned, res.HeldOutOriginal)
	}
	changedThreshold := false
	for _, c := range res.Changes {
		if c.Literal.Where == "const cleanAbove" {
			changedThreshold = true
		}
	}
	if !changedThreshold {
		t.Errorf("the cleaning threshold was not changed: %v", res.Changes)
	}
	if res.Evaluations > 12 {
		t.Errorf("%d candidates scored, over the budget of 12", res.Evaluations)
	}
	if len(lines) < 2 || lines[0].Generation != 0 || lines[len(lines)-1].Evaluations != res.Evaluations {
		t.Errorf("progress %+v", lines)
	}
	if !strings.Contains(string(res.Tuned), "// Constants tuned by policyevolve tune") {
		t.Errorf("tuned source does not say what changed:\n%s", res.Tuned)
	}
	if _, err := sb.Check(context.Background(), res.Tuned, ssd.Cleanup); err != nil {
		t.Fatalf("tuned source fails admission: %v", err)
	}
}
