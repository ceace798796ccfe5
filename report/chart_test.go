package report

import (
	"math"
	"slices"
	"strings"
	"testing"
)

func TestNiceScale(t *testing.T) {
	for _, c := range []struct {
		lo, hi float64
		n      int
		want   []float64
	}{
		{0.571, 0.592, 5, []float64{0.57, 0.575, 0.58, 0.585, 0.59, 0.595}},
		{1142, 1265, 5, []float64{1100, 1150, 1200, 1250, 1300}},
		{0, 1, 5, []float64{0, 0.2, 0.4, 0.6, 0.8, 1}},
		{4, 4, 5, []float64{3.4, 3.6, 3.8, 4, 4.2, 4.4, 4.6}}, // one value: padded around it
		{0, 0, 4, []float64{-0.05, 0, 0.05}},                  // zero: a small pad
	} {
		got, lo, hi := niceScale(c.lo, c.hi, c.n)
		if !slices.EqualFunc(got, c.want, func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }) || lo > c.lo || hi < c.hi {
			t.Errorf("niceScale(%v, %v, %d) = %v [%v, %v], want %v", c.lo, c.hi, c.n, got, lo, hi, c.want)
		}
	}
}

// TestLineChartGaps: a missing value breaks a line in two; dots carry
// tooltips; the y axis covers every value.
func TestLineChartGaps(t *testing.T) {
	c := lineChart("efficiency", "iteration", []string{"0", "1", "2", "3"},
		[]Series{{Name: "best", Class: "s1", Values: []float64{0.5, 0.6, math.NaN(), 0.7}, Dots: true, Legend: true}}, chartW, chartH)
	l := c.Lines[0]
	if len(l.Segments) != 2 || strings.Count(l.Segments[0], ",") != 2 || strings.Count(l.Segments[1], ",") != 1 {
		t.Errorf("segments %q", l.Segments)
	}
	if len(l.Dots) != 3 || l.Dots[2].Title != "best, iteration 3: 0.700" {
		t.Errorf("dots %+v", l.Dots)
	}
	first, last := c.YTicks[0].Label, c.YTicks[len(c.YTicks)-1].Label
	if first != "0.50" || last != "0.70" || len(c.XTicks) != 4 || len(c.Legend) != 1 {
		t.Errorf("y ticks %s…%s, %d x ticks, legend %v", first, last, len(c.XTicks), c.Legend)
	}
	for _, d := range l.Dots {
		if d.X < c.Left || d.X > c.Right || d.Y < c.Top || d.Y > c.Bottom {
			t.Errorf("dot %+v outside the plot", d)
		}
	}
}
