package grammar

import (
	"fmt"

	"policyevolve/critic"
)

// Bias steers mutation by what the critic saw in a parent's episodes:
// which family to change more often, which kinds to switch to, and which
// way to move parameters. The nil Bias mutates uniformly.
type Bias struct {
	weight map[string]float64  // family -> weight (default 1)
	kinds  map[string][]string // family -> preferred kinds
	dir    map[string]int      // parameter -> +1 (up, or true) / -1 (down, or false)
	// Reasons says, one finding a line, why the bias is what it is.
	Reasons []string
}

// Thresholds of BiasFrom on the critic's diagnostics.
const (
	// wasteHigh: the share of steps at or above the depletion threshold
	// from which the river is starved of cleaners.
	wasteHigh = 0.25
	// wasteLow: below this share, with waste under half the threshold and
	// more than a fifth of the agents cleaning at each step, there are
	// cleaners to spare.
	wasteLow = 0.05
	// beamCostShare: beams cost more than they gain when the reward they
	// lose (fire costs, penalties, and steps tagged out at the policy's
	// collection rate) passes this share of the policy's reward.
	beamCostShare = 0.05
	// contestHigh: the share of steps spent heading for an apple another
	// agent heads for too, from which agents should split the map.
	contestHigh = 0.25
	// idleHigh: the share of active steps spent standing while apples are
	// on the map, from which waiting is overdone.
	idleHigh = 0.3
)

// BiasFrom reads the critic's diagnostics of a parent into a mutation
// bias; nil diagnostics give the nil Bias.
func BiasFrom(d *critic.Diagnostics) *Bias {
	if d == nil {
		return nil
	}
	b := &Bias{weight: map[string]float64{}, kinds: map[string][]string{}, dir: map[string]int{}}
	if c := d.Cleanup; c != nil {
		switch {
		case c.AtThreshold >= wasteHigh:
			b.note("waste at or above the depletion threshold on %.0f%% of steps: more cleaners, cleaning sooner", 100*c.AtThreshold)
			b.weight["cleaning"] = 4
			b.kinds["cleaning"] = []string{Fixed, Adaptive}
			b.set(+1, "cleaning.Cleaners", "cleaning.Few", "cleaning.Some", "cleaning.Many", "cleaning.Radius", "cleaning.Search")
			b.set(-1, "cleaning.Low", "cleaning.High", "cleaning.MinWaste")
		case c.AtThreshold < wasteLow && c.Waste < c.Threshold/2 && d.Mine > 0 && c.CleanersPerStep > d.Mine/5:
			b.note("waste stayed low (%.2f) with %.1f cleaners a step: fewer cleaners", c.Waste, c.CleanersPerStep)
			b.weight["cleaning"] = 2
			b.set(-1, "cleaning.Cleaners", "cleaning.Few", "cleaning.Some", "cleaning.Many")
			b.set(+1, "cleaning.Low", "cleaning.High", "cleaning.MinWaste")
		}
	}
	rate := d.Rate
	if rate <= 0 {
		rate = d.Supply
	}
	if lost := d.Beams.Cost + d.Beams.TaggedOut*rate; d.Beams.Fired > 0 && lost > beamCostShare*max(d.Reward, 1) {
		b.note("beams cost %.1f reward per agent (%.0f fired, %.0f steps tagged out): beam less", lost, d.Beams.Fired, d.Beams.TaggedOut)
		b.weight["aggression"] = 3
		b.kinds["aggression"] = []string{Never, Retaliate}
		b.set(-1, "aggression.Reach", "aggression.Turn", "aggression.Near", "aggression.Memory")
		b.set(+1, "aggression.Rest")
	} else {
		for _, o := range d.Opponents {
			if o.Exploited && o.TagsSuffered > o.TagsDealt {
				b.note("%s tagged our agents %.1f times per episode and we tagged it %.1f: answer its beams", o.Name, o.TagsSuffered, o.TagsDealt)
				b.weight["aggression"] = 2
				b.kinds["aggression"] = []string{Retaliate, Territorial}
				b.set(+1, "aggression.Turn", "aggression.Memory")
				break
			}
		}
	}
	if d.Contest.Share >= contestHigh {
		b.note("agents chased the same apples on %.0f%% of their steps: split the map", 100*d.Contest.Share)
		b.weight["harvest"] = 2
		b.kinds["harvest"] = []string{Territory, Strips}
		b.set(+1, "harvest.Avoid")
		b.set(-1, "harvest.Margin", "harvest.Slack", "harvest.Overlap", "harvest.Roam")
	} else if d.ActiveSteps > 0 && d.IdleWithApples/d.ActiveSteps >= idleHigh {
		b.note("agents stood still %.0f%% of their steps while apples were up: wait less", 100*d.IdleWithApples/d.ActiveSteps)
		b.weight["harvest"] = 2
		b.set(-1, "harvest.Wait")
		b.set(+1, "harvest.Roam")
	}
	if len(b.Reasons) == 0 {
		return nil
	}
	return b
}

func (b *Bias) note(format string, args ...any) {
	b.Reasons = append(b.Reasons, fmt.Sprintf(format, args...))
}

func (b *Bias) set(dir int, names ...string) {
	for _, n := range names {
		b.dir[n] = dir
	}
}

func (b *Bias) familyWeight(f string) float64 {
	if b != nil {
		if w, ok := b.weight[f]; ok {
			return w
		}
	}
	return 1
}

// kindRate is the chance to switch family f's kind from cur: higher when
// the bias prefers other kinds of f.
func (b *Bias) kindRate(f, cur string) float64 {
	if b != nil && len(b.kinds[f]) > 0 && !b.prefers(f, cur) {
		return 2 * kindRate
	}
	return kindRate
}

func (b *Bias) prefers(f, kind string) bool {
	if b == nil {
		return false
	}
	for _, k := range b.kinds[f] {
		if k == kind {
			return true
		}
	}
	return false
}

func (b *Bias) direction(name string) int {
	if b == nil {
		return 0
	}
	return b.dir[name]
}
