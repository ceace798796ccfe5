package critic

import (
	"slices"

	"policyevolve/envs"
	"policyevolve/envs/ssd"
)

// episodeSums follow one episode step by step and add what they find to
// the accumulator.
type episodeSums struct {
	a    *accumulator
	mine []bool

	ret, apples, cleans []float64 // per agent
	pending             []bool    // per apple: reappeared, not collected since
	here                []bool    // per apple: collected by the policy
	heads               []int     // per apple: agents heading for it this step
	headFor             []int     // per agent: the apple it heads for, or -1
	runs                []pursuit // per agent
	activeBefore        []bool    // per agent: acted at the previous step
	lastRegrowth        int
}

func newEpisodeSums(a *accumulator, mine []bool) *episodeSums {
	n, k := a.lay.NumAgents, len(a.lay.Apples)
	e := &episodeSums{
		a: a, mine: mine,
		ret: make([]float64, n), apples: make([]float64, n), cleans: make([]float64, n),
		pending: make([]bool, k), here: make([]bool, k), heads: make([]int, k),
		headFor: make([]int, n), runs: make([]pursuit, n), activeBefore: make([]bool, n),
		lastRegrowth: -1,
	}
	for i := range e.runs {
		e.runs[i].apple = -1
	}
	return e
}

// contest finds which apple each agent headed for at the step, extends or
// restarts its pursuit, and counts the apples several agents headed for.
func (e *episodeSums) contest(before, after *ssd.State, ev *Events) {
	field := slices.Contains(before.AppleAlive, true) && e.a.near.flood(before.AppleAlive)
	clear(e.heads)
	for i := range e.headFor {
		e.headFor[i] = -1
		if field && ev.Active[i] {
			e.headFor[i] = e.a.near.heading(before.Pos[i], after.Pos[i])
		}
		switch k := e.headFor[i]; {
		case k < 0:
			e.runs[i] = pursuit{-1, 0}
		case e.runs[i].apple == k:
			e.heads[k]++
			e.runs[i].steps++
		default:
			e.heads[k]++
			e.runs[i] = pursuit{k, 1}
		}
	}
	for _, c := range e.heads {
		if c >= 2 {
			e.a.contested++
		}
	}
}

// behaviour adds the step's rewards and, for the policy's agents, their
// actions, idling, oscillation and contested pursuits. before2 is the
// state two steps back (nil at the first step).
func (e *episodeSums) behaviour(before2, before *ssd.State, s *envs.StepRecord, ev *Events) {
	anyAlive := slices.Contains(before.AppleAlive, true)
	for i, r := range s.Rewards {
		e.ret[i] += r
		if !e.mine[i] {
			continue
		}
		as := &e.a.agents[i]
		if s.State.Timeout[i] > 0 {
			as.taggedOut++
		}
		if !ev.Active[i] {
			continue
		}
		as.active++
		act := s.Actions[i]
		if act >= 0 && act < len(as.actions) {
			as.actions[act]++
		}
		if act == ssd.Stand {
			as.idle++
			if anyAlive {
				as.idleApples++
			}
		}
		if before2 != nil && e.activeBefore[i] && undid(before2, before, &s.State, i) {
			as.osc++
		}
		if k := e.headFor[i]; k >= 0 && e.heads[k] >= 2 {
			as.contested++
		}
	}
}

// regrowth notes the apples that reappeared at step t.
func (e *episodeSums) regrowth(ev *Events, t, bin int) {
	for _, k := range ev.Regrown {
		e.pending[k] = true
		e.a.respawned++
		e.a.regrowthBins[bin]++
		e.lastRegrowth = t
	}
}

// collect counts the apples collected and ends the pursuits of those
// apples: in vain for every agent but the collector.
func (e *episodeSums) collect(ev *Events) {
	for j, k := range ev.Collected {
		if k < 0 {
			continue
		}
		e.apples[j]++
		e.pending[k] = false
		if e.mine[j] {
			e.a.collected[k]++
			e.here[k] = true
		}
		for i := range e.runs {
			if e.runs[i].apple != k {
				continue
			}
			if i != j && e.mine[i] {
				e.a.agents[i].wasted += float64(e.runs[i].steps)
			}
			e.runs[i] = pursuit{-1, 0}
		}
	}
}

// clean adds the step's clean beams.
func (e *episodeSums) clean(ev *Events) {
	for _, c := range ev.Cleans {
		e.cleans[c.Agent]++
		if !e.mine[c.Agent] {
			continue
		}
		as := &e.a.agents[c.Agent]
		as.cleans++
		as.removed += float64(len(c.Removed))
		if len(c.Removed) == 0 {
			as.emptyCleans++
		}
		e.a.cleanersSteps++
	}
}

// end adds the episode's totals: returns, equality, coverage and, in
// Cleanup, collapse, cleaners and free-riding. T is its length.
func (e *episodeSums) end(T int) {
	a := e.a
	var mineRet [][]float64
	for i, m := range e.mine {
		if !m {
			continue
		}
		as := &a.agents[i]
		as.episodes++
		as.ret += e.ret[i]
		as.apples += e.apples[i]
		mineRet = append(mineRet, []float64{e.ret[i]})
	}
	// One "step" per agent holding its return gives the returns' equality.
	a.equality += envs.ComputeMetrics(mineRet, nil).Equality
	for k := range e.here {
		if !e.here[k] {
			a.never++
		}
		if e.pending[k] {
			a.uncollect++
		}
	}
	if a.lay.Game != ssd.Cleanup {
		return
	}
	if T > 0 && e.lastRegrowth < T-a.cfg.CollapseWindow {
		a.collapsed++
	}
	var all, free float64
	for i := range e.apples {
		all += e.apples[i]
		if e.cleans[i] == 0 {
			free += e.apples[i]
		}
		if e.mine[i] && e.cleans[i] > 0 {
			a.cleaners++
		}
	}
	if all > 0 {
		a.freeRide += free / all
		a.freeRideN++
	}
}
