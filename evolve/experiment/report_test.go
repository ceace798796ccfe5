package experiment

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

func TestAgainst(t *testing.T) {
	for _, c := range []struct {
		name    string
		xs, ref []float64
		ok      bool
		mean    float64
		stdErr  float64
	}{
		{"too few runs", []float64{1}, []float64{1, 2}, false, 0, 0},
		{"too few reference runs", []float64{1, 2}, []float64{3}, false, 0, 0},
		// means 2 and 1; variances 1 and 0: sqrt(1/3 + 0/2)
		{"ahead", []float64{1, 2, 3}, []float64{1, 1}, true, 1, math.Sqrt(1.0 / 3)},
		// means 1.5 and 2.5; variances 0.5 and 0.5: sqrt(0.25 + 0.25)
		{"behind", []float64{1, 2}, []float64{2, 3}, true, -1, math.Sqrt(0.5)},
		{"level, no spread", []float64{4, 4}, []float64{4, 4}, true, 0, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			d, ok := against(c.xs, c.ref)
			if ok != c.ok {
				t.Fatalf("ok %v, want %v", ok, c.ok)
			}
			if math.Abs(d.Mean-c.mean) > 1e-12 || math.Abs(d.StdErr-c.stdErr) > 1e-12 {
				t.Errorf("%+v, want mean %v ± %v", d, c.mean, c.stdErr)
			}
		})
	}
}

// TestHeldOutAgainstReference: the held-out table compares every
// searching row with the first one, and only when both have two
// replayed champions or more; baselines and reports stored without the
// champions' values get no difference.
func TestHeldOutAgainstReference(t *testing.T) {
	row := func(method string, runs int, held ...float64) Row {
		r := Row{Method: method}
		for i := 0; i < runs; i++ {
			r.Runs = append(r.Runs, "run")
		}
		for _, h := range held {
			r.HeldOut.Add(h)
		}
		r.HeldOutChampions = held
		return r
	}
	rep := &Report{HeldOutSeeds: []uint64{100, 101}, Rows: []Row{
		row("chain", 2, 3.52, 3.53), row("population", 2, 3.50, 3.52), row("coop", 0, 3.2),
	}}
	var b bytes.Buffer
	rep.writeExtras(&b)
	out := b.String()
	for _, want := range []string{"| held out, against chain |", "| population | - | 3.510 (3.500–3.520) | -0.0150 ± 0.0112 |",
		"| chain | - | 3.525 (3.520–3.530) | - |", "| coop | - | 3.200 | - |"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	// One run a method, or a report stored before the champions' values:
	// the table as before.
	for _, rows := range [][]Row{
		{row("chain", 1, 3.52), row("population", 1, 3.50)},
		{{Method: "chain", Runs: []string{"a", "b"}}, {Method: "population", Runs: []string{"a", "b"}}},
	} {
		b.Reset()
		(&Report{HeldOutSeeds: []uint64{100}, Rows: rows}).writeExtras(&b)
		if strings.Contains(b.String(), "against") {
			t.Errorf("a difference without two champions a row:\n%s", b.String())
		}
	}
}
