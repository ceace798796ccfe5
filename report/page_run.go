package report

import (
	"encoding/base64"
	"fmt"
	"html/template"
	"strconv"
	"strings"
	"time"

	"policyevolve/envs"
	"policyevolve/store"
)

// champion: the champion's numbers, lineage, source and replay.
func (p *runPage) champion(r *Run, f *Frame) {
	if r.Champion == nil {
		return
	}
	c := r.Champion
	p.Champion, p.ChampShort, p.ChampionBy = c.ID, short(c.ID, 12), r.Config.ChampionBy()
	p.ChampStats = []field{{"id", c.ID, f.policyURL(c.ID)}}
	if c.Name != "" {
		p.ChampStats = append(p.ChampStats, field{"name", c.Name, ""})
	}
	p.ChampStats = append(p.ChampStats, field{"origin", c.Origin.Describe(8), ""})
	if ev := r.Eval; ev != nil {
		m := ev.Mean
		p.ChampStats = append(p.ChampStats, field{"self-play", fmt.Sprintf("efficiency %.4f, equality %.4f, sustainability %.2f, peace %.3f (seeds %s%s)",
			m.Efficiency, m.Equality, m.Sustainability, m.Peace, seedList(ev.Seeds), failedNote(ev)), ""})
		if c.Builtin == "" {
			p.ChampStats = append(p.ChampStats, field{"scored by", scoredBy(ev.Backend), ""})
		}
	}
	for _, m := range r.Members {
		if m.Policy.ID == c.ID && m.Rated {
			p.ChampStats = append(p.ChampStats, field{"Elo", fmt.Sprintf("%.1f (%d won, %d drawn, %d lost)", m.Elo, m.Wins, m.Draws, m.Losses), ""})
		}
	}
	if r.Lineage != nil {
		p.Tree = r.Lineage.layout()
		p.Tree.link(f)
		p.TreeNote = fmt.Sprintf("%d policies; the label on an edge is how the policy above was made from the one below "+
			"(refine: a local-refinement round against the critic).", r.Lineage.Nodes)
		if r.Lineage.Hidden > 0 {
			p.TreeNote += fmt.Sprintf(" %d more distant ancestors are not shown (pool lineage %s shows them all).", r.Lineage.Hidden, short(c.ID, 12))
		}
	}
	if c.Builtin == "" {
		p.Source = Highlight(c.Source)
		p.Gutter = gutter(c.Source)
	}
	if rp := r.Replay; rp != nil {
		// Shown at a whole multiple of its size, about 480 pixels wide
		// (the page shrinks it to a narrower screen).
		k := max(1, replayShownWidth/max(rp.Width, 1))
		v := &replayPage{Note: rp.Note, Width: rp.Width * k, Height: rp.Height * k, Key: replayKeyOf(r.Env.Config.Game)}
		if len(rp.GIF) > 0 {
			v.Src = template.URL("data:image/gif;base64," + base64.StdEncoding.EncodeToString(rp.GIF))
			v.Caption = fmt.Sprintf("Self-play on seed %d, steps %d to %d, %d pixels per cell (GIF, %.1f KB).",
				rp.Seed, rp.From, rp.To, rp.Scale, float64(len(rp.GIF))/1000)
		}
		p.Replay = v
	} else if f.ReplayURL != nil {
		p.Replay = servedReplay(f, ReplayRef{Policy: c.ID, Env: r.Env.Config, Run: r.Record.ID, Seed: r.Config.EvalSeeds[0]}, r.Env.Map)
	}
}

// servedReplay shows the replay ref names as an image the site draws when
// it is asked for (Frame.ReplayURL), frames 0 to DefaultReplayFrames at
// DefaultReplayScale; m is its map, nil when the map cannot be read.
func servedReplay(f *Frame, ref ReplayRef, m *envs.Map) *replayPage {
	if m == nil {
		return &replayPage{Note: "No replay: the map of " + ref.Env.Key() + " can no longer be read."}
	}
	k := max(1, replayShownWidth/max(m.Width*DefaultReplayScale, 1))
	return &replayPage{Src: template.URL(f.ReplayURL(ref)), Width: m.Width * DefaultReplayScale * k, Height: m.Height * DefaultReplayScale * k, Key: replayKeyOf(ref.Env.Game),
		Caption: fmt.Sprintf("Self-play on seed %d, steps 0 to %d, %d pixels per cell (drawn when first shown, then kept).",
			ref.Seed, min(DefaultReplayFrames, ref.Env.MaxSteps), DefaultReplayScale)}
}

// replayShownWidth is about how wide the page shows the replay.
const replayShownWidth = 480

func failedNote(ev *store.Evaluation) string {
	if ev.Status != store.StatusOK {
		return "; failed: " + ev.Error
	}
	return ""
}

// origin says where a policy came from, in a phrase.

// pool: the final pool's table.
func (p *runPage) pool(r *Run, f *Frame) {
	p.PoolTitle = "Final pool"
	if r.Record.Status == store.StatusRunning {
		p.PoolTitle = "Pool" // as it stands: the run goes on
	}
	if r.Pool == "" {
		p.PoolTitle = "The chain's policies"
		p.PoolNote = "One policy per iteration, in order; a chain plays no matches, so none is rated."
	} else {
		p.PoolNote = fmt.Sprintf("The members of %s now, best first by the run's objective (%s), with their self-play metrics on the run's seeds.", r.Pool, r.Config.Objective)
	}
	for _, m := range r.Members {
		p.Pool = append(p.Pool, memberRow(m, f))
	}
	p.PoolNote += mixedBackends(r.Members)
}

// scoredBy names the backend of an evaluation of a source policy.
func scoredBy(backend string) string {
	switch backend {
	case "":
		return "not recorded (evaluated before evaluations named their backend)"
	case "yaegi":
		return "the yaegi backend (interpreted; compared with the native backend where a Go toolchain was present)"
	}
	return "the " + backend + " backend"
}

// mixedBackends is a note when the members' evaluations were scored by
// more than one backend: their numbers are then not strictly comparable.
func mixedBackends(ms []Member) string {
	count := map[string]int{}
	for _, m := range ms {
		if m.Backend != "" {
			count[m.Backend]++
		}
	}
	if len(count) < 2 {
		return ""
	}
	var parts []string
	for _, b := range []string{"native", "yaegi"} {
		if n := count[b]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d by the %s backend", n, b))
		}
	}
	return " These evaluations mix backends (" + strings.Join(parts, ", ") + "): compare their numbers with care."
}

// iterations: one row per iteration.
func (p *runPage) iterations(r *Run, f *Frame) {
	for _, it := range r.Iterations {
		row := iterRow{Index: it.Index, State: "done", Champion: it.Champion, ChampionShort: short(it.Champion, 12), ChampionHref: f.policyURL(it.Champion),
			Efficiency: "–", Elo: "–", Calls: strconv.Itoa(it.Usage.Proposals), Episodes: strconv.Itoa(it.Usage.Episodes), Time: "–"}
		if !it.Done {
			row.State = "in progress"
		}
		counts := map[string]int{}
		var order []string
		for _, c := range it.Candidates {
			if counts[c.Status] == 0 {
				order = append(order, c.Status)
			}
			counts[c.Status]++
		}
		var cs []string
		for _, s := range order {
			cs = append(cs, fmt.Sprintf("%d %s", counts[s], s))
		}
		if pending := len(it.Plan) - len(it.Candidates); pending > 0 {
			cs = append(cs, fmt.Sprintf("%d pending", pending))
		}
		row.Candidates = strings.Join(cs, ", ")
		if it.Champion != "" {
			row.Efficiency = fmt.Sprintf("%.4f", it.Best.Efficiency)
			if it.BestElo != 0 {
				row.Elo = fmt.Sprintf("%.0f", it.BestElo)
			}
		}
		if it.Done && !it.Finished.IsZero() {
			row.Time = it.Finished.Sub(it.Started).Round(time.Second).String()
		}
		p.Iterations = append(p.Iterations, row)
	}
}

// maxProblem is how much of a candidate's problem the table shows
// (runs show prints it whole).
const maxProblem = 160

// candidates: one row per planned candidate of each iteration.
func (p *runPage) candidates(r *Run, f *Frame) {
	for _, it := range r.Iterations {
		settled := map[int][]store.Candidate{} // by sample, in the order stored
		for _, c := range it.Candidates {
			settled[c.Sample] = append(settled[c.Sample], c)
		}
		for _, pl := range it.Plan {
			// As planned, until its policy says how it was made.
			made := store.Origin{Operator: pl.Operator, Planner: pl.Planner, Parents: pl.Parents}
			row := candRow{Iteration: it.Index, Sample: pl.Sample, Status: "pending", PolicyShort: "–", Eff: "–", WinRate: "–", Elo: "–"}
			if cs := settled[pl.Sample]; len(cs) > 0 {
				c := cs[0]
				settled[pl.Sample] = cs[1:]
				row.Status, row.Problem = c.Status, c.Problem
				if c.Policy != "" {
					row.Policy, row.PolicyShort, row.Href = c.Policy, short(c.Policy, 12), f.policyURL(c.Policy)
					if o, ok := r.Origins[c.Policy]; ok {
						made = o
					}
				}
				if selfPlayed(c.Status) {
					row.Eff = fmt.Sprintf("%.3f", c.Metrics.Efficiency)
				}
				if c.Games > 0 {
					row.WinRate = fmt.Sprintf("%.2f of %d", c.WinRate, c.Games)
				}
				if c.Elo != 0 {
					row.Elo = fmt.Sprintf("%.0f", c.Elo)
				}
				if rs := []rune(row.Problem); len(rs) > maxProblem {
					row.Problem = string(rs[:maxProblem]) + "…"
				}
			}
			row.Made = made.How(8)
			p.Candidates = append(p.Candidates, row)
		}
	}
}

// seedList prints seeds compactly: "0-4", "0,2,7".
func seedList(seeds []uint64) string {
	var parts []string
	for i := 0; i < len(seeds); {
		j := i
		for j+1 < len(seeds) && seeds[j+1] == seeds[j]+1 {
			j++
		}
		if j-i >= 2 {
			parts = append(parts, fmt.Sprintf("%d-%d", seeds[i], seeds[j]))
		} else {
			for k := i; k <= j; k++ {
				parts = append(parts, strconv.FormatUint(seeds[k], 10))
			}
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}
