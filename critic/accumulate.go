package critic

import (
	"slices"
	"strings"

	"policyevolve/elo"
	"policyevolve/envs"
	"policyevolve/envs/ssd"
)

// agentSums are one agent id's totals over the episodes in which the
// policy played it.
type agentSums struct {
	episodes                              int
	ret, apples, active                   float64
	actions                               [9]float64
	idle, idleApples, osc                 float64
	beams, beamsHit, hits, tags, friendly float64
	hitsSuffered, tagsSuffered, taggedOut float64
	cleans, removed, emptyCleans          float64
	beamCost, contested, wasted           float64
}

// oppSums are the totals of the matches against one opponent.
type oppSums struct {
	episodes                                     int
	mine, theirs, nMine, nTheirs, seats          float64 // return and agent sums; seat shares
	tagsSuffered, tagsDealt                      float64
	applesMine, applesAll, cleansMine, cleansAll float64
}

// pursuit is the apple an agent has been heading for, and for how long.
type pursuit struct{ apple, steps int }

// accumulator sums over episodes what finish turns into Diagnostics.
type accumulator struct {
	lay     *ssd.Layout
	cfg     Config
	longest int
	near    *nearest

	agents    []agentSums
	episodes  int
	seeds     []uint64
	equality  float64
	steps     float64   // agent-independent steps, all episodes
	collected []float64 // per apple spawn, by the policy's agents
	never     float64
	respawned float64
	uncollect float64
	contested float64 // apples several agents headed for, summed over steps

	// Cleanup.
	waste, atThreshold   float64
	wasteMin, wasteMax   float64
	wasteBins, wasteBinN []float64
	lost                 float64
	regrowthBins         []float64
	collapsed            int
	cleanersSteps        float64
	cleaners             float64
	freeRide             float64
	freeRideN            int
	opps                 map[string]*oppSums
}

func newAccumulator(lay *ssd.Layout, cfg Config, longest int) *accumulator {
	return &accumulator{
		lay:          lay,
		cfg:          cfg,
		longest:      longest,
		near:         newNearest(lay),
		agents:       make([]agentSums, lay.NumAgents),
		collected:    make([]float64, len(lay.Apples)),
		wasteMin:     1,
		wasteBins:    make([]float64, cfg.Bins),
		wasteBinN:    make([]float64, cfg.Bins),
		regrowthBins: make([]float64, cfg.Bins),
		opps:         map[string]*oppSums{},
	}
}

// episode adds one episode; events are its derived events.
func (a *accumulator) episode(ep Episode, mine []bool, events []Events) {
	tr := ep.Trajectory
	lay := a.lay
	p := lay.Params
	cleanup := lay.Game == ssd.Cleanup
	n, T := lay.NumAgents, len(tr.Steps)
	a.episodes++
	a.seeds = append(a.seeds, tr.Seed)
	a.steps += float64(T)

	ret := make([]float64, n)
	apples := make([]float64, n)
	cleans := make([]float64, n)
	pending := make([]bool, len(lay.Apples)) // reappeared, not collected since
	here := make([]bool, len(lay.Apples))    // collected by the policy this episode
	heads := make([]int, len(lay.Apples))
	headFor := make([]int, n)
	runs := make([]pursuit, n)
	for i := range runs {
		runs[i].apple = -1
	}
	activeBefore := make([]bool, n)
	lastRegrowth := -1
	var before2 *ssd.State
	before := &tr.Reset
	for t := range T {
		s := &tr.Steps[t]
		after, ev := &s.State, &events[t]
		bin := t * a.cfg.Bins / T
		anyAlive := slices.Contains(before.AppleAlive, true)

		// Who heads for which apple.
		field := anyAlive && a.near.flood(before.AppleAlive)
		clear(heads)
		for i := range headFor {
			headFor[i] = -1
			if field && ev.Active[i] {
				headFor[i] = a.near.heading(before.Pos[i], after.Pos[i])
			}
			if k := headFor[i]; k >= 0 {
				heads[k]++
				if runs[i].apple == k {
					runs[i].steps++
				} else {
					runs[i] = pursuit{k, 1}
				}
			} else {
				runs[i] = pursuit{-1, 0}
			}
		}
		for _, c := range heads {
			if c >= 2 {
				a.contested++
			}
		}

		for i := range n {
			ret[i] += s.Rewards[i]
			if !mine[i] {
				continue
			}
			as := &a.agents[i]
			if after.Timeout[i] > 0 {
				as.taggedOut++
			}
			if !ev.Active[i] {
				continue
			}
			as.active++
			if act := s.Actions[i]; act >= 0 && act < len(as.actions) {
				as.actions[act]++
			}
			if s.Actions[i] == ssd.Stand {
				as.idle++
				if anyAlive {
					as.idleApples++
				}
			}
			if before2 != nil && activeBefore[i] && undid(before2, before, after, i) {
				as.osc++
			}
			if k := headFor[i]; k >= 0 && heads[k] >= 2 {
				as.contested++
			}
		}

		for _, k := range ev.Regrown {
			pending[k] = true
			a.respawned++
			a.regrowthBins[bin]++
			lastRegrowth = t
		}
		for j, k := range ev.Collected {
			if k < 0 {
				continue
			}
			apples[j]++
			pending[k] = false
			if mine[j] {
				a.collected[k]++
				here[k] = true
			}
			for i := range runs {
				if runs[i].apple != k {
					continue
				}
				if i != j && mine[i] {
					a.agents[i].wasted += float64(runs[i].steps)
				}
				runs[i] = pursuit{-1, 0}
			}
		}

		a.beams(ep, mine, ev)
		for _, c := range ev.Cleans {
			cleans[c.Agent]++
			if !mine[c.Agent] {
				continue
			}
			as := &a.agents[c.Agent]
			as.cleans++
			as.removed += float64(len(c.Removed))
			if len(c.Removed) == 0 {
				as.emptyCleans++
			}
			a.cleanersSteps++
		}
		if cleanup {
			d := density(after.Waste)
			a.waste += d
			if d >= p.ThresholdDepletion {
				a.atThreshold++
			}
			a.wasteMin, a.wasteMax = min(a.wasteMin, d), max(a.wasteMax, d)
			a.wasteBins[bin] += d
			a.wasteBinN[bin]++
			a.lost += (p.AppleRespawnProb - regrowthProb(p, d)) * float64(regrowthCandidates(lay, before, after))
		}
		before2, before = before, after
		copy(activeBefore, ev.Active)
	}

	var mineRet [][]float64
	for i := range n {
		if !mine[i] {
			continue
		}
		as := &a.agents[i]
		as.episodes++
		as.ret += ret[i]
		as.apples += apples[i]
		mineRet = append(mineRet, []float64{ret[i]})
	}
	// One "step" per agent holding its return gives the returns' equality.
	a.equality += envs.ComputeMetrics(mineRet, nil).Equality
	for k := range here {
		if !here[k] {
			a.never++
		}
		if pending[k] {
			a.uncollect++
		}
	}
	if cleanup {
		if T > 0 && lastRegrowth < T-a.cfg.CollapseWindow {
			a.collapsed++
		}
		var all, free float64
		for i := range n {
			all += apples[i]
			if cleans[i] == 0 {
				free += apples[i]
			}
			if mine[i] && cleans[i] > 0 {
				a.cleaners++
			}
		}
		if all > 0 {
			a.freeRide += free / all
			a.freeRideN++
		}
	}
	if ep.Opponent != "" {
		a.match(ep, mine, ret, apples, cleans, events)
	}
}

// beams adds the beams of one step.
func (a *accumulator) beams(ep Episode, mine []bool, ev *Events) {
	p := a.lay.Params
	cleanup := a.lay.Game == ssd.Cleanup
	for _, b := range ev.Beams {
		if mine[b.Agent] {
			as := &a.agents[b.Agent]
			as.beams++
			if len(b.Hit) > 0 {
				as.beamsHit++
			}
			as.hits += float64(len(b.Hit))
			as.tags += float64(len(b.Tagged))
			if cleanup {
				as.beamCost += p.FireCost
			}
			for _, j := range b.Hit {
				if mine[j] {
					as.friendly++
				}
			}
		}
		for _, j := range b.Hit {
			if mine[j] {
				a.agents[j].hitsSuffered++
				if cleanup {
					a.agents[j].beamCost += p.FirePenalty
				}
			}
		}
		for _, j := range b.Tagged {
			if mine[j] {
				a.agents[j].tagsSuffered++
			}
		}
	}
}

// match adds one episode against an opponent.
func (a *accumulator) match(ep Episode, mine []bool, ret, apples, cleans []float64, events []Events) {
	o := a.opps[ep.Opponent]
	if o == nil {
		o = &oppSums{}
		a.opps[ep.Opponent] = o
	}
	var mr, tr, nm, nt float64
	for i := range mine {
		o.applesAll += apples[i]
		o.cleansAll += cleans[i]
		if mine[i] {
			mr += ret[i]
			nm++
			o.applesMine += apples[i]
			o.cleansMine += cleans[i]
		} else {
			tr += ret[i]
			nt++
		}
	}
	o.episodes++
	o.mine, o.nMine = o.mine+mr, o.nMine+nm
	o.theirs, o.nTheirs = o.theirs+tr, o.nTheirs+nt
	o.seats += nm / (nm + nt)
	for t := range events {
		for _, b := range events[t].Beams {
			for _, j := range b.Tagged {
				switch {
				case mine[j] && !mine[b.Agent]:
					o.tagsSuffered++
				case !mine[j] && mine[b.Agent]:
					o.tagsDealt++
				}
			}
		}
	}
}

// undid reports whether agent i's step from s1 to s2 undid its step from
// s0 to s1: it stands and faces as at s0, and had moved or turned at s1.
func undid(s0, s1, s2 *ssd.State, i int) bool {
	back := s2.Pos[i] == s0.Pos[i] && s2.Orient[i] == s0.Orient[i]
	moved := s1.Pos[i] != s0.Pos[i] || s1.Orient[i] != s0.Orient[i]
	return back && moved
}

func density(waste []bool) float64 {
	if len(waste) == 0 {
		return 0
	}
	n := 0
	for _, w := range waste {
		if w {
			n++
		}
	}
	return float64(n) / float64(len(waste))
}

// regrowthProb is the probability that a dead apple regrows at a step
// ending at waste density d: the clean-river rate at or below the
// restoration threshold, nothing at or above the depletion threshold, a
// straight line between (as the environment computes it).
func regrowthProb(p ssd.Params, d float64) float64 {
	switch {
	case d >= p.ThresholdDepletion:
		return 0
	case d <= p.ThresholdRestoration:
		return p.AppleRespawnProb
	}
	frac := (d - p.ThresholdRestoration) / (p.ThresholdDepletion - p.ThresholdRestoration)
	return (1 - frac) * p.AppleRespawnProb
}

// regrowthCandidates counts the apples that could regrow at the step from
// before to after: dead before it, with no agent standing on them after
// the agents moved.
func regrowthCandidates(lay *ssd.Layout, before, after *ssd.State) int {
	n := 0
	for k, alive := range before.AppleAlive {
		if !alive && !slices.Contains(after.Pos, lay.Apples[k]) {
			n++
		}
	}
	return n
}

// supply is the apples per agent-step the map could give: every spawn
// harvested as soon as it reappears (Gathering), or regrowing at a clean
// river's rate (Cleanup); at most 1.
func supply(lay *ssd.Layout) float64 {
	if lay.NumAgents == 0 {
		return 0
	}
	s, n := float64(len(lay.Apples)), float64(lay.NumAgents)
	v := s / (n * float64(max(1, lay.Params.AppleRespawnTime)))
	if lay.Game == ssd.Cleanup {
		v = s * lay.Params.AppleRespawnProb / n
	}
	return min(1, v)
}

// coverageMap draws the grid with the harvest per apple spawn.
func coverageMap(lay *ssd.Layout, collected []float64) []string {
	grid := make([][]byte, lay.Height)
	for r := range grid {
		grid[r] = make([]byte, lay.Width)
		for c := range grid[r] {
			grid[r][c] = ' '
			if lay.Walls[r*lay.Width+c] {
				grid[r][c] = '@'
			}
		}
	}
	for _, q := range lay.River {
		grid[q.R][q.C] = '~'
	}
	for _, q := range lay.Stream {
		grid[q.R][q.C] = '='
	}
	most := slices.Max(append([]float64{0}, collected...))
	for k, q := range lay.Apples {
		ch := byte('.')
		if collected[k] > 0 {
			ch = '1' + byte(8*collected[k]/most)
		}
		grid[q.R][q.C] = ch
	}
	out := make([]string, lay.Height)
	for r, row := range grid {
		out[r] = strings.TrimRight(string(row), " ")
	}
	return out
}

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
