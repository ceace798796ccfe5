package pool

import (
	"math"
	"math/rand/v2"
	"sort"
)

// Member is what the rules know of a pool member.
type Member struct {
	ID             string
	Elo            float64
	Efficiency     float64 // self-play metrics on the pool's environment
	Equality       float64
	Sustainability float64
	Peace          float64
	// Exploitability is the largest margin by which a pool member beat
	// this one in a mixed match (0 when none did): lower is better. Used
	// by parent selection, not by eviction.
	Exploitability float64
	// Invadability is the largest gain of one invader among this policy's
	// agents (k = 1: its per-agent return minus the residents'), over the
	// pool's members; 0 when none gains or it was not measured. Lower is
	// better; used by parent selection when the search asks for it.
	Invadability float64
}

// Config holds the rules' parameters. The zero value works.
type Config struct {
	// Capacity of a global pool. 16 by default: room for the four
	// baselines and a dozen elites, small enough that rating a candidate
	// against a fair sample of it stays cheap.
	Capacity int `json:"capacity"`
	// PromoteThreshold is the win rate (draws count half) a candidate
	// needs against its sampled opponents: 0.6 by default, PolicyEvolve's.
	PromoteThreshold float64 `json:"promote_threshold"`
	// Temperature of the opponent softmax, in Elo points: 100 by default,
	// so that an opponent rated 200 points higher is e² ≈ 7.4 times as
	// likely to be drawn. Lower is greedier.
	Temperature float64 `json:"temperature"`
	// Opponents sampled per candidate: 4 by default.
	Opponents int `json:"opponents"`
}

// Defaults, as documented on Config.
const (
	DefaultCapacity         = 16
	DefaultPromoteThreshold = 0.6
	DefaultTemperature      = 100
	DefaultOpponents        = 4
)

// WithDefaults returns c with every zero field set to its default.
func (c Config) WithDefaults() Config {
	if c.Capacity <= 0 {
		c.Capacity = DefaultCapacity
	}
	if c.PromoteThreshold <= 0 {
		c.PromoteThreshold = DefaultPromoteThreshold
	}
	if c.Temperature <= 0 {
		c.Temperature = DefaultTemperature
	}
	if c.Opponents <= 0 {
		c.Opponents = DefaultOpponents
	}
	return c
}

// SampleOpponents draws min(k, len(members)) distinct members without
// replacement; each draw picks among those left with probability
// proportional to exp(Elo/temperature). The draws depend only on rng.
func SampleOpponents(members []Member, k int, temperature float64, rng *rand.Rand) []Member {
	left := append([]Member(nil), members...)
	var out []Member
	for len(out) < k && len(left) > 0 {
		maxElo := math.Inf(-1)
		for _, m := range left {
			maxElo = math.Max(maxElo, m.Elo)
		}
		weights := make([]float64, len(left))
		total := 0.0
		for i, m := range left {
			weights[i] = math.Exp((m.Elo - maxElo) / temperature) // shifted: no overflow
			total += weights[i]
		}
		x := rng.Float64() * total
		pick := len(left) - 1
		for i, w := range weights {
			if x < w {
				pick = i
				break
			}
			x -= w
		}
		out = append(out, left[pick])
		left = append(left[:pick], left[pick+1:]...)
	}
	return out
}

// WinRate is the share of points a candidate took: wins count 1, draws
// half. No games is a win rate of 0.
func WinRate(points float64, games int) float64 {
	if games == 0 {
		return 0
	}
	return points / float64(games)
}

// Promote decides whether a candidate joins the global pool: its win rate
// against the sampled opponents is above the threshold — strictly, as in
// PolicyEvolve — and its own self-play evaluation succeeded (a policy that
// crashes or times out in self-play is never promoted, however it fared in
// matches).
func Promote(winRate float64, selfPlayOK bool, threshold float64) bool {
	return selfPlayOK && winRate > threshold
}

// objectives are what eviction maximises.
func objectives(m Member) [4]float64 {
	return [4]float64{m.Elo, m.Efficiency, m.Equality, m.Sustainability}
}

// compare says whether objectives a dominate b (no worse in any, better
// in one), and whether b dominate a.
func compare(a, b []float64) (aWins, bWins bool) {
	better, worse := false, false
	for i := range a {
		if a[i] > b[i] {
			better = true
		} else if a[i] < b[i] {
			worse = true
		}
		if better && worse {
			return false, false
		}
	}
	return better && !worse, worse && !better
}

// Fronts sorts members into Pareto fronts over (Elo, efficiency,
// equality, sustainability), best first: front 0 is dominated by no one,
// front 1 only by front 0, and so on. It returns indices into members.
func Fronts(members []Member) [][]int {
	objs := make([][]float64, len(members))
	for i, m := range members {
		o := objectives(m)
		objs[i] = o[:]
	}
	return fronts(objs)
}

// selection are what parent selection maximises: eviction's objectives,
// peace, and the opposites of exploitability and invadability.
func selection(m Member) [7]float64 {
	return [7]float64{m.Elo, m.Efficiency, m.Equality, m.Sustainability, m.Peace, -m.Exploitability, -m.Invadability}
}

// SelectionFronts sorts members into Pareto fronts over (Elo, efficiency,
// equality, sustainability, peace, -exploitability, -invadability), best first, for
// choosing parents: a policy a pool member exploits does not come first on
// self-play alone.
func SelectionFronts(members []Member) [][]int {
	objs := make([][]float64, len(members))
	for i, m := range members {
		o := selection(m)
		objs[i] = o[:]
	}
	return fronts(objs)
}

// fronts sorts points into Pareto fronts over their objectives objs
// (maximised). It compares every pair once: a parent selection over the
// thousands of candidates of a long run is then a matter of tens of
// milliseconds. Each point's list of the points it dominates is in
// increasing order, and each front sorted.
func fronts(objs [][]float64) [][]int {
	n := len(objs)
	dominatedBy := make([]int, n)
	dominating := make([][]int, n)
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			switch iWins, jWins := compare(objs[i], objs[j]); {
			case iWins:
				dominating[i] = append(dominating[i], j)
				dominatedBy[j]++
			case jWins:
				dominating[j] = append(dominating[j], i)
				dominatedBy[i]++
			}
		}
	}
	var fronts [][]int
	var cur []int
	for i := 0; i < n; i++ {
		if dominatedBy[i] == 0 {
			cur = append(cur, i)
		}
	}
	for len(cur) > 0 {
		fronts = append(fronts, cur)
		var next []int
		for _, i := range cur {
			for _, j := range dominating[i] {
				if dominatedBy[j]--; dominatedBy[j] == 0 {
					next = append(next, j)
				}
			}
		}
		sort.Ints(next)
		cur = next
	}
	return fronts
}

// Crowding returns the crowding distance of each member of one front
// (indices into members): per objective, the normalised gap between its
// neighbours; the members at either end of an objective get +Inf. A member
// alone in its corner of the objective space has a large distance.
func Crowding(members []Member, front []int) map[int]float64 {
	d := map[int]float64{}
	for _, i := range front {
		d[i] = 0
	}
	if len(front) <= 2 {
		for _, i := range front {
			d[i] = math.Inf(1)
		}
		return d
	}
	for o := 0; o < 4; o++ {
		idx := append([]int(nil), front...)
		sort.SliceStable(idx, func(a, b int) bool {
			return objectives(members[idx[a]])[o] < objectives(members[idx[b]])[o]
		})
		lo, hi := objectives(members[idx[0]])[o], objectives(members[idx[len(idx)-1]])[o]
		if hi == lo {
			continue // everyone alike on this objective: no ends to protect
		}
		d[idx[0]], d[idx[len(idx)-1]] = math.Inf(1), math.Inf(1)
		for k := 1; k < len(idx)-1; k++ {
			d[idx[k]] += (objectives(members[idx[k+1]])[o] - objectives(members[idx[k-1]])[o]) / (hi - lo)
		}
	}
	return d
}

// Evict returns the members to remove so that at most capacity remain:
// repeatedly, from the worst Pareto front, the member with the smallest
// crowding distance (ties: lower Elo, then id), re-ranking after each
// removal. Extremes of an objective within their front are removed only
// when nothing else is left in it.
func Evict(members []Member, capacity int) []Member {
	left := append([]Member(nil), members...)
	var out []Member
	for len(left) > capacity && len(left) > 0 {
		fronts := Fronts(left)
		worst := fronts[len(fronts)-1]
		crowd := Crowding(left, worst)
		victim := worst[0]
		for _, i := range worst[1:] {
			ci, cv := crowd[i], crowd[victim]
			switch {
			case ci < cv,
				ci == cv && left[i].Elo < left[victim].Elo,
				ci == cv && left[i].Elo == left[victim].Elo && left[i].ID < left[victim].ID:
				victim = i
			}
		}
		out = append(out, left[victim])
		left = append(left[:victim], left[victim+1:]...)
	}
	return out
}
