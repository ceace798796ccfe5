package report

import (
	"fmt"
	"strings"

	"policyevolve/evolve/experiment"
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

// chartedColumns are the columns drawn as charts (the outcomes; the
// spending is in the table).
const chartedColumns = 6

func newComparePage(c *Comparison) *comparePage {
	p := &comparePage{ID: c.ID, Columns: append([]string{"method"}, compareColumns...)}
	p.About = fmt.Sprintf("%s on %s, %d agents, %d steps: %d runs per method, %d planner calls per run (%s), self-play seeds %s, match seeds %s.",
		c.Env.Game, c.Env.Map, c.Env.Agents, c.Env.MaxSteps, c.Runs, c.Budget, strings.Join(c.Planners, ", "),
		seedList(c.EvalSeeds), seedList(c.MatchSeeds))
	if !c.League {
		p.Note = "The league of champions and baselines is not complete in the store yet (compare is still running, or was stopped): " +
			"the rating and exploitability columns are empty, and a rerun of the same compare command finishes it."
	}
	for _, row := range c.Rows {
		rp := compareRowPage{Method: row.Method}
		for _, s := range row.stats() {
			rp.Cells = append(rp.Cells, formatStat(s))
		}
		var runs []string
		for i, id := range row.Runs {
			runs = append(runs, id+" ("+row.Statuses[i]+")")
		}
		rp.Runs = strings.Join(runs, ", ")
		p.Rows = append(p.Rows, rp)
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
