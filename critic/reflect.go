package critic

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"policyevolve/envs/ssd"
)

// DefaultMax is the number of reflections a critic keeps by default: a
// short list a planner can act on.
const DefaultMax = 5

// Analytic is the default critic: fixed rules over the diagnostics, so the
// same diagnostics always give the same reflections. The zero value is
// ready to use.
//
// The stake of a finding estimates the per-agent, per-episode reward the
// policy leaves on the table because of it. Time lost is converted into
// reward at the policy's own harvest rate, Diagnostics.Rate (apples per
// active agent-step), or at the map's Supply when the policy harvests
// nothing. Per finding:
//
//   - idle: steps standing while apples were on the map, times the rate;
//   - oscillation: steps undoing the previous move, times the rate;
//   - contested: steps spent chasing apples another agent took first,
//     times the rate;
//   - friendly-fire: for the share of hits that landed on the policy's own
//     agents, the steps those tags kept agents out (TimeoutSteps per tag)
//     times the rate, plus (Cleanup) the penalties and firing costs;
//   - beams-missed: beams that hit nobody, one step each at the rate, plus
//     the firing cost (Cleanup);
//   - uncovered: spawn cells never harvested, each worth what a harvested
//     spawn yielded, shared among the policy's agents;
//   - starving: how far the starving agents fall short of the mean,
//     spread over all the policy's agents;
//   - waste-high (Cleanup): the regrowths the waste prevented
//     (Cleanup.LostRegrowth) per agent: an upper bound, as it ignores the
//     labour and cost of the cleaning that would prevent them;
//   - clean-wasted (Cleanup): clean beams that removed nothing, the clean
//     cost plus a step each;
//   - beaten-by / exploited (matches): the opponent's margin per agent.
//
// Findings whose stake is below 0.05, or below 1% of the policy's mean
// reward, are dropped; the rest are ranked by stake, largest first, ties by
// code, and the first Max are kept.
type Analytic struct {
	Max int // reflections kept; 0 means DefaultMax
}

// Reflect returns the ranked findings of d; never nil.
func (a Analytic) Reflect(d *Diagnostics) []Reflection {
	f := findings{d: d, rate: d.Rate}
	if f.rate <= 0 {
		f.rate = d.Supply
	}
	f.params = d.Params
	f.idle()
	f.oscillation()
	f.contested()
	f.beams()
	f.uncovered()
	f.starving()
	if d.Cleanup != nil {
		f.waste()
		f.cleanWasted()
	}
	f.opponents()

	floor := max(0.05, 0.01*math.Abs(d.Reward))
	out := []Reflection{}
	for _, r := range f.out {
		if r.Stake >= floor && !math.IsInf(r.Stake, 0) && !math.IsNaN(r.Stake) {
			r.Stake = round3(r.Stake)
			out = append(out, r)
		}
	}
	slices.SortStableFunc(out, func(x, y Reflection) int {
		if c := cmp.Compare(y.Stake, x.Stake); c != 0 {
			return c
		}
		return strings.Compare(x.Code, y.Code)
	})
	n := a.Max
	if n <= 0 {
		n = DefaultMax
	}
	if len(out) > n {
		out = out[:n]
	}
	return out
}

// findings collects candidate reflections.
type findings struct {
	d      *Diagnostics
	rate   float64 // reward per agent-step of time
	params ssd.Params
	out    []Reflection
}

func (f *findings) add(code string, stake float64, format string, args ...any) {
	f.out = append(f.out, Reflection{Code: code, Text: fmt.Sprintf(format, args...), Stake: stake})
}

func (f *findings) idle() {
	d := f.d
	if d.IdleWithApples <= 0 {
		return
	}
	f.add("idle", d.IdleWithApples*f.rate,
		"Agents stood still on %s of their active steps, %s steps per agent while apples were on the map; "+
			"move toward a reachable apple instead, and stand only when none is left.",
		pct(d.Idle), num(d.IdleWithApples))
}

func (f *findings) oscillation() {
	d := f.d
	steps := d.Oscillation * d.ActiveSteps
	if steps <= 0 {
		return
	}
	f.add("oscillation", steps*f.rate,
		"%s of active steps undid the previous move or turn (%s back-and-forth steps per agent); "+
			"commit to a target until it is collected or gone instead of re-choosing every step.",
		pct(d.Oscillation), num(steps))
}

func (f *findings) contested() {
	d := f.d
	if d.Contest.Wasted <= 0 {
		return
	}
	f.add("contested", d.Contest.Wasted*f.rate,
		"Agents headed for an apple another agent was also heading for on %s of active steps (%s contested apples per step) "+
			"and spent %s steps per agent chasing apples someone else took first; "+
			"split the apples among the agents (e.g. Voronoi territories or zones) so they stop chasing the same ones.",
		pct(d.Contest.Share), num(d.Contest.Apples), num(d.Contest.Wasted))
}

func (f *findings) beams() {
	d, b, p := f.d, f.d.Beams, f.params
	cleanup := d.Cleanup != nil
	if b.Hits > 0 && b.Friendly > 0 {
		stake := b.Friendly * b.Tags * float64(p.TimeoutSteps) * f.rate
		if cleanup {
			stake += b.Friendly * (b.Hits*p.FirePenalty + b.Fired*p.FireCost)
		}
		cost := ""
		if cleanup {
			cost = fmt.Sprintf(", and beams cost %s reward per agent", num(b.Cost))
		}
		f.add("friendly-fire", stake,
			"Agents fired %s beams each (%s hit someone) and %s of the hits landed on agents of this same policy: "+
				"%s tags dealt and %s steps tagged out per agent%s; "+
				"every agent runs this code, so stop beaming (or beam only where no agent of your own can be hit).",
			num(b.Fired), pct(b.HitRate), pct(b.Friendly), num(b.Tags), num(b.TaggedOut), cost)
	}
	missed := b.Fired * (1 - b.HitRate)
	if missed > 0 {
		per := f.rate
		if cleanup {
			per += p.FireCost
		}
		f.add("beams-missed", missed*per,
			"%s of %s beams per agent hit nobody; fire only when BeamHitsFrom shows a target in the beam.",
			num(missed), num(b.Fired))
	}
}

func (f *findings) uncovered() {
	d, c := f.d, f.d.Coverage
	harvested := float64(c.Spawns) - c.Never
	if c.Never <= 0 || harvested <= 0 || d.Mine <= 0 {
		return
	}
	perSpawn := d.Apples * d.Mine / harvested
	where := ""
	if box := neverBox(c.Map); box != "" {
		where = " (never harvested in any episode: " + box + ")"
	}
	f.add("uncovered", c.Never*perSpawn/d.Mine,
		"%s of %d apple spawns were never harvested per episode%s and %s reappeared apples were still uncollected at the end; "+
			"send agents that have nothing to do to those areas.",
		num(c.Never), c.Spawns, where, num(c.Uncollected))
}

// neverBox describes the rows and columns of the spawns marked never
// harvested on a coverage map, or "" when there are none.
func neverBox(m []string) string {
	r0, r1, c0, c1 := math.MaxInt, -1, math.MaxInt, -1
	for r, row := range m {
		for c := range len(row) {
			if row[c] == '.' {
				r0, r1, c0, c1 = min(r0, r), max(r1, r), min(c0, c), max(c1, c)
			}
		}
	}
	if r1 < 0 {
		return ""
	}
	return fmt.Sprintf("rows %d-%d, columns %d-%d", r0, r1, c0, c1)
}

func (f *findings) starving() {
	d := f.d
	if len(d.Starving) == 0 || d.Mine <= 0 {
		return
	}
	var short float64
	ids := make([]string, len(d.Starving))
	rets := make([]string, len(d.Starving))
	for k, id := range d.Starving {
		for _, ag := range d.PerAgent {
			if ag.ID == id {
				short += d.Reward - ag.Return
				rets[k] = num(ag.Return)
			}
		}
		ids[k] = strconv.Itoa(id)
	}
	f.add("starving", short/d.Mine,
		"Agents %s earned %s against a mean of %s (equality %s); "+
			"give every agent its own share of the apples instead of letting the first movers take them.",
		strings.Join(ids, ", "), strings.Join(rets, ", "), num(d.Reward), num(d.Equality))
}

func (f *findings) waste() {
	d, c, p := f.d, f.d.Cleanup, f.params
	if c.LostRegrowth <= 0 {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Waste density averaged %s and stayed at or above the depletion threshold %s on %s of steps, "+
		"so apples regrew %s times per episode (up to %s more per agent on a clean river)",
		num(c.Waste), num(c.Threshold), pct(c.AtThreshold), num(c.Regrowth), num(c.LostRegrowth/float64(d.Agents)))
	if c.Collapsed > 0 {
		fmt.Fprintf(&b, "; no apple regrew in the last %d steps of %d of %d episodes", c.CollapseWindow, c.Collapsed, d.Episodes)
	}
	switch {
	case c.CleanBeams == 0:
		fmt.Fprintf(&b, ". No agent fired the clean beam: assign some agents to clean the river "+
			"(CLEAN removes the waste %d cells ahead and %d wide, and costs %s) until the density stays below %s.",
			p.BeamLength, p.BeamWidth, num(p.CleanCost), num(c.Threshold))
	default:
		fmt.Fprintf(&b, ". %s agents cleaned per episode (%s per step), removing %s cells per clean beam",
			num(c.Cleaners), num(c.CleanersPerStep), num(c.WastePerBeam))
		var fix []string
		if c.Cleaners < float64(d.Agents) {
			fix = append(fix, "use more cleaners")
		}
		if c.WastePerBeam < float64(p.BeamLength*p.BeamWidth)/5 {
			fix = append(fix, "fire from cells where the beam covers more waste (CleanBeamCount)")
		}
		if len(fix) == 0 {
			fix = append(fix, "clean earlier and more steadily, before the density reaches the threshold")
		}
		fmt.Fprintf(&b, ": %s.", strings.Join(fix, ", and "))
	}
	f.add("waste-high", c.LostRegrowth/float64(d.Agents), "%s", b.String())
}

func (f *findings) cleanWasted() {
	c, p := f.d.Cleanup, f.params
	empty := c.CleanBeams * c.Empty
	if empty <= 0 {
		return
	}
	f.add("clean-wasted", empty*(p.CleanCost+f.rate),
		"%s of clean beams removed no waste (%s per agent, each costing %s and a step); "+
			"fire CLEAN only when CleanBeamCount shows waste ahead, and walk to the dirty cells first.",
		pct(c.Empty), num(empty), num(p.CleanCost))
}

func (f *findings) opponents() {
	for _, o := range f.d.Opponents {
		if !o.Beaten {
			continue
		}
		code := "beaten-by"
		var extra []string
		if o.TagsSuffered > 0 || o.TagsDealt > 0 {
			extra = append(extra, fmt.Sprintf("its agents tagged yours %s times per episode (you tagged them %s)",
				num(o.TagsSuffered), num(o.TagsDealt)))
		}
		if f.d.Cleanup != nil && (o.CleanShare > 0 || o.Exploited) {
			extra = append(extra, fmt.Sprintf("you held %s of the seats, fired %s of the clean beams and took %s of the apples",
				pct(o.Seats), pct(o.CleanShare), pct(o.AppleShare)))
		}
		direction := "study what it does better"
		if o.Exploited {
			code = "exploited"
			direction = "do not leave your agents open to it: keep out of its beams' reach and stop cleaning for a side that does not"
		}
		text := fmt.Sprintf("Lost to %s by %s per agent over %d episodes (yours %s, theirs %s)",
			o.Name, num(o.Margin), o.Episodes, num(o.Mine), num(o.Theirs))
		if len(extra) > 0 {
			text += "; " + strings.Join(extra, "; ")
		}
		f.add(code, o.Margin, "%s; %s.", text, direction)
	}
}

// num formats a number with about three significant digits.
func num(x float64) string {
	a := math.Abs(x)
	switch {
	case a >= 100 || (x == math.Trunc(x) && a < 1e15):
		return strconv.FormatFloat(x, 'f', 0, 64)
	case a >= 10:
		return strconv.FormatFloat(x, 'f', 1, 64)
	case a == 0:
		return "0"
	case a < 0.01:
		return strconv.FormatFloat(x, 'g', 2, 64)
	}
	return strconv.FormatFloat(x, 'f', 2, 64)
}

// pct formats a share as a percentage.
func pct(x float64) string {
	if x > 0 && x < 0.01 {
		return "<1%"
	}
	return strconv.FormatFloat(100*x, 'f', 0, 64) + "%"
}

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }
