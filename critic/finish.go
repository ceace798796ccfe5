package critic

import (
	"slices"

	"policyevolve/elo"
	"policyevolve/envs/ssd"
)

// finish turns the sums into Diagnostics.
func (a *accumulator) finish() *Diagnostics {
	lay := a.lay
	d := &Diagnostics{
		Game:        lay.Game.String(),
		Params:      lay.Params,
		Height:      lay.Height,
		Width:       lay.Width,
		Agents:      lay.NumAgents,
		Steps:       a.longest,
		Episodes:    a.episodes,
		Seeds:       a.seeds,
		Supply:      supply(lay),
		Actions:     map[string]float64{},
		Starving:    []int{},
		StarveShare: a.cfg.StarveShare,
	}
	var tot agentSums
	for i := range a.agents {
		s := &a.agents[i]
		if s.episodes == 0 {
			continue
		}
		tot.add(s)
		d.PerAgent = append(d.PerAgent, s.perEpisode(i, lay.Game.NumActions()))
	}
	ae := float64(tot.episodes) // agent-episodes of the policy
	eps := float64(a.episodes)
	d.Mine = ae / eps
	d.Reward, d.Apples, d.ActiveSteps = tot.ret/ae, tot.apples/ae, tot.active/ae
	d.Equality = a.equality / eps
	d.Rate = ratio(tot.apples, tot.active)
	for k := range lay.Game.NumActions() {
		d.Actions[ssd.ActionName(k)] = ratio(tot.actions[k], tot.active)
	}
	d.Idle, d.IdleWithApples = ratio(tot.idle, tot.active), tot.idleApples/ae
	d.Oscillation = ratio(tot.osc, tot.active)
	d.Beams = Beams{
		Fired:        tot.beams / ae,
		HitRate:      ratio(tot.beamsHit, tot.beams),
		Hits:         tot.hits / ae,
		Tags:         tot.tags / ae,
		Friendly:     ratio(tot.friendly, tot.hits),
		HitsSuffered: tot.hitsSuffered / ae,
		TagsSuffered: tot.tagsSuffered / ae,
		TaggedOut:    tot.taggedOut / ae,
		Cost:         tot.beamCost / ae,
	}
	d.Contest = Contest{
		Share:  ratio(tot.contested, tot.active),
		Apples: ratio(a.contested, a.steps),
		Wasted: tot.wasted / ae,
	}
	d.Coverage = Coverage{
		Spawns:      len(lay.Apples),
		Never:       a.never / eps,
		Respawned:   a.respawned / eps,
		Uncollected: a.uncollect / eps,
		Map:         coverageMap(lay, a.collected),
	}
	for _, ag := range d.PerAgent {
		if d.Reward > 0 && ag.Return < a.cfg.StarveShare*d.Reward {
			d.Starving = append(d.Starving, ag.ID)
		}
	}
	if lay.Game == ssd.Cleanup {
		d.Cleanup = a.cleanupDiag(&tot, ae, eps)
	}
	names := make([]string, 0, len(a.opps))
	for name := range a.opps {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		d.Opponents = append(d.Opponents, a.opps[name].opponent(name))
	}
	return d
}

func (a *accumulator) cleanupDiag(tot *agentSums, ae, eps float64) *Cleanup {
	c := &Cleanup{
		Threshold:        a.lay.Params.ThresholdDepletion,
		Waste:            ratio(a.waste, a.steps),
		AtThreshold:      ratio(a.atThreshold, a.steps),
		Min:              a.wasteMin,
		Max:              a.wasteMax,
		WasteOverTime:    make([]float64, len(a.wasteBins)),
		Regrowth:         a.respawned / eps,
		RegrowthOverTime: make([]float64, len(a.regrowthBins)),
		LostRegrowth:     a.lost / eps,
		Collapsed:        a.collapsed,
		CollapseWindow:   a.cfg.CollapseWindow,
		CleanBeams:       tot.cleans / ae,
		WastePerBeam:     ratio(tot.removed, tot.cleans),
		Empty:            ratio(tot.emptyCleans, tot.cleans),
		CleanersPerStep:  ratio(a.cleanersSteps, a.steps),
		Cleaners:         a.cleaners / eps,
		FreeRiding:       ratio(a.freeRide, float64(a.freeRideN)),
	}
	if a.steps == 0 {
		c.Min = 0
	}
	for b := range a.wasteBins {
		c.WasteOverTime[b] = ratio(a.wasteBins[b], a.wasteBinN[b])
		c.RegrowthOverTime[b] = a.regrowthBins[b] / eps
	}
	return c
}

func (s *agentSums) add(o *agentSums) {
	s.episodes += o.episodes
	s.ret += o.ret
	s.apples += o.apples
	s.active += o.active
	for k := range s.actions {
		s.actions[k] += o.actions[k]
	}
	s.idle += o.idle
	s.idleApples += o.idleApples
	s.osc += o.osc
	s.beams += o.beams
	s.beamsHit += o.beamsHit
	s.hits += o.hits
	s.tags += o.tags
	s.friendly += o.friendly
	s.hitsSuffered += o.hitsSuffered
	s.tagsSuffered += o.tagsSuffered
	s.taggedOut += o.taggedOut
	s.cleans += o.cleans
	s.removed += o.removed
	s.emptyCleans += o.emptyCleans
	s.beamCost += o.beamCost
	s.contested += o.contested
	s.wasted += o.wasted
}

func (s *agentSums) perEpisode(id, numActions int) Agent {
	e := float64(s.episodes)
	ag := Agent{
		ID: id, Episodes: s.episodes,
		Return: s.ret / e, Apples: s.apples / e, ActiveSteps: s.active / e,
		Actions:     make([]float64, numActions),
		Idle:        ratio(s.idle, s.active),
		Oscillation: ratio(s.osc, s.active),
		Beams:       s.beams / e, BeamsHit: s.beamsHit / e, Hits: s.hits / e, Tags: s.tags / e,
		HitsSuffered: s.hitsSuffered / e, TagsSuffered: s.tagsSuffered / e, TaggedOut: s.taggedOut / e,
		Cleans: s.cleans / e, Removed: s.removed / e,
	}
	for k := range ag.Actions {
		ag.Actions[k] = ratio(s.actions[k], s.active)
	}
	return ag
}

func (o *oppSums) opponent(name string) Opponent {
	e := float64(o.episodes)
	op := Opponent{
		Name: name, Episodes: o.episodes,
		Mine: ratio(o.mine, o.nMine), Theirs: ratio(o.theirs, o.nTheirs),
		TagsSuffered: o.tagsSuffered / e, TagsDealt: o.tagsDealt / e,
		Seats:      o.seats / e,
		AppleShare: ratio(o.applesMine, o.applesAll),
		CleanShare: ratio(o.cleansMine, o.cleansAll),
	}
	op.Margin = op.Theirs - op.Mine
	op.Beaten = elo.Outcome(op.Theirs, op.Mine) == elo.Win
	tagged := op.TagsSuffered > op.TagsDealt
	freeRidden := o.cleansAll > 0 && op.CleanShare > op.Seats && op.AppleShare < op.Seats
	op.Exploited = op.Margin > 0 && (tagged || freeRidden)
	return op
}

// ratio is a/b, or 0 when b is 0.
func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}
