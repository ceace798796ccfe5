package report

import (
	"fmt"
	"strconv"
	"strings"

	"policyevolve/evolve/experiment"
	"policyevolve/internal/plural"
)

// compareColumns are the table's columns after the method, as compare
// prints them.
var compareColumns = []string{"efficiency", "equality", "sustainability", "peace", "league rating",
	"exploitability", "planner calls", "LLM calls", "tokens", "cost ($)", "wall time (s)"}

// stats are a row's columns in compareColumns' order.
func (r CompareRow) stats() []experiment.Stat {
	return []experiment.Stat{r.Efficiency, r.Equality, r.Sustainability, r.Peace, r.Rating, r.Exploitability,
		r.PlannerCalls, r.LLMCalls, r.Tokens, r.Cost, r.WallSeconds}
}

// countColumns are the columns that count things: whole numbers print
// without decimals.
var countColumns = map[string]bool{"planner calls": true, "LLM calls": true, "tokens": true}

// formatCount prints a count's mean with its range, as formatStat.
func formatCount(s experiment.Stat) string {
	switch {
	case s.N == 0:
		return "–"
	case s.N == 1 || s.Min == s.Max:
		return experiment.FormatCount(s.Mean)
	}
	return fmt.Sprintf("%s (%s–%s)", experiment.FormatCount(s.Mean), experiment.FormatCount(s.Min), experiment.FormatCount(s.Max))
}

// chartedColumns are the columns drawn as charts (the outcomes; the
// spending is in the table).
const chartedColumns = 6

func newComparePage(c *Comparison, f *Frame) *comparePage {
	p := &comparePage{ID: c.ID, Columns: append([]string{"method"}, compareColumns...)}
	p.About = fmt.Sprintf("%s on %s, %s, %d steps: %s per method, %s per run (%s), self-play seeds %s, match seeds %s.",
		c.Env.Game, c.Env.Map, plural.N(c.Env.Agents, "agent"), c.Env.MaxSteps, plural.N(c.Runs, "run"), plural.N(c.Budget, "planner call"), strings.Join(c.Planners, ", "),
		seedList(c.EvalSeeds), seedList(c.MatchSeeds))
	if !c.League {
		p.Note = "The league of champions and baselines is not complete in the store yet (compare is still running, or was stopped): " +
			"the rating and exploitability columns are empty, and a rerun of the same compare command finishes it."
	}
	for _, row := range c.Rows {
		rp := compareRowPage{Method: row.Method}
		for k, s := range row.stats() {
			if countColumns[compareColumns[k]] {
				rp.Cells = append(rp.Cells, formatCount(s))
			} else {
				rp.Cells = append(rp.Cells, formatStat(s))
			}
		}
		for i, id := range row.Runs {
			rp.Runs = append(rp.Runs, compareRunPage{ID: id, Href: f.runURL(id), Status: row.Statuses[i]})
		}
		p.Rows = append(p.Rows, rp)
		if len(row.Progress) > 0 {
			if p.Progress == nil {
				p.Progress = &progressPage{}
				for _, pt := range row.Progress {
					p.Progress.Calls = append(p.Progress.Calls, strconv.Itoa(pt.Calls))
				}
			}
			pr := compareRowPage{Method: row.Method}
			for _, pt := range row.Progress {
				pr.Cells = append(pr.Cells, formatStat(pt.Best))
			}
			p.Progress.Rows = append(p.Progress.Rows, pr)
		}
	}
	for k := 0; k < chartedColumns; k++ {
		rows := make([]RangeRow, len(c.Rows))
		stats := make([]experiment.Stat, len(c.Rows))
		for i, row := range c.Rows {
			rows[i] = RangeRow{Label: row.Method, Class: "method"}
			if row.Baseline() {
				rows[i].Class = "baseline"
			}
			stats[i] = row.stats()[k]
		}
		p.Charts = append(p.Charts, rangeChart(compareColumns[k], rows, stats))
	}
	return p
}
