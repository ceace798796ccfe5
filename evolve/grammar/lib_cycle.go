package grammar

import (
	"policyevolve/envs/ssd"
)

// CycleParams (Gathering, where an apple grows back a fixed time after it
// is picked): every agent walks one cycle through all the apple spawns,
// the agents spaced evenly along it, so that each spawn is visited once a
// period. The cycle is made by nearest neighbour from the spawn Start
// picks and shortened by 2-opt over the first steps; until it is done the
// agents go for the nearest alive apple. Then it skips up to Drop spawns
// that lengthen it most, to fit in Spacing steps an agent.
type CycleParams struct {
	// Start picks the spawn the nearest-neighbour construction starts
	// from: spawn Start×n/1000 of the map's n, in the map's order. After
	// 2-opt, cycles built from different spawns differ in length by
	// several percent, and the period, so the harvest, with them
	// (docs/offline-planner.md).
	Start int
	// Spacing is the fewest steps between two agents' visits of a spawn:
	// the agents go round once a period, the cycle's length or Spacing
	// times the number of agents when that is longer (then they walk it
	// more slowly than they could).
	Spacing int
	// Lead: how many steps ahead of its place on the cycle an agent
	// reckons where it should be.
	Lead int
	// Sorted gives the places to the agents in the order in which they
	// stand along the cycle when it is done, turned so that they wait
	// least for their places; else in id order.
	Sorted bool
	// Drop: how many spawns the cycle may skip, once 2-opt is done, to
	// fit in a period of Spacing steps an agent: one at a time the one
	// whose removal shortens it most (the first on ties), while it is
	// longer than that. A cycle longer than the agents can walk in the
	// time an apple takes to grow back spaces their visits of every spawn
	// more than that; skipping the spawns it detours for most trades their
	// apples for a shorter round (docs/offline-planner.md).
	Drop int
}

// harvestCycle walks the agent's place on the cycle: toward the first
// spawn ahead of its place that it can reach by the time its place gets
// there, standing on it until then. Once 2-opt is done, before the places
// are given, the cycle skips up to Drop spawns. The cycle keeps its order in
// k.tour[0], its 2-opt in k.opt[0] and the agents' places at the step the
// cycle was done in k.tourAt (the zones' fields: a genome has one harvest
// kind).
func (k *kit) harvestCycle(v *ssd.View, agent int, p *CycleParams) int {
	k.cycleFor(v, p.Start)
	t := k.tour[0]
	if !k.opt[0].done {
		if a, ok := moveTo(v, agent, v.Apples()); ok {
			return a
		}
		return ssd.Stand
	}
	rs, cs := k.spawnR, k.spawnC
	if k.tourAt == nil && p.Drop > 0 {
		t = dropSpawns(t, rs, cs, p.Drop, p.Spacing*k.n)
		k.tour[0] = t
	}
	n := len(t)
	length := 0
	for j := 0; j < n; j++ {
		e := t[(j+1)%n]
		length += abs(rs[t[j]]-rs[e]) + abs(cs[t[j]]-cs[e])
	}
	if length == 0 { // one spawn
		a, _ := moveTo(v, agent, []ssd.Pos{v.ApplePos(t[0])})
		return a
	}
	period := p.Spacing * k.n
	if period < length {
		period = length
	}
	if k.tourAt == nil {
		k.cyclePlaces(v, p, length, period)
	}
	// The agent's place along the cycle, in steps of its length.
	place := ((k.tourAt[agent] + v.Step() + p.Lead) % period) * length / period
	me := v.AgentPos(agent)
	at := 0 // where along the cycle spawn j is
	for j := 0; j < 2*n; j++ {
		i := t[j%n]
		if j > 0 {
			b := t[(j-1)%n]
			at += abs(rs[b]-rs[i]) + abs(cs[b]-cs[i])
		}
		if at <= place {
			continue
		}
		// Steps until the place gets to spawn i, and to walk there.
		due := (at - place) * period / length
		d := abs(me.R-rs[i]) + abs(me.C-cs[i])
		if d > due {
			continue
		}
		if d == 0 {
			return ssd.Stand
		}
		dr, dc, ok := v.BFSToward(agent, rs[i], cs[i])
		if !ok {
			return ssd.Stand
		}
		return ssd.DirectionToAction(dr, dc, v.Orientation(agent))
	}
	return ssd.Stand
}

// dropSpawns removes at most drop spawns from the cycle t (indices into
// rs and cs, the spawns' rows and columns), one at a time the one whose
// removal shortens it most (the first on ties), while it is longer than
// fit steps; it keeps at least two.
func dropSpawns(t, rs, cs []int, drop, fit int) []int {
	leg := func(a, b int) int { return abs(rs[a]-rs[b]) + abs(cs[a]-cs[b]) }
	length := 0
	for j, i := range t {
		length += leg(i, t[(j+1)%len(t)])
	}
	for ; drop > 0 && len(t) > 2 && length > fit; drop-- {
		n, best, most := len(t), 0, -1
		for j, i := range t {
			a, b := t[(j+n-1)%n], t[(j+1)%n]
			if save := leg(a, i) + leg(i, b) - leg(a, b); save > most {
				best, most = j, save
			}
		}
		t = append(t[:best], t[best+1:]...)
		length -= most
	}
	return t
}

// cycleFor makes the cycle when there is none yet, from the spawn start
// picks (CycleParams.Start), and spends the step's 2-opt budget on it
// once a step.
func (k *kit) cycleFor(v *ssd.View, start int) {
	if k.tour == nil {
		cells := v.AppleSpawns()
		k.spawnR, k.spawnC = make([]int, len(cells)), make([]int, len(cells))
		all := make([]int, len(cells))
		for i, c := range cells {
			k.spawnR[i], k.spawnC[i] = c.R, c.C
			all[i] = i
		}
		k.tour = make([][]int, k.n)
		k.opt = make([]twoOpt, k.n)
		if len(cells) > 0 {
			k.tour[0] = nearestTour(k.spawnR, k.spawnC, cells[start*len(cells)/1000], all)
		}
		k.opt[0] = twoOpt{j: 2}
	}
	if k.optStep != k.step {
		k.optStep = k.step
		k.improveTours(cycleBudget)
	}
}

// cycleBudget bounds the 2-opt work on the cycle in one step, as
// tourBudget does the zones' tours': the cycle is the step's only work
// of this kind, so it may take more, and is done sooner (within about 20
// steps on the paper's large map).
const cycleBudget = 4 * tourBudget

// cyclePlaces gives each agent its place at step 0 (in steps of the
// period), evenly spaced: in id order, or (Sorted) in the order of the
// agents' nearest spawns along the cycle, turned to make the steps the
// agents wait for their places fewest.
func (k *kit) cyclePlaces(v *ssd.View, p *CycleParams, length, period int) {
	n := k.n
	k.tourAt = make([]int, n)
	if !p.Sorted {
		for a := 0; a < n; a++ {
			k.tourAt[a] = a * period / n
		}
		return
	}
	t, rs, cs := k.tour[0], k.spawnR, k.spawnC
	now := v.Step()
	stand := make([]int, n) // where each agent stands along the cycle, in steps of the period
	for a := 0; a < n; a++ {
		me := v.AgentPos(a)
		at, best, bestD := 0, 0, -1
		for j, i := range t {
			if j > 0 {
				b := t[j-1]
				at += abs(rs[b]-rs[i]) + abs(cs[b]-cs[i])
			}
			if d := abs(me.R-rs[i]) + abs(me.C-cs[i]); bestD < 0 || d < bestD {
				best, bestD = at, d
			}
		}
		stand[a] = best * period / length
	}
	order := make([]int, n)
	for a := range order {
		order[a] = a
	}
	for a := 1; a < n; a++ { // by where they stand, ties by id
		for b := a; b > 0 && stand[order[b]] < stand[order[b-1]]; b-- {
			order[b], order[b-1] = order[b-1], order[b]
		}
	}
	turn, fewest := 0, -1
	for s := 0; s < period; s++ {
		wait := 0
		for r, a := range order {
			wait += (stand[a] - (s+r*period/n)%period + period) % period
		}
		if fewest < 0 || wait < fewest {
			turn, fewest = s, wait
		}
	}
	for r, a := range order {
		// The place at step 0 that is at s+r*period/n now.
		k.tourAt[a] = ((turn+r*period/n-now)%period + period) % period
	}
}
