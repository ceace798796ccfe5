package experiment

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"

	"policyevolve/internal/outfile"
	"policyevolve/internal/plural"
	"policyevolve/pool"
	"policyevolve/store"
)

// Report is what a comparison measured, as compare prints it, writes it
// to PREFIX.csv and PREFIX.json, and stores it (store.Comparison) for the
// HTML report.
type Report struct {
	ID             string          `json:"id"` // "cmp-" and a hash of what decides the results
	Env            store.EnvConfig `json:"env"`
	Budget         int             `json:"budget"` // planner calls per run
	Runs           int             `json:"runs"`   // runs per method
	Seeds          []uint64        `json:"seeds"`  // self-play evaluation seeds
	QLearnEpisodes int             `json:"qlearn_episodes,omitempty"`
	HeldOutSeeds   []uint64        `json:"held_out_seeds,omitempty"`
	// Objective is the one the runs selected by (their champions are the
	// best by it; docs/objectives.md); a report stored before objectives
	// has none, and its runs ran under elo.
	Objective pool.Objective `json:"objective,omitempty"`
	Rows      []Row          `json:"rows"`
}

// Row is one line of the report: a method's runs (none for a baseline)
// and the mean, min and max of each column over them.
type Row struct {
	Extras
	Method         string   `json:"method"`
	Runs           []string `json:"runs,omitempty"`
	Champions      []string `json:"champions"`
	Efficiency     Stat     `json:"efficiency"`
	Equality       Stat     `json:"equality"`
	Sustainability Stat     `json:"sustainability"`
	Peace          Stat     `json:"peace"`
	Rating         Stat     `json:"league_rating"`
	Exploitability Stat     `json:"exploitability"`
	PlannerCalls   Stat     `json:"planner_calls"`
	LLMCalls       Stat     `json:"llm_calls"`
	Tokens         Stat     `json:"tokens"`
	Cost           Stat     `json:"cost"`
	WallSeconds    Stat     `json:"wall_seconds"`
}

// Baseline reports whether the row is a built-in policy.
func (r Row) Baseline() bool { return len(r.Runs) == 0 }

// Extras are the experiment's extra columns, per row (the paper suite,
// or Transfer and Invaders): what the runs' candidates had refused or
// failed on the way, by kind; the champions' self-play efficiency on every
// map of the game; and each champion's worst invader among the league's
// players (k = 1) with its margin.
type Extras struct {
	Refusals     map[string]int  `json:"refusals,omitempty"`
	Transfer     map[string]Stat `json:"transfer,omitempty"` // map → efficiency over champions
	WorstInvader []string        `json:"worst_invader,omitempty"`
	InvaderGain  Stat            `json:"invader_gain"` // the worst invader's per-agent margin over the residents
	// HeldOut is the champions' self-play efficiency on the held-out
	// seeds (Experiment.HeldOut); HeldOutChampions the same champion by
	// champion, in the order of Champions (reports stored before it have
	// none).
	HeldOut          Stat      `json:"held_out"`
	HeldOutChampions []float64 `json:"held_out_champions,omitempty"`
	// Progress is the runs' best-so-far curve at the report's checkpoints
	// (Progress, Checkpoints): how the search climbed per planner call.
	Progress []ProgressPoint `json:"progress,omitempty"`
}

// Stat is a mean with its range over runs.
type Stat struct {
	Mean float64 `json:"mean"`
	Min  float64 `json:"min"`
	Max  float64 `json:"max"`
	N    int     `json:"n"`
}

// Add counts one more value.
func (s *Stat) Add(v float64) {
	if s.N == 0 || v < s.Min {
		s.Min = v
	}
	if s.N == 0 || v > s.Max {
		s.Max = v
	}
	s.Mean = (s.Mean*float64(s.N) + v) / float64(s.N+1)
	s.N++
}

// String is "mean (min–max)", the mean alone when the range is one value,
// "-" for none.
func (s Stat) String() string {
	switch {
	case s.N == 0:
		return "-"
	case s.N == 1 || s.Min == s.Max:
		return trimFloat(s.Mean)
	}
	return fmt.Sprintf("%s (%s–%s)", trimFloat(s.Mean), trimFloat(s.Min), trimFloat(s.Max))
}

// Count is the Stat of a count (planner calls, LLM calls, tokens): as
// String, but a whole number printed as one ("12", not "12.00"); a mean
// over runs that is not whole keeps one decimal ("4.5 (4–5)").
func (s Stat) Count() string {
	switch {
	case s.N == 0:
		return "-"
	case s.N == 1 || s.Min == s.Max:
		return FormatCount(s.Mean)
	}
	return fmt.Sprintf("%s (%s–%s)", FormatCount(s.Mean), FormatCount(s.Min), FormatCount(s.Max))
}

// FormatCount prints a count: whole numbers without decimals, others
// with one.
func FormatCount(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return fmt.Sprintf("%d", int64(v))
	}
	return fmt.Sprintf("%.1f", v)
}

func trimFloat(v float64) string {
	switch a := math.Abs(v); {
	case a >= 100:
		return fmt.Sprintf("%.1f", v)
	case a >= 10:
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%.3f", v)
}

// Columns are the report's columns, as printed.
var Columns = []string{"method", "efficiency", "equality", "sustainability", "peace", "league rating",
	"exploitability", "planner calls", "LLM calls", "tokens", "cost ($)", "wall time (s)"}

func (r Row) cells() []string {
	return []string{r.Method, r.Efficiency.String(), r.Equality.String(), r.Sustainability.String(), r.Peace.String(),
		r.Rating.String(), r.Exploitability.String(), r.PlannerCalls.Count(), r.LLMCalls.Count(), r.Tokens.Count(),
		r.Cost.String(), r.WallSeconds.String()}
}

// WriteMarkdown prints the table, then the extra tables when there are
// any.
func (rep *Report) WriteMarkdown(w io.Writer) {
	fmt.Fprintf(w, "%s, %s, %d steps: %s per method, %s per run, self-play seeds %v; objective %s\n\n",
		rep.Env.Game+" on "+rep.Env.Map, plural.N(rep.Env.Agents, "agent"), rep.Env.MaxSteps, plural.N(rep.Runs, "run"), plural.N(rep.Budget, "planner call"), rep.Seeds, pool.Stored(rep.Objective))
	fmt.Fprintf(w, "| %s |\n|%s\n", strings.Join(Columns, " | "), strings.Repeat("---|", len(Columns)))
	for _, r := range rep.Rows {
		fmt.Fprintf(w, "| %s |\n", strings.Join(r.cells(), " | "))
	}
	fmt.Fprintln(w, "\nmean (min–max) over runs; a baseline is one policy. Exploitability: the largest margin by which a league member beats it (0: none does).")
	fmt.Fprintf(w, "Champions: each run's best by the objective %s (%s). League rating: Bradley–Terry over the league's mixed matches, whatever the objective.\n",
		pool.Stored(rep.Objective), championRule(rep.Objective))
	if rep.QLearnEpisodes > 0 {
		fmt.Fprintf(w, "qlearn: the tabular Q-learner trained for %s per seed, with no planner call; its wall time is its training time.\n", plural.N(rep.QLearnEpisodes, "episode"))
	}
	rep.writeExtras(w)
}

// championRule says how the runs of a report chose their champions.
func championRule(o pool.Objective) string {
	return "population: " + o.DescribeChampion("its best in self-play") + "; chain and gepa: their best in self-play"
}

// writeExtras prints the extra tables, when there are any.
func (rep *Report) writeExtras(w io.Writer) {
	rep.writeProgress(w)
	if len(rep.HeldOutSeeds) > 0 {
		fmt.Fprintf(w, "\nHeld out: self-play efficiency of the champions on seeds %s, which no search saw\n\n", seedRange(rep.HeldOutSeeds))
		ref, vs := rep.reference()
		head := []string{"method", "efficiency, evaluation seeds", "efficiency, held-out seeds"}
		if vs {
			head = append(head, "held out, against "+ref.Method)
		}
		fmt.Fprintf(w, "| %s |\n|%s\n", strings.Join(head, " | "), strings.Repeat("---|", len(head)))
		for _, r := range rep.Rows {
			cells := []string{r.Method, r.Efficiency.String(), r.HeldOut.String()}
			if vs {
				d, ok := against(r.HeldOutChampions, ref.HeldOutChampions)
				if !ok || r.Baseline() || r.Method == ref.Method {
					cells = append(cells, "-")
				} else {
					cells = append(cells, d.String())
				}
			}
			fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
		}
		if vs {
			fmt.Fprintf(w, "\nagainst %s: the method's mean over its runs minus %s's, ± the standard error of that difference over the runs of both; a difference within two standard errors is one these runs cannot tell from the luck of the draws.\n", ref.Method, ref.Method)
		}
	}
	var mapNames []string
	refusals, invaders := false, false
	for _, r := range rep.Rows {
		for m := range r.Transfer {
			if !slices.Contains(mapNames, m) {
				mapNames = append(mapNames, m)
			}
		}
		refusals = refusals || len(r.Refusals) > 0
		invaders = invaders || len(r.WorstInvader) > 0
	}
	slices.Sort(mapNames)
	if len(mapNames) > 0 {
		fmt.Fprintf(w, "\nTransfer: self-play efficiency of the champions on every map (evolved on %s)\n\n", rep.Env.Map)
		fmt.Fprintf(w, "| method | %s |\n|---|%s\n", strings.Join(mapNames, " | "), strings.Repeat("---|", len(mapNames)))
		for _, r := range rep.Rows {
			cells := []string{r.Method}
			for _, m := range mapNames {
				cells = append(cells, r.Transfer[m].String())
			}
			fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
		}
	}
	if invaders {
		fmt.Fprintln(w, "\nWorst invader (one agent among the champion's, the league's players tried in turn; gain: its per-agent return minus the residents')")
		fmt.Fprintf(w, "\n| method | worst invader | gain |\n|---|---|---|\n")
		for _, r := range rep.Rows {
			names := make([]string, len(r.WorstInvader))
			for i, n := range r.WorstInvader {
				names[i] = orDash(n)
			}
			fmt.Fprintf(w, "| %s | %s | %s |\n", r.Method, strings.Join(names, ", "), r.InvaderGain)
		}
	}
	if refusals {
		fmt.Fprintln(w, "\nRefused or failed on the way, by kind, summed over the runs")
		fmt.Fprintf(w, "\n| method | refused or failed |\n|---|---|\n")
		for _, r := range rep.Rows {
			if r.Runs == nil {
				continue
			}
			kinds := slices.Sorted(maps.Keys(r.Refusals))
			parts := make([]string, len(kinds))
			for i, k := range kinds {
				parts[i] = fmt.Sprintf("%s %d", k, r.Refusals[k])
			}
			fmt.Fprintf(w, "| %s | %s |\n", r.Method, orDash(strings.Join(parts, ", ")))
		}
	}
}

// writeProgress prints the searching rows' best-so-far curves.
func (rep *Report) writeProgress(w io.Writer) {
	var rows []Row
	for _, r := range rep.Rows {
		if len(r.Progress) > 0 {
			rows = append(rows, r)
		}
	}
	if len(rows) == 0 {
		return
	}
	fmt.Fprintln(w, "\nBest so far per planner call: the best self-play efficiency (evaluation seeds) among the policies written by the first N calls, mean (min–max) over runs")
	head := []string{"method"}
	for _, p := range rows[0].Progress {
		head = append(head, fmt.Sprintf("%d", p.Calls))
	}
	fmt.Fprintf(w, "\n| %s |\n|%s\n", strings.Join(head, " | "), strings.Repeat("---|", len(head)))
	for _, r := range rows {
		cells := []string{r.Method}
		for _, p := range r.Progress {
			cells = append(cells, p.Best.String())
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
	}
}

// reference is the row the held-out table compares the others against:
// the first searching row, when it and another have two champions or more
// replayed on the held-out seeds.
func (rep *Report) reference() (Row, bool) {
	var rows []Row // the searching rows
	for _, r := range rep.Rows {
		if !r.Baseline() {
			rows = append(rows, r)
		}
	}
	if len(rows) == 0 || len(rows[0].HeldOutChampions) < 2 {
		return Row{}, false
	}
	others := slices.ContainsFunc(rows[1:], func(r Row) bool { return len(r.HeldOutChampions) >= 2 })
	return rows[0], others
}

// difference is a difference of two means with its standard error.
type difference struct{ Mean, StdErr float64 }

// String is "+0.0123 ± 0.0045".
func (d difference) String() string { return fmt.Sprintf("%+.4f ± %.4f", d.Mean, d.StdErr) }

// against is the mean of xs minus the mean of ref, with the standard
// error of that difference (Welch's: each sample's variance over its
// size, summed); not ok unless each has two values or more.
func against(xs, ref []float64) (difference, bool) {
	if len(xs) < 2 || len(ref) < 2 {
		return difference{}, false
	}
	mx, vx := meanVar(xs)
	mr, vr := meanVar(ref)
	return difference{Mean: mx - mr, StdErr: math.Sqrt(vx/float64(len(xs)) + vr/float64(len(ref)))}, true
}

// meanVar is the mean and the sample variance (n-1) of xs, two or more.
func meanVar(xs []float64) (mean, variance float64) {
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	for _, x := range xs {
		variance += (x - mean) * (x - mean)
	}
	return mean, variance / float64(len(xs)-1)
}

// seedRange writes seeds as "A–B" when they run without a gap, else as a
// list.
func seedRange(seeds []uint64) string {
	run := len(seeds) > 1
	for i := 1; i < len(seeds); i++ {
		run = run && seeds[i] == seeds[i-1]+1
	}
	if run {
		return fmt.Sprintf("%d–%d", seeds[0], seeds[len(seeds)-1])
	}
	return fmt.Sprint(seeds)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// WriteFiles writes the report to prefix.json and, as a table with each
// column's mean, min and max, prefix.csv (as internal/outfile writes a
// user's files: atomically, mode 0666 less the umask).
func (rep *Report) WriteFiles(prefix string) error {
	js, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	if err := outfile.WriteFile(prefix+".json", append(js, '\n')); err != nil {
		return err
	}
	f, err := outfile.Create(prefix + ".csv")
	if err != nil {
		return err
	}
	cw := csv.NewWriter(f)
	head := []string{"method"}
	for _, c := range Columns[1:] {
		head = append(head, c+" mean", c+" min", c+" max")
	}
	cw.Write(append(head, "runs", "champions", "objective"))
	for _, r := range rep.Rows {
		rec := []string{r.Method}
		for _, s := range []Stat{r.Efficiency, r.Equality, r.Sustainability, r.Peace, r.Rating, r.Exploitability,
			r.PlannerCalls, r.LLMCalls, r.Tokens, r.Cost, r.WallSeconds} {
			rec = append(rec, fmt.Sprint(s.Mean), fmt.Sprint(s.Min), fmt.Sprint(s.Max))
		}
		cw.Write(append(rec, strings.Join(r.Runs, " "), strings.Join(r.Champions, " "), string(pool.Stored(rep.Objective))))
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		f.Discard()
		return err
	}
	return f.Commit()
}

// Stored reads the report compare stored for comparison id (nil when it
// stored none: compare is still running, or was stopped).
func Stored(tx *store.Tx, id string) (*Report, error) {
	rec, err := tx.Comparison(id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var rep Report
	if err := json.Unmarshal(rec.Report, &rep); err != nil {
		return nil, fmt.Errorf("comparison %s: %w", id, err)
	}
	return &rep, nil
}
