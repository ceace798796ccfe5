package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"policyevolve/evolve/experiment"
)

// px is a coordinate in a chart's viewBox, printed with one decimal.
type px float64

func (p px) String() string { return strconv.FormatFloat(float64(p), 'f', 1, 64) }

// Chart is a line chart or a dot-and-range chart as the template draws
// it: everything in viewBox coordinates, W by H.
type Chart struct {
	Title   string
	Caption string
	W, H    int
	// The plotting area.
	Left, Top, Right, Bottom px
	XTicks, YTicks           []Tick
	XLabel                   string
	Lines                    []Line
	Marks                    []Mark
	Rows                     []RangeRow // dot-and-range charts
	Legend                   []LegendItem
}

// Tick is an axis tick at a position.
type Tick struct {
	At    px
	Label string
}

// Line is one series: polylines (a gap where a value is missing), dots
// on its points, a CSS class and, for members' lines, a colour.
type Line struct {
	Name     string
	Class    string
	Color    string
	Segments []string // "x,y x,y …"
	Dots     []Mark
}

// Mark is a point with a tooltip.
type Mark struct {
	X, Y  px
	Title string
	Class string
}

// RangeRow is one row of a dot-and-range chart: the mean as a dot, the
// min-max range as a bar.
type RangeRow struct {
	Label         string
	Y             px
	X, XMin, XMax px
	Value         string
	Title         string
	Class         string
}

// LegendItem names a series' class.
type LegendItem struct{ Class, Color, Label string }

// Series is the data of one line: a value per x position, NaN where it
// has none.
type Series struct {
	Name   string
	Class  string
	Color  string
	Values []float64
	Dots   bool
	Legend bool
}

// Chart geometry: small charts that stay legible when a phone shrinks
// them to its width.
const (
	chartW, chartH = 360, 210
	marginL        = 46
	marginR        = 10
	marginT        = 8
	marginB        = 34
)

// lineChart draws series over x positions named by labels, in a viewBox
// of w by h.
func lineChart(title, xLabel string, labels []string, series []Series, w, h int) *Chart {
	c := &Chart{Title: title, XLabel: xLabel, W: w, H: h, Left: marginL, Top: marginT,
		Right: px(w - marginR), Bottom: px(h - marginB)}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range series {
		for _, v := range s.Values {
			if !math.IsNaN(v) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	if math.IsInf(lo, 1) {
		lo, hi = 0, 1
	}
	ticks, lo, hi := niceScale(lo, hi, 5)
	y := func(v float64) px { return c.Bottom - px((v-lo)/(hi-lo))*(c.Bottom-c.Top) }
	x := func(i int) px {
		if len(labels) <= 1 {
			return (c.Left + c.Right) / 2
		}
		return c.Left + 6 + px(float64(i)/float64(len(labels)-1))*(c.Right-c.Left-12)
	}
	for _, t := range ticks {
		c.YTicks = append(c.YTicks, Tick{At: y(t), Label: formatTick(t, ticks)})
	}
	step := max(1, int(math.Ceil(float64(len(labels))/8)))
	for i, l := range labels {
		if i%step == 0 || i == len(labels)-1 && len(labels) <= 8 {
			c.XTicks = append(c.XTicks, Tick{At: x(i), Label: l})
		}
	}
	for _, s := range series {
		line := Line{Name: s.Name, Class: s.Class, Color: s.Color}
		var seg []string
		flush := func() {
			if len(seg) > 0 {
				line.Segments = append(line.Segments, strings.Join(seg, " "))
			}
			seg = nil
		}
		for i, v := range s.Values {
			if math.IsNaN(v) {
				flush()
				continue
			}
			seg = append(seg, x(i).String()+","+y(v).String())
			if s.Dots {
				line.Dots = append(line.Dots, Mark{X: x(i), Y: y(v), Class: s.Class,
					Title: fmt.Sprintf("%s, %s %s: %s", s.Name, xLabel, labels[i], formatValue(v))})
			}
		}
		flush()
		c.Lines = append(c.Lines, line)
		if s.Legend {
			c.Legend = append(c.Legend, LegendItem{Class: s.Class, Color: s.Color, Label: s.Name})
		}
	}
	return c
}

// rangeChart draws one row per label: a dot at the mean and a bar over
// the range.
func rangeChart(title string, rows []RangeRow, stats []experiment.Stat) *Chart {
	const rowH = 26
	c := &Chart{Title: title, W: chartW, H: marginT + rowH*len(rows) + marginB, Left: 92, Top: marginT, Right: chartW - 58}
	c.Bottom = c.Top + px(rowH*len(rows))
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range stats {
		if s.N > 0 {
			lo, hi = math.Min(lo, s.Min), math.Max(hi, s.Max)
		}
	}
	if math.IsInf(lo, 1) {
		lo, hi = 0, 1
	}
	ticks, lo, hi := niceScale(lo, hi, 4)
	x := func(v float64) px { return c.Left + px((v-lo)/(hi-lo))*(c.Right-c.Left) }
	for _, t := range ticks {
		c.XTicks = append(c.XTicks, Tick{At: x(t), Label: formatTick(t, ticks)})
	}
	for i, r := range rows {
		s := stats[i]
		r.Y = c.Top + px(rowH*i+rowH/2)
		if s.N == 0 {
			r.Value = "–"
		} else {
			r.X, r.XMin, r.XMax = x(s.Mean), x(s.Min), x(s.Max)
			r.Value = formatValue(s.Mean)
			r.Title = fmt.Sprintf("%s: %s", r.Label, formatStat(s))
		}
		c.Rows = append(c.Rows, r)
	}
	return c
}

// niceScale extends lo-hi to round ticks, about n of them, at steps of 1,
// 2 or 5 times a power of ten.
func niceScale(lo, hi float64, n int) (ticks []float64, lo2, hi2 float64) {
	if hi-lo < 1e-9 {
		pad := math.Max(math.Abs(lo)*0.05, 0.5)
		if math.Abs(lo) < 1 {
			pad = 0.05
		}
		lo, hi = lo-pad, hi+pad
	}
	raw := (hi - lo) / float64(n)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, f := range []float64{1, 2, 5, 10} {
		if f*mag >= raw {
			step = f * mag
			break
		}
	}
	lo2, hi2 = math.Floor(lo/step)*step, math.Ceil(hi/step)*step
	for v := lo2; v <= hi2+step/2; v += step {
		ticks = append(ticks, math.Round(v/step)*step)
	}
	return ticks, lo2, hi2
}

// formatTick prints a tick with the decimals its step needs.
func formatTick(v float64, ticks []float64) string {
	d := 0
	if len(ticks) > 1 {
		step := ticks[1] - ticks[0]
		d = max(0, int(math.Ceil(-math.Log10(step)-1e-9)))
	}
	return strconv.FormatFloat(v, 'f', d, 64)
}

// formatValue prints a value with three significant decimals, fewer for
// large values (as compare's table does).
func formatValue(v float64) string {
	switch a := math.Abs(v); {
	case math.IsNaN(v):
		return "–"
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case a >= 10:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'f', 3, 64)
}

// formatStat prints a mean with its range, "mean (min–max)".
func formatStat(s experiment.Stat) string {
	switch {
	case s.N == 0:
		return "–"
	case s.N == 1 || s.Min == s.Max:
		return formatValue(s.Mean)
	}
	return fmt.Sprintf("%s (%s–%s)", formatValue(s.Mean), formatValue(s.Min), formatValue(s.Max))
}
