package report

import (
	"errors"
	"fmt"
	"html/template"
	"slices"
	"strconv"
	"strings"
	"time"

	"policyevolve/envs"
	"policyevolve/evolve/episode"
	"policyevolve/pool"
	"policyevolve/store"
)

// PolicyDetail is everything the store knows about one policy: its
// source and origin, its self-play evaluations seed by seed, its matches,
// its ratings with their history in each pool, its lineage, and the
// replay its page shows.
type PolicyDetail struct {
	Store     string
	Generated time.Time
	Policy    store.Policy
	Ratings   []PoolRating
	// Evaluations, newest first.
	Evaluations []store.Evaluation
	// Matches, newest first, at most MaxMatches; MatchCount is how many
	// the store holds.
	Matches    []store.Match
	MatchCount int
	Lineage    *Lineage
	// Replay is the replay the page shows (nil when the policy has no
	// evaluation to take an environment from); ReplayMap its map (nil
	// when it cannot be read).
	Replay    *ReplayRef
	ReplayMap *envs.Map
}

// PoolRating is a policy's place in a pool: why it is there and its
// rating (nil when it has none).
type PoolRating struct {
	Pool   string
	Reason string
	Rating *store.Rating
}

// MaxMatches bounds the matches a policy page lists.
const MaxMatches = 200

// LoadPolicy reads the policy a unique id prefix names, in one read-only
// transaction. seed, when not nil, is the seed of the replay its page
// shows (default: the first seed of its newest evaluation). An unknown
// or ambiguous prefix is an error wrapping store.ErrNotFound or
// store.ErrAmbiguous.
func LoadPolicy(s *store.Store, prefix string, seed *uint64) (*PolicyDetail, error) {
	d := &PolicyDetail{Store: s.Path(), Generated: time.Now()}
	err := s.View(func(tx *store.Tx) error {
		p, err := findPolicy(tx, prefix)
		if err != nil {
			return err
		}
		d.Policy = *p
		id := p.ID
		pools, err := tx.PoolsOf(id)
		if err != nil {
			return err
		}
		for _, name := range pools {
			pr := PoolRating{Pool: name}
			ms, err := tx.Members(name)
			if err != nil {
				return err
			}
			for _, m := range ms {
				if m.Policy == id {
					pr.Reason = m.Reason
				}
			}
			r, err := tx.Rating(name, id)
			switch {
			case err == nil:
				pr.Rating = r
			case !errors.Is(err, store.ErrNotFound):
				return err
			}
			d.Ratings = append(d.Ratings, pr)
		}
		if d.Evaluations, err = tx.EvaluationsOf(id); err != nil {
			return err
		}
		slices.SortStableFunc(d.Evaluations, func(a, b store.Evaluation) int { return b.Created.Compare(a.Created) })
		ms, err := tx.MatchesOf(id)
		if err != nil {
			return err
		}
		slices.SortStableFunc(ms, func(a, b store.Match) int { return b.Created.Compare(a.Created) })
		d.MatchCount = len(ms)
		d.Matches = ms[:min(len(ms), MaxMatches)]
		if d.Lineage, err = lineage(tx, id, maxLineageNodes); err != nil {
			return err
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(d.Evaluations) > 0 {
		ev := d.Evaluations[0]
		ref := &ReplayRef{Policy: d.Policy.ID, Env: ev.Env}
		if len(ev.Seeds) > 0 {
			ref.Seed = ev.Seeds[0]
		}
		if seed != nil {
			ref.Seed = *seed
		}
		d.Replay = ref
		if env, err := episode.ResolveEnv(ev.Env.Game, ev.Env.Map, ev.Env.Agents, ev.Env.MaxSteps); err == nil {
			d.ReplayMap = env.Map
		}
	}
	return d, nil
}

type policyPage struct {
	ID, Name    string
	Fields      []field
	Source      template.HTML
	Gutter      string
	Builtin     string
	Ratings     []ratingPage
	Evaluations []evalPage
	Matches     []matchRow
	MatchNote   string
	Tree        *Tree
	TreeNote    string
	Replay      *replayPage
	ReplaySeeds []seedLink
	ReplayNote  string
	// DiffPath and VersusPath are the actions of the forms that compare
	// the policy with another (none without them).
	DiffPath, VersusPath string
}

type ratingPage struct {
	Pool, PoolHref string
	Reason         string
	Rated          bool
	Elo, Record    string
	Chart          *Chart
}

type evalPage struct {
	Env, Seeds, Status, Mean, Created string
	Rows                              []seedRow
}

type seedRow struct {
	Seed, Status, Steps                  string
	Eff, Equality, Sustainability, Peace string
	Problem                              string
}

type matchRow struct {
	Opponent, OpponentShort, OpponentHref string
	Env, Seed, Score, Result, Problem     string
	Created                               string
}

type seedLink struct {
	Seed    string
	Href    string
	Current bool
}

func (d *PolicyDetail) page(f *Frame) *page {
	pol := d.Policy
	p := &page{Title: "policy " + short(pol.ID, 12), Generated: d.Generated.Format(time.DateTime), Store: d.Store}
	v := &policyPage{ID: pol.ID, Name: pol.Name, Builtin: pol.Builtin, DiffPath: f.DiffPath, VersusPath: f.VersusPath}
	p.Policy = v
	v.Fields = []field{{"id", pol.ID, ""}}
	if pol.Name != "" {
		v.Fields = append(v.Fields, field{"name", pol.Name, ""})
	}
	v.Fields = append(v.Fields, field{"origin", pol.Origin.Describe(12), ""})
	for _, parent := range pol.Origin.Parents {
		v.Fields = append(v.Fields, field{"parent", parent, f.policyURL(parent)})
	}
	if pol.Origin.Run != "" {
		v.Fields = append(v.Fields, field{"run", pol.Origin.Run, f.runURL(pol.Origin.Run)})
	}
	if pol.Origin.Prompt != "" {
		v.Fields = append(v.Fields, field{"written by", pol.Origin.Prompt + " (policyevolve llm calls show it)", ""})
	}
	v.Fields = append(v.Fields, field{"stored", pol.Created.Local().Format(time.DateTime), ""})
	if pol.Builtin == "" {
		v.Source = Highlight(pol.Source)
		v.Gutter = gutter(pol.Source)
	}
	for _, pr := range d.Ratings {
		rp := ratingPage{Pool: pr.Pool, PoolHref: f.poolURL(pr.Pool), Reason: pr.Reason, Elo: "–", Record: "–"}
		if r := pr.Rating; r != nil {
			rp.Rated = true
			key, _ := store.ParseGlobalPool(pr.Pool)
			rp.Elo, rp.Record = fmt.Sprintf("%.1f", r.Elo), pool.GamesLabel(pool.Objective(key.Objective), r.Wins, r.Draws, r.Losses, r.Games)
			if len(r.History) > 0 {
				labels := make([]string, len(r.History))
				values := make([]float64, len(r.History))
				for i, h := range r.History {
					labels[i], values[i] = strconv.Itoa(i+1), h.Elo
				}
				rp.Chart = lineChart("Elo in "+pr.Pool, "match", labels, []Series{{Name: "Elo", Class: "s0", Values: values, Dots: len(values) <= 40}}, chartW, chartH)
			}
		}
		v.Ratings = append(v.Ratings, rp)
	}
	for _, ev := range d.Evaluations {
		ep := evalPage{Env: ev.Env.Key(), Seeds: seedList(ev.Seeds), Status: ev.Status, Created: ev.Created.Local().Format(time.DateTime),
			Mean: fmt.Sprintf("efficiency %.4f, equality %.4f, sustainability %.2f, peace %.3f", ev.Mean.Efficiency, ev.Mean.Equality,
				ev.Mean.Sustainability, ev.Mean.Peace)}
		if ev.Error != "" {
			ep.Status += ": " + ev.Error
		}
		for _, sr := range ev.PerSeed {
			row := seedRow{Seed: strconv.FormatUint(sr.Seed, 10), Status: sr.Status, Steps: strconv.Itoa(sr.Steps),
				Eff: fmt.Sprintf("%.3f", sr.Metrics.Efficiency), Equality: fmt.Sprintf("%.3f", sr.Metrics.Equality),
				Sustainability: fmt.Sprintf("%.1f", sr.Metrics.Sustainability), Peace: fmt.Sprintf("%.2f", sr.Metrics.Peace)}
			row.Problem = strings.TrimSpace(strings.Trim(sr.Kind+": "+sr.Error, ": "))
			ep.Rows = append(ep.Rows, row)
		}
		v.Evaluations = append(v.Evaluations, ep)
	}
	for _, m := range d.Matches {
		opp, mine, theirs, outcome := m.B, m.ScoreA, m.ScoreB, m.Outcome
		if m.B == pol.ID {
			opp, mine, theirs, outcome = m.A, m.ScoreB, m.ScoreA, 1-m.Outcome
		}
		row := matchRow{Opponent: opp, OpponentShort: short(opp, 12), OpponentHref: f.policyURL(opp), Env: m.Env.Key(),
			Seed: strconv.FormatUint(m.Seed, 10), Score: fmt.Sprintf("%.2f – %.2f", mine, theirs), Problem: m.Error,
			Created: m.Created.Local().Format(time.DateTime)}
		switch {
		case outcome > 0.5:
			row.Result = "won"
		case outcome < 0.5:
			row.Result = "lost"
		default:
			row.Result = "drawn"
		}
		v.Matches = append(v.Matches, row)
	}
	if d.MatchCount > len(d.Matches) {
		v.MatchNote = fmt.Sprintf("The newest %d of its %d matches.", len(d.Matches), d.MatchCount)
	}
	if d.Lineage != nil {
		v.Tree = d.Lineage.layout()
		v.Tree.Label = "lineage"
		v.Tree.link(f)
		v.TreeNote = fmt.Sprintf("%d policies; the label on an edge is how the policy above was made from the one below.", d.Lineage.Nodes)
		if d.Lineage.Hidden > 0 {
			v.TreeNote += fmt.Sprintf(" %d more distant ancestors are not shown (pool lineage %s shows them all).", d.Lineage.Hidden, short(pol.ID, 12))
		}
	}
	switch {
	case d.Replay == nil:
		v.ReplayNote = "No replay: the policy has no self-play evaluation to take an environment from."
	case f.ReplayURL == nil:
		v.ReplayNote = "No replay in a file: the live view (policyevolve serve) draws it."
	default:
		v.Replay = servedReplay(f, *d.Replay, d.ReplayMap)
		v.Replay.Caption = d.Replay.Env.Key() + ": " + v.Replay.Caption
		for _, sd := range replaySeeds(d.Evaluations, d.Replay.Env) {
			v.ReplaySeeds = append(v.ReplaySeeds, seedLink{Seed: strconv.FormatUint(sd, 10),
				Href: f.policyURL(pol.ID) + "?seed=" + strconv.FormatUint(sd, 10), Current: sd == d.Replay.Seed})
		}
	}
	return p
}

// replaySeeds are the seeds of every evaluation on env, in order: the
// evaluation seeds (0–4) and the recheck seeds (5–24) of a champion
// alike, though they are two evaluations.
func replaySeeds(evs []store.Evaluation, env store.EnvConfig) []uint64 {
	var out []uint64
	for _, ev := range evs {
		if ev.Env == env {
			out = append(out, ev.Seeds...)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// gutter is the line numbers beside a source.
func gutter(src string) string {
	n := strings.Count(strings.TrimSuffix(src, "\n"), "\n") + 1
	var g strings.Builder
	for i := 1; i <= n; i++ {
		g.WriteString(strconv.Itoa(i))
		g.WriteByte('\n')
	}
	return g.String()
}
