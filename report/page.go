package report

import (
	"fmt"
	"html/template"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"policyevolve/envs/ssd"
	"policyevolve/evolve"
	"policyevolve/internal/plural"
	"policyevolve/render"
	"policyevolve/store"
)

// page is what the template renders: the report's data, formatted.
type page struct {
	Title     string
	Generated string
	Store     string
	Frame     Frame
	CSS       template.CSS // the stylesheet, when the page holds it
	Run       *runPage
	Compare   *comparePage
	// The pages of the live view (site.html).
	Runs    *runsPage
	Policy  *policyPage
	Pool    *poolPage
	Pools   *poolsPage
	Diff    *diffPage
	Versus  *versusPage
	Problem string // an error page's message
}

type runPage struct {
	Banner     string // a run not done: in progress, stopped or failed
	Summary    []field
	Metrics    []*Chart
	Elo        *Chart
	EloNote    string
	Champion   string // full id
	ChampShort string
	ChampionBy string // the objective the champion is the best by
	ChampStats []field
	Tree       *Tree
	TreeNote   string
	Source     template.HTML
	Gutter     string
	Replay     *replayPage
	PoolTitle  string
	PoolNote   string
	Pool       []poolRow
	Iterations []iterRow
	Candidates []candRow
	// EvalSeeds names the evaluation seeds, which the iterations' and
	// candidates' efficiencies are over.
	EvalSeeds string
}

// candRow is one candidate of an iteration, as planned and as settled.
type candRow struct {
	Iteration, Sample         int
	Made                      string
	Policy, PolicyShort, Href string
	Status, Eff, WinRate, Elo string
	Problem                   string
}

// field is a name and a value, the value linked to Href when set.
type field struct{ Name, Value, Href string }

type replayPage struct {
	Src           template.URL
	Width, Height int
	Caption       string
	Note          string
	Key           []replayKey // what the colours stand for
}

// replayKey is one colour of a replay and what it stands for.
type replayKey struct{ Label, Colour string }

// replayKeyOf is the colour key of a game's replays (render.Legend).
func replayKeyOf(game string) []replayKey {
	g, err := ssd.ParseGame(game)
	if err != nil {
		return nil
	}
	var out []replayKey
	for _, e := range render.Legend(g) {
		out = append(out, replayKey{e.Label, e.Hex()})
	}
	return out
}

type poolRow struct {
	ID, Short, Name, Href                string
	Elo, Record                          string
	Eff, Equality, Sustainability, Peace string
	Origin, Reason                       string
	Champion                             bool
}

type iterRow struct {
	Index                   int
	State                   string
	Candidates              string
	Champion, ChampionShort string
	ChampionHref            string
	Efficiency, Elo         string
	Calls, Episodes         string
	Time                    string
}

type comparePage struct {
	ID      string
	About   string
	Note    string
	Columns []string
	Rows    []compareRowPage
	Charts  []*Chart
	// Progress is the best-so-far table compare prints, once compare
	// has stored its report (nil before).
	Progress *progressPage
}

type compareRowPage struct {
	Method string
	Cells  []string
	Runs   []compareRunPage
}

// compareRunPage is one run of a method: its id (a link to its page, when
// the page has links) and status.
type compareRunPage struct{ ID, Href, Status string }

// progressPage is the best-so-far table: a column per checkpoint of
// planner calls, a row per searching method.
type progressPage struct {
	Calls []string
	Rows  []compareRowPage // Method and Cells only
}

// The metrics of a run's charts and tables, in the paper's order.
var metricNames = []string{"efficiency", "equality", "sustainability", "peace"}

func metricOf(m store.Metrics, k int) float64 {
	return [...]float64{m.Efficiency, m.Equality, m.Sustainability, m.Peace}[k]
}

// memberColors tell the pool's members apart in the Elo chart.
var memberColors = []string{"#8da0cb", "#66c2a5", "#fc8d62", "#e78ac3", "#a6d854", "#e5c494", "#b3b3b3",
	"#80b1d3", "#bebada", "#fdb462", "#b3de69", "#fccde5"}

func newPage(r *Report, f *Frame) *page {
	p := &page{Generated: r.Generated.Format(time.DateTime), Store: r.Store}
	if r.Run != nil {
		p.Run = newRunPage(r.Run, f)
		p.Title = "policyevolve report: " + r.Run.Record.ID
	}
	if r.Compare != nil {
		p.Compare = newComparePage(r.Compare, f)
		if p.Title == "" {
			p.Title = "policyevolve comparison " + r.Compare.ID
		}
	}
	return p
}

func newRunPage(r *Run, f *Frame) *runPage {
	rec, cfg := r.Record, r.Config
	p := &runPage{EvalSeeds: seedList(cfg.EvalSeeds)}
	switch rec.Status {
	case store.StatusRunning:
		p.Banner = "The run is in progress: this page shows what it had stored by " +
			rec.Updated.Local().Format(time.DateTime) + "."
	case store.StatusInterrupted:
		p.Banner = "The run was interrupted (" + rec.StopReason + "); resume it with policyevolve evolve --resume " + rec.ID + "."
	case store.StatusStopped:
		p.Banner = "The run stopped (" + rec.StopReason + "); resume it with policyevolve evolve --resume " + rec.ID + "."
	case store.StatusFailed:
		p.Banner = "The run failed: " + rec.Error
	}
	status := rec.Status
	if rec.StopReason != "" {
		status += " (" + rec.StopReason + ")"
	}
	u := rec.Usage
	env := r.Env.Config
	p.Summary = []field{
		{"run", fmt.Sprintf("%s, %s search, seed %d", rec.ID, cfg.Mode, cfg.Seed), ""},
		{"status", status, ""},
		{"environment", fmt.Sprintf("%s on %s, %d agents, %d steps", env.Game, env.Map, env.Agents, env.MaxSteps), ""},
		{"objective", objectiveNote(cfg), ""},
		{"iterations", fmt.Sprintf("%d of %d done", rec.Iterations, r.Planned), ""},
		{"planners", strings.Join(cfg.Planners, ", ") + ", feedback " + cfg.Feedback, ""},
		{"seeds", seedsNote(cfg), ""},
		{"spent", fmt.Sprintf("%s, %s, %s, %s, %s, %s", plural.N(u.Proposals, "planner call"), plural.N(u.LLMCalls, "LLM call"),
			plural.N(u.InputTokens+u.OutputTokens, "token"), u.CostWords(), plural.N(u.Episodes, "episode"), (time.Duration(u.WallSeconds) * time.Second).String()), ""},
		{"started", rec.Started.Local().Format(time.DateTime) + ", updated " + rec.Updated.Local().Format(time.DateTime), ""},
	}
	if cfg.Mode == evolve.ModePopulation {
		p.Summary = slices.Insert(p.Summary, 5, field{"search", fmt.Sprintf("%d candidates an iteration, %d local rounds, crossover rate %g, pool of %d, promotion above %g",
			cfg.Candidates, cfg.LocalRounds.Value(), cfg.CrossoverRate.Value(), cfg.Pool.Capacity, cfg.Pool.PromoteThreshold), ""})
	}
	if cid := comparisonOf(cfg.PoolTag); cid != "" {
		p.Summary = append(p.Summary, field{"comparison", cid + " (below)", ""})
	}
	if u := f.poolURL(r.Pool); u != "" {
		p.Summary = append(p.Summary, field{"pool", r.Pool, u})
	}
	p.metricCharts(r)
	p.eloChart(r)
	p.champion(r, f)
	p.pool(r, f)
	p.iterations(r, f)
	p.candidates(r, f)
	return p
}

// objectiveNote is the run's objective and what it decided, for the
// summary: the champion below is the best by it.
func objectiveNote(cfg evolve.JobConfig) string {
	return string(cfg.Objective) + ": " + cfg.DescribeObjective(seedList)
}

// metricCharts: per metric, the best and median of each iteration's
// evaluated candidates and the run's champion after it.
func (p *runPage) metricCharts(r *Run) {
	labels := make([]string, len(r.Iterations))
	for i, it := range r.Iterations {
		labels[i] = strconv.Itoa(it.Index)
	}
	for k, name := range metricNames {
		best, med, champ := metricSeries(r, k)
		p.Metrics = append(p.Metrics, lineChart(name, "iteration", labels, []Series{
			{Name: "best", Class: "s1", Values: best, Dots: true, Legend: true},
			{Name: "median", Class: "s2", Values: med, Dots: true, Legend: true},
			{Name: "champion", Class: "s0", Values: champ, Dots: true, Legend: true},
		}, chartW, chartH))
	}
}

// metricSeries is metric k per iteration: the best and the median of the
// candidates whose self-play completed, and the champion's after it (NaN
// where there is none).
func metricSeries(r *Run, k int) (best, med, champ []float64) {
	n := len(r.Iterations)
	best, med, champ = make([]float64, n), make([]float64, n), make([]float64, n)
	for i, it := range r.Iterations {
		var vs []float64
		for _, c := range it.Candidates {
			if selfPlayed(c.Status) {
				vs = append(vs, metricOf(c.Metrics, k))
			}
		}
		best[i], med[i], champ[i] = math.NaN(), median(vs), math.NaN()
		if len(vs) > 0 {
			best[i] = slices.Max(vs)
		}
		if it.Champion != "" {
			champ[i] = metricOf(it.Best, k)
		}
	}
	return best, med, champ
}

// selfPlayed: the candidate's self-play evaluation completed.
func selfPlayed(status string) bool {
	return status == store.CandidateEvaluated || status == store.CandidateRejected || status == store.CandidatePromoted
}

// The Elo chart is a little larger than the others (it has more lines),
// not so much that a phone shrinks its text out of reach.
const eloW, eloH = 420, 250

func (p *runPage) eloChart(r *Run) {
	if r.Elo == nil {
		p.EloNote = "A chain plays no matches: it has no pool and no Elo. Its champion is the policy with the best self-play efficiency."
		return
	}
	h := r.Elo
	var series []Series
	for i, m := range h.Members {
		name := short(m.Policy, 12)
		if m.Name != "" {
			name += " " + m.Name
		}
		series = append(series, Series{Name: name, Class: "member", Color: memberColors[i%len(memberColors)], Values: m.Values})
	}
	for _, e := range h.Evicted {
		v := make([]float64, len(h.Labels))
		for i := range v {
			v[i] = math.NaN()
		}
		v[e.Point] = e.Elo
		series = append(series, Series{Name: short(e.Policy, 12) + " when promoted (since evicted)", Class: "evicted", Values: v, Dots: true})
	}
	series = append(series,
		Series{Name: "median", Class: "s2", Values: h.Median, Dots: true, Legend: true},
		Series{Name: "champion", Class: "s0", Values: h.Champion, Dots: true, Legend: true})
	c := lineChart("Elo of "+r.Pool, "iteration", h.Labels, series, eloW, eloH)
	c.Legend = append([]LegendItem{{Class: "member", Color: memberColors[0], Label: "each member"}}, c.Legend...)
	if len(h.Evicted) > 0 {
		c.Legend = append(c.Legend, LegendItem{Class: "evicted", Label: "evicted since (Elo when promoted)"})
	}
	p.Elo = c
	p.EloNote = fmt.Sprintf("At the start of the run and at the end of each iteration: the champion's Elo as the iteration stored it, "+
		"each member's from its rating's history (%d members still rated; a member evicted from the pool loses its rating, "+
		"so its line is gone), and their median.", len(h.Members))
}

// seedsNote says which seeds a run plays: self-play, the contenders'
// recheck (chain and population runs), matches.
func seedsNote(cfg evolve.JobConfig) string {
	note := "self-play " + seedList(cfg.EvalSeeds)
	if recheck := cfg.RecheckSeeds(); len(recheck) > 0 {
		note += ", contenders for champion also " + seedList(recheck)
	}
	return note + ", matches " + seedList(cfg.MatchSeeds)
}
