package report

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"time"

	"policyevolve/elo"
	"policyevolve/store"
)

// EloHistory is the run's global pool's Elo at points in time: the start
// of the run, then the end of each iteration (for an iteration still in
// progress, the run's last update).
type EloHistory struct {
	Labels []string    // "start", then the iterations' indices
	Times  []time.Time // when each point was read
	// Champion is the Elo of the run's champion after each iteration (as
	// the iteration stored it), NaN where it had none or was not rated;
	// Median the median Elo of the members rated at each point.
	Champion []float64
	Median   []float64
	// Members are the policies whose rating the pool still keeps, their
	// Elo at each point (NaN before they joined), highest last Elo first.
	Members []EloLine
	// Evicted are the run's promoted candidates that the pool has since
	// evicted, with their rating deleted: only their Elo on promotion
	// remains.
	Evicted []EloMark
}

// EloLine is one member's Elo at each point.
type EloLine struct {
	Policy string
	Name   string
	Values []float64
}

// EloMark is one Elo at one point.
type EloMark struct {
	Policy string
	Point  int
	Elo    float64
}

// eloHistory derives the pool's Elo per iteration from the ratings'
// histories: a member's Elo at a time is that of the last match counted
// before it, elo.DefaultInitial between joining and its first match.
func eloHistory(tx *store.Tx, r *Run) (*EloHistory, error) {
	h := &EloHistory{Labels: []string{"start"}, Times: []time.Time{r.Record.Started}}
	for _, it := range r.Iterations {
		t := it.Finished
		if !it.Done || t.IsZero() {
			t = r.Record.Updated
		}
		h.Labels = append(h.Labels, fmt.Sprint(it.Index))
		h.Times = append(h.Times, t)
	}
	members, err := tx.Members(r.Pool)
	if err != nil {
		return nil, err
	}
	ratings, err := tx.Ratings(r.Pool)
	if err != nil {
		return nil, err
	}
	added := map[string]time.Time{}
	for _, m := range members {
		added[m.Policy] = m.Added
	}
	names := map[string]string{}
	for _, m := range r.Members {
		names[m.Policy.ID] = m.Policy.Name
	}
	rated := map[string]bool{}
	for _, rt := range ratings {
		joined, ok := added[rt.Policy]
		if !ok {
			continue
		}
		rated[rt.Policy] = true
		values := eloAt(rt, joined, h.Times)
		if math.IsNaN(last(values)) {
			continue // joined after the run's last point (another run's)
		}
		h.Members = append(h.Members, EloLine{Policy: rt.Policy, Name: names[rt.Policy], Values: values})
	}
	sort.SliceStable(h.Members, func(i, j int) bool {
		a, b := last(h.Members[i].Values), last(h.Members[j].Values)
		if a != b {
			return a > b
		}
		return h.Members[i].Policy < h.Members[j].Policy
	})
	line := map[string][]float64{}
	for _, l := range h.Members {
		line[l.Policy] = l.Values
	}
	h.Champion = make([]float64, len(h.Times))
	h.Median = make([]float64, len(h.Times))
	h.Champion[0] = math.NaN()
	for p := range h.Times {
		var at []float64
		for _, l := range h.Members {
			if !math.IsNaN(l.Values[p]) {
				at = append(at, l.Values[p])
			}
		}
		h.Median[p] = median(at)
		if p == 0 {
			continue
		}
		it := r.Iterations[p-1]
		switch {
		case it.Champion != "" && it.BestElo != 0:
			h.Champion[p] = it.BestElo
		case it.Champion != "" && line[it.Champion] != nil:
			h.Champion[p] = line[it.Champion][p]
		default:
			h.Champion[p] = math.NaN()
		}
		for _, c := range it.Candidates {
			if c.Status == store.CandidatePromoted && !rated[c.Policy] {
				h.Evicted = append(h.Evicted, EloMark{Policy: c.Policy, Point: p, Elo: c.Elo})
			}
		}
	}
	return h, nil
}

// eloAt is a rating's Elo at each time: NaN before the policy joined the
// pool, else that of its last match counted by then.
func eloAt(r store.Rating, joined time.Time, times []time.Time) []float64 {
	out := make([]float64, len(times))
	for k, t := range times {
		out[k] = math.NaN()
		if joined.After(t) {
			continue
		}
		out[k] = elo.DefaultInitial
		for _, h := range r.History {
			if h.Time.After(t) {
				break
			}
			out[k] = h.Elo
		}
	}
	return out
}

// last is the last value that is not NaN (NaN if none).
func last(v []float64) float64 {
	for i := len(v) - 1; i >= 0; i-- {
		if !math.IsNaN(v[i]) {
			return v[i]
		}
	}
	return math.NaN()
}

// median of v, NaN for none.
func median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := slices.Sorted(slices.Values(v))
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
