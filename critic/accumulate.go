package critic

import "policyevolve/envs/ssd"

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
	T := len(tr.Steps)
	a.episodes++
	a.seeds = append(a.seeds, tr.Seed)
	a.steps += float64(T)
	e := newEpisodeSums(a, mine)
	var before2 *ssd.State
	before := &tr.Reset
	for t := range T {
		s := &tr.Steps[t]
		after, ev := &s.State, &events[t]
		bin := t * a.cfg.Bins / T
		e.contest(before, after, ev)
		e.behaviour(before2, before, s, ev)
		e.regrowth(ev, t, bin)
		e.collect(ev)
		a.beams(mine, ev)
		e.clean(ev)
		if a.lay.Game == ssd.Cleanup {
			a.wasteStep(before, after, bin)
		}
		before2, before = before, after
		copy(e.activeBefore, ev.Active)
	}
	e.end(T)
	if ep.Opponent != "" {
		a.match(ep, mine, e.ret, e.apples, e.cleans, events)
	}
}

// wasteStep adds the waste density after a step and the regrowth it cost.
func (a *accumulator) wasteStep(before, after *ssd.State, bin int) {
	p := a.lay.Params
	d := density(after.Waste)
	a.waste += d
	if d >= p.ThresholdDepletion {
		a.atThreshold++
	}
	a.wasteMin, a.wasteMax = min(a.wasteMin, d), max(a.wasteMax, d)
	a.wasteBins[bin] += d
	a.wasteBinN[bin]++
	a.lost += (p.AppleRespawnProb - regrowthProb(p, d)) * float64(regrowthCandidates(a.lay, before, after))
}

// beams adds the beams of one step.
func (a *accumulator) beams(mine []bool, ev *Events) {
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
