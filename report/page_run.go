package report

import (
	"encoding/base64"
	"fmt"
	"html/template"
	"strconv"
	"strings"
	"time"

	"policyevolve/store"
)

// champion: the champion's numbers, lineage, source and replay.
func (p *runPage) champion(r *Run) {
	if r.Champion == nil {
		return
	}
	c := r.Champion
	p.Champion, p.ChampShort, p.ChampionBy = c.ID, short(c.ID, 12), string(r.Config.Objective)
	p.ChampStats = []field{{"id", c.ID}}
	if c.Name != "" {
		p.ChampStats = append(p.ChampStats, field{"name", c.Name})
	}
	p.ChampStats = append(p.ChampStats, field{"origin", origin(c.Origin, r.Local[c.ID])})
	if ev := r.Eval; ev != nil {
		m := ev.Mean
		p.ChampStats = append(p.ChampStats, field{"self-play", fmt.Sprintf("efficiency %.4f, equality %.4f, sustainability %.2f, peace %.3f (seeds %s%s)",
			m.Efficiency, m.Equality, m.Sustainability, m.Peace, seedList(ev.Seeds), failedNote(ev))})
	}
	for _, m := range r.Members {
		if m.Policy.ID == c.ID && m.Rated {
			p.ChampStats = append(p.ChampStats, field{"Elo", fmt.Sprintf("%.1f (%d won, %d drawn, %d lost)", m.Elo, m.Wins, m.Draws, m.Losses)})
		}
	}
	if r.Lineage != nil {
		p.Tree = r.Lineage.layout()
		p.TreeNote = fmt.Sprintf("%d policies; the label on an edge is how the policy above was made from the one below "+
			"(refine: a local-refinement round against the critic).", r.Lineage.Nodes)
		if r.Lineage.Hidden > 0 {
			p.TreeNote += fmt.Sprintf(" %d more distant ancestors are not shown (pool lineage %s shows them all).", r.Lineage.Hidden, short(c.ID, 12))
		}
	}
	if c.Builtin == "" {
		p.Source = Highlight(c.Source)
		n := strings.Count(strings.TrimSuffix(c.Source, "\n"), "\n") + 1
		var g strings.Builder
		for i := 1; i <= n; i++ {
			g.WriteString(strconv.Itoa(i))
			g.WriteByte('\n')
		}
		p.Gutter = g.String()
	}
	if rp := r.Replay; rp != nil {
		// Shown at a whole multiple of its size, about 480 pixels wide
		// (the page shrinks it to a narrower screen).
		k := max(1, replayShownWidth/max(rp.Width, 1))
		v := &replayPage{Note: rp.Note, Width: rp.Width * k, Height: rp.Height * k}
		if len(rp.GIF) > 0 {
			v.Src = template.URL("data:image/gif;base64," + base64.StdEncoding.EncodeToString(rp.GIF))
			v.Caption = fmt.Sprintf("Self-play on seed %d, steps %d to %d, %d pixels per cell (GIF, %.1f KB).",
				rp.Seed, rp.From, rp.To, rp.Scale, float64(len(rp.GIF))/1000)
		}
		p.Replay = v
	}
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
func origin(o store.Origin, local bool) string {
	if o.Operator == "improve" && local {
		o.Operator = operatorRefine
	}
	return o.Describe(8)
}

// pool: the final pool's table.
func (p *runPage) pool(r *Run) {
	p.PoolTitle = "Final pool"
	if r.Pool == "" {
		p.PoolTitle = "The chain's policies"
		p.PoolNote = "One policy per iteration, in order; a chain plays no matches, so none is rated."
	} else {
		p.PoolNote = fmt.Sprintf("The members of %s now, best first by the run's objective (%s), with their self-play metrics on the run's seeds.", r.Pool, r.Config.Objective)
	}
	for _, m := range r.Members {
		row := poolRow{ID: m.Policy.ID, Short: short(m.Policy.ID, 12), Name: m.Policy.Name, Elo: "–", Record: "–",
			Eff: "–", Equality: "–", Sustainability: "–", Peace: "–",
			Origin: origin(m.Policy.Origin, r.Local[m.Policy.ID]), Reason: m.Reason, Champion: m.Champion}
		if m.Rated {
			row.Elo, row.Record = fmt.Sprintf("%.1f", m.Elo), fmt.Sprintf("%d/%d/%d", m.Wins, m.Draws, m.Losses)
		}
		if m.Evaluated {
			row.Eff, row.Equality = fmt.Sprintf("%.3f", m.Metrics.Efficiency), fmt.Sprintf("%.3f", m.Metrics.Equality)
			row.Sustainability, row.Peace = fmt.Sprintf("%.1f", m.Metrics.Sustainability), fmt.Sprintf("%.2f", m.Metrics.Peace)
			if m.Failed {
				row.Eff += " (failed)"
			}
		}
		p.Pool = append(p.Pool, row)
	}
}

// iterations: one row per iteration.
func (p *runPage) iterations(r *Run) {
	for _, it := range r.Iterations {
		row := iterRow{Index: it.Index, State: "done", Champion: it.Champion, ChampionShort: short(it.Champion, 12),
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
