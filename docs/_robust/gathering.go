// The Gathering main job's champion 7bdf8c34 (written by the grammar
// planner; its genome and strategy below) with hand-written defence
// modules added, to measure what a cooperator needs to hold among
// strangers (docs/scenarios.md). With every defence setting off it plays
// exactly as 7bdf8c34 does. The settings are the variable defence.
//
// genome (of 7bdf8c34): {"v":3,"game":"gathering","harvest":{"kind":"cycle","params":{"Start":533,"Spacing":15,"Lead":3,"Sorted":true,"Drop":7}},"aggression":{"kind":"never"}}
//
// Strategy (gathering):
//   - harvesting: one cycle through the apple spawns (as 7bdf8c34: the
//     spawn 533‰ along the map's, 2-opt, up to 7 spawns skipped), every
//     agent walking its own place along it, reckoned 3 steps ahead
//   - aggression: never beam first
//   - defence (hand-written): see DefenceParams
package policy

import (
	"ssd"
)

// harvest are the parameters of the harvest module (cycle).
var harvest = CycleParams{
	Start:   533,
	Spacing: 15,
	Lead:    3,
	Sorted:  true,
	Drop:    7,
}

// defence are the hand-written defence modules' settings.
var defence = DefenceParams{
	Retaliate:   false,
	Memory:      100,
	Turn:        false,
	Chase:       0,
	Evade:       0,
	Repartition: false,
	Guard:       0,
	Guards:      2,
}

// DefenceParams are the defences against strangers. Self-play never calls
// for any of them (no agent beams), so they cost nothing there, except
// Repartition, which changes nothing when every agent is of the team.
type DefenceParams struct {
	// Retaliate: beam an aggressor (a stranger that beamed one of the team
	// within the last Memory steps) when it stands in the agent's beam and
	// no teammate does.
	Retaliate bool
	// Memory: how many steps after its last beam at the team a stranger
	// stays an aggressor (when to stop retaliating).
	Memory int
	// Turn: with Retaliate, also turn toward an aggressor that a beam
	// facing left or right would hit.
	Turn bool
	// Chase: with Retaliate, the teammate nearest an aggressor (the first
	// by id on ties) leaves its harvest to line up with it (its row or
	// column) when it is at most Chase steps away; 0 never chases.
	Chase int
	// Evade: 0 never; 1 step out of an aggressor's beam when it faces the
	// agent within reach; 2 out of any stranger's.
	Evade int
	// Repartition: the cycle's places go to the team's agents only (the
	// agents this instance plays), not to every agent of the episode.
	Repartition bool
	// Guard: when an aggressor has at most Guard steps left tagged out, the
	// Guards teammates nearest it walk to cells from which their beams reach
	// it, out of the way it faces, and turn to it; every teammate whose beam
	// reaches it (and no teammate) fires in its last step out, so that the
	// beams land the step it comes back, after its own action (agents act
	// in id order; two hits tag). 0 never.
	Guard  int
	Guards int
}

// k is this policy instance's memory of the episode.
var k = newKit()

// Policy stands while the agent is tagged out; else it lets the modules
// decide in turn.
func Policy(v *ssd.View, agent int) int {
	k.begin(v, agent)
	if !v.Active(agent) {
		return k.done(agent, ssd.Stand)
	}
	if a, ok := k.defend(v, agent, &defence); ok {
		return k.done(agent, a)
	}
	return k.done(agent, k.harvestCycle(v, agent, &harvest))
}

// aggressor reports whether j is a stranger, active, that beamed one of
// the team within the last p.Memory steps.
func (k *kit) aggressor(v *ssd.View, j int, p *DefenceParams) bool {
	return !k.team[j] && v.Active(j) && k.step-k.shotAt[j] <= p.Memory
}

// hitsAggressor reports whether a beam from me facing orient hits an
// aggressor and no teammate.
func (k *kit) hitsAggressor(v *ssd.View, agent int, me ssd.Pos, orient int, p *DefenceParams) bool {
	hit := false
	for j := 0; j < k.n; j++ {
		if j == agent || !v.Active(j) || !covers(v, me, orient, v.AgentPos(j)) {
			continue
		}
		if k.team[j] {
			return false
		}
		if k.aggressor(v, j, p) {
			hit = true
		}
	}
	return hit
}

// threatened reports whether a cell lies in the beam of a stranger that
// Evade fears.
func (k *kit) threatened(v *ssd.View, cell ssd.Pos, p *DefenceParams) bool {
	for j := 0; j < k.n; j++ {
		if k.team[j] || !v.Active(j) {
			continue
		}
		if p.Evade < 2 && !k.aggressor(v, j, p) {
			continue
		}
		if covers(v, v.AgentPos(j), v.Orientation(j), cell) {
			return true
		}
	}
	return false
}

// chase moves the agent toward the nearest aggressor's row or column when
// it is the teammate nearest that aggressor and within p.Chase steps.
func (k *kit) chase(v *ssd.View, agent int, me ssd.Pos, p *DefenceParams) (int, bool) {
	target, dist := -1, 0
	for j := 0; j < k.n; j++ {
		if !k.aggressor(v, j, p) {
			continue
		}
		q := v.AgentPos(j)
		if d := abs(q.R-me.R) + abs(q.C-me.C); d <= p.Chase && (target < 0 || d < dist) {
			target, dist = j, d
		}
	}
	if target < 0 {
		return 0, false
	}
	q := v.AgentPos(target)
	for i := 0; i < k.n; i++ { // the nearest teammate goes
		if i == agent || !k.team[i] || !v.Active(i) {
			continue
		}
		o := v.AgentPos(i)
		d := abs(q.R-o.R) + abs(q.C-o.C)
		if d < dist || d == dist && i < agent {
			return 0, false
		}
	}
	dr, dc := q.R-me.R, q.C-me.C
	if dr == 0 || dc == 0 {
		return 0, false // in line: Turn and Retaliate do the rest
	}
	r, c := q.R, me.C
	if abs(dc) < abs(dr) {
		r, c = me.R, q.C
	}
	mr, mc, ok := v.BFSToward(agent, r, c)
	if !ok {
		return 0, false
	}
	return ssd.DirectionToAction(mr, mc, v.Orientation(agent)), true
}

// guard readies the agent for an aggressor's return (DefenceParams.Guard).
func (k *kit) guard(v *ssd.View, agent int, me ssd.Pos, o int, p *DefenceParams) (int, bool) {
	for j := 0; j < k.n; j++ {
		t := v.Timeout(j)
		if k.team[j] || t < 1 || t > p.Guard || k.step-k.shotAt[j] > p.Memory {
			continue
		}
		q := v.AgentPos(j)
		if t == 1 && covers(v, me, o, q) && k.mateFree(v, agent, me, o) {
			return ssd.Beam, true
		}
		// Only the Guards teammates nearest the aggressor (the first by id on ties) guard.
		d := abs(q.R-me.R) + abs(q.C-me.C)
		nearer := 0
		for i := 0; i < k.n; i++ {
			if i == agent || !k.team[i] || !v.Active(i) {
				continue
			}
			r := v.AgentPos(i)
			if e := abs(q.R-r.R) + abs(q.C-r.C); e < d || e == d && i < agent {
				nearer++
			}
		}
		if nearer >= p.Guards {
			continue
		}
		for oo := 0; oo < 4; oo++ {
			if covers(v, me, oo, q) && !covers(v, q, v.Orientation(j), me) {
				if oo == o {
					return ssd.Stand, true
				}
				return ssd.RotateToward(o, oo), true
			}
		}
		var cells []ssd.Pos
		bl := v.Params().BeamLength
		for r := q.R - bl; r <= q.R+bl; r++ {
			for c := q.C - bl; c <= q.C+bl; c++ {
				cell := ssd.Pos{R: r, C: c}
				if v.Wall(r, c) || samePos(cell, q) || covers(v, q, v.Orientation(j), cell) {
					continue
				}
				for oo := 0; oo < 4; oo++ {
					if covers(v, cell, oo, q) {
						cells = append(cells, cell)
						break
					}
				}
			}
		}
		if a, ok := moveTo(v, agent, cells); ok {
			return a, true
		}
	}
	return 0, false
}

// mateFree reports whether a beam from me facing o hits no teammate.
func (k *kit) mateFree(v *ssd.View, agent int, me ssd.Pos, o int) bool {
	for i := 0; i < k.n; i++ {
		if i != agent && k.team[i] && v.Active(i) && covers(v, me, o, v.AgentPos(i)) {
			return false
		}
	}
	return true
}

// defend returns a defence's action, when one applies: retaliation first,
// then evasion.
func (k *kit) defend(v *ssd.View, agent int, p *DefenceParams) (int, bool) {
	me := v.AgentPos(agent)
	ori := v.Orientation(agent)
	if p.Guard > 0 {
		if a, ok := k.guard(v, agent, me, ori, p); ok {
			return a, true
		}
	}
	if p.Retaliate {
		if k.hitsAggressor(v, agent, me, ori, p) {
			return ssd.Beam, true
		}
		if p.Turn {
			if k.hitsAggressor(v, agent, me, (ori+1)%4, p) {
				return ssd.RotateRight, true
			}
			if k.hitsAggressor(v, agent, me, (ori+3)%4, p) {
				return ssd.RotateLeft, true
			}
		}
	}
	if p.Retaliate && p.Chase > 0 {
		if a, ok := k.chase(v, agent, me, p); ok {
			return a, true
		}
	}
	if p.Evade > 0 && k.threatened(v, me, p) {
		dirs := [4][2]int{{-1, 0}, {0, 1}, {1, 0}, {0, -1}}
		for _, d := range dirs {
			r, c := me.R+d[0], me.C+d[1]
			if v.Wall(r, c) || len(v.AgentsAt(r, c)) > 0 {
				continue
			}
			if !k.threatened(v, ssd.Pos{R: r, C: c}, p) {
				return ssd.DirectionToAction(d[0], d[1], ori), true
			}
		}
	}
	return 0, false
}

// kit is one policy instance's memory for one episode: the agents it
// plays, the previous step's state (to see who beamed whom), each agent's
// last action, and computations shared by the agents of a step.
// Policy calls come in agent order, once per agent and step; the first
// call of a step opens it.
type kit struct {
	step    int // the step being played; -1 before the first call
	n       int
	called  []int  // the last step at which each agent was asked for
	team    []bool // the agents this instance plays, as far as it knows
	last    []int  // the action each agent was last given
	prevPos []ssd.Pos
	prevOri []int
	prevHit []int
	prevOut []int
	shotAt  []int // the last step at which each agent beamed one of the team
	tagged  []int // the last step at which each agent's beam tagged someone
	// The Voronoi territories of the step: nil until asked for.
	owner []int
	odist []int
	// Cleaning roles: the cleaners, the step they were chosen for, and
	// the step at which they last changed.
	cleaner  []bool
	roleAt   int
	roleStep int
	// The agents ranked for the cleaner role at the last assignment, and
	// the river's sections: each cell's (that of its nearest river cell),
	// each agent's (-1 for none), and the role change they were cut for.
	ranked  []int
	secAt   []int
	secOf   []int
	secStep int
	// The river cells' orders, made at the first cut into sections.
	riverOrd *cellOrder
	// Strips: the apples of each agent's strip, made at first use.
	strip [][]int
	// Scratch lists of an agent's own apples and spawns, reused.
	own    []ssd.Pos
	spawns []ssd.Pos
	// Zones: each agent's apple indices, the agents they were cut for,
	// and a scratch list of the agents to cut for.
	zone    [][]int
	zoneWho []int
	who     []int
	// The apple spawns' rows and columns and their orders, made at the
	// first cut.
	spawnR, spawnC []int
	spawnOrd       *cellOrder
	// Tours: each agent's zone in cycle order, where along it the agent
	// is heading, where its 2-opt stands, and the step whose 2-opt budget
	// was spent last.
	tour    [][]int
	tourAt  []int
	opt     []twoOpt
	optStep int
	// Apples: whether each was alive at the last step, and the step at
	// which each can next be picked (the step itself while it is alive;
	// -1 when unknown: Cleanup's regrowth is random).
	appleWas []bool
	ready    []int
	// Paths: richStep's scratch, made at first use — each cell's distance
	// from the agent and the search (a generation) that reached it, the
	// targets' marks, the apples along the best paths from each cell and
	// the count they belong to, and the search's queue and layers.
	pathDist, pathSeen, pathMark   []int
	pathCount, pathCounted         []int
	pathGen                        int
	pathQueue, pathLayer, pathNext []int
}

func newKit() *kit { return &kit{step: -1, roleAt: -1} }

// begin opens the step at its first call and notes that agent is played
// by this instance.
func (k *kit) begin(v *ssd.View, agent int) {
	if k.step != v.Step() || k.n == 0 {
		k.newStep(v)
	}
	k.called[agent] = k.step
}

// done records the action given to agent and returns it.
func (k *kit) done(agent, action int) int {
	k.last[agent] = action
	return action
}

func (k *kit) newStep(v *ssd.View) {
	if k.n == 0 {
		k.n = v.NumAgents()
		k.called = make([]int, k.n)
		k.team = make([]bool, k.n)
		k.last = make([]int, k.n)
		k.prevPos = make([]ssd.Pos, k.n)
		k.prevOri = make([]int, k.n)
		k.prevHit = make([]int, k.n)
		k.prevOut = make([]int, k.n)
		k.shotAt = make([]int, k.n)
		k.tagged = make([]int, k.n)
		k.cleaner = make([]bool, k.n)
		for i := 0; i < k.n; i++ {
			k.called[i] = -1
			k.team[i] = true // until the first step shows which agents are ours
			k.last[i] = ssd.Stand
			k.shotAt[i] = -1000000
			k.tagged[i] = -1000000
		}
		k.appleWas = make([]bool, v.NumApples())
		k.ready = make([]int, v.NumApples())
		for i := range k.ready {
			k.ready[i] = -1
		}
	} else {
		for i := 0; i < k.n; i++ {
			k.team[i] = k.called[i] == k.step
		}
		k.seeBeams(v)
	}
	k.seeApples(v)
	k.step = v.Step()
	k.owner = nil
	k.odist = nil
	for i := 0; i < k.n; i++ {
		k.prevPos[i] = v.AgentPos(i)
		k.prevOri[i] = v.Orientation(i)
		k.prevHit[i] = v.BeamHits(i)
		k.prevOut[i] = v.Timeout(i)
	}
}

// seeApples notes when each apple can next be picked. In Gathering a
// collected apple grows back AppleRespawnTime steps after it was picked,
// where it was picked again at once when it is still missing then (an
// agent stood on it); Cleanup's regrowth is random, and a missing apple's
// time unknown.
func (k *kit) seeApples(v *ssd.View) {
	now := v.Step()
	rt := v.Params().AppleRespawnTime
	for i := range k.ready {
		alive := v.AppleAlive(i)
		switch {
		case alive:
			k.ready[i] = now
		case rt <= 0:
			k.ready[i] = -1
		case k.appleWas[i]:
			k.ready[i] = now + rt
		case k.ready[i] >= 0:
			for k.ready[i] <= now {
				k.ready[i] += rt
			}
		}
		k.appleWas[i] = alive
	}
}

// seeBeams infers the beams of the last step from the change of state:
// an agent hit (more beam hits, or newly tagged out) was hit by every
// agent that stood still, facing the same way, with it inside its beam.
// Those shooters are remembered as having beamed the team (shotAt), and
// our own agents that fired and tagged someone as having tagged (tagged).
func (k *kit) seeBeams(v *ssd.View) {
	for i := 0; i < k.n; i++ {
		hit := v.BeamHits(i) > k.prevHit[i] || v.Timeout(i) > k.prevOut[i]
		if !hit {
			continue
		}
		out := v.Timeout(i) > k.prevOut[i]
		for j := 0; j < k.n; j++ {
			if j == i || k.prevOut[j] > 1 || !samePos(v.AgentPos(j), k.prevPos[j]) || v.Orientation(j) != k.prevOri[j] {
				continue
			}
			if !covers(v, k.prevPos[j], k.prevOri[j], k.prevPos[i]) && !covers(v, k.prevPos[j], k.prevOri[j], v.AgentPos(i)) {
				continue
			}
			if k.team[i] {
				k.shotAt[j] = k.step
			}
			if out && k.team[j] && k.last[j] == ssd.Beam {
				k.tagged[j] = k.step
			}
		}
	}
}

// covers reports whether a beam fired from `from` facing orient reaches
// the cell `to`, by the environment's rule (walls do not stop it).
func covers(v *ssd.View, from ssd.Pos, orient int, to ssd.Pos) bool {
	a, b, c, d := ssd.Rotation(orient)
	dr, dc := to.R-from.R, to.C-from.C
	fwd := b*dc - d*dr
	right := c*dr - a*dc
	p := v.Params()
	half := p.BeamWidth / 2
	return fwd >= 1 && fwd <= p.BeamLength && right >= -half && right <= half
}

func samePos(a, b ssd.Pos) bool { return a.R == b.R && a.C == b.C }

// moveTo returns the action of a step toward the nearest of targets, and
// false when none is reachable.
func moveTo(v *ssd.View, agent int, targets []ssd.Pos) (int, bool) {
	if len(targets) == 0 {
		return ssd.Stand, false
	}
	dr, dc, ok := v.BFSToTargets(agent, targets)
	if !ok {
		return ssd.Stand, false
	}
	return ssd.DirectionToAction(dr, dc, v.Orientation(agent)), true
}

// tourBudget bounds the 2-opt work on the team's tours in one step (in
// pairs of legs compared, a reversal counting half its length): a cut
// makes every tour at once, nearest neighbour only, and 2-opt shortens
// them over the following steps, so that a step's cost stays within the
// sandbox's step deadline on the interpreter too (docs/offline-planner.md).
const tourBudget = 1500

// twoOpt is where the 2-opt of one tour stands: the pair of legs (i, j)
// to compare next, whether the pass under way shortened the tour, and
// whether a whole pass found nothing to shorten.
type twoOpt struct {
	i, j   int
	better bool
	done   bool
}

// nearestTour orders the apple spawns zone (indices into rs and cs, the
// spawns' rows and columns) into a cycle by nearest neighbour (rows plus
// columns) from start, the first on ties.
func nearestTour(rs, cs []int, start ssd.Pos, zone []int) []int {
	n := len(zone)
	t := make([]int, 0, n)
	used := make([]bool, n)
	r, c := start.R, start.C
	for len(t) < n {
		best, bestD := -1, 0
		for j, i := range zone {
			if used[j] {
				continue
			}
			d := rs[i] - r
			if d < 0 {
				d = -d
			}
			dc := cs[i] - c
			if dc < 0 {
				dc = -dc
			}
			if best < 0 || d+dc < bestD {
				best, bestD = j, d+dc
			}
		}
		used[best] = true
		t = append(t, zone[best])
		r, c = rs[zone[best]], cs[zone[best]]
	}
	return t
}

// improveTours goes on with the 2-opt of the agents' tours, in agent
// order, for at most budget units of work: pairs of legs (i, i+1) and
// (j, j+1) compared in the order of whole passes, the tour between them
// reversed when the crossing pair is shorter, passes repeated until one
// shortens nothing. Resumed step after step, it makes exactly the moves
// of an uninterrupted 2-opt.
func (k *kit) improveTours(budget int) {
	rs, cs := k.spawnR, k.spawnC
	for a := 0; a < k.n && budget > 0; a++ {
		t := k.tour[a]
		o := k.opt[a]
		if t == nil || o.done {
			continue
		}
		n := len(t)
		for budget > 0 {
			if o.j >= n {
				o.i++
				o.j = o.i + 2
			}
			if o.i+2 >= n {
				if !o.better {
					o.done = true
					break
				}
				o.i, o.j, o.better = 0, 2, false
				continue
			}
			i, j := o.i, o.j
			o.j++
			if i == 0 && j == n-1 {
				continue // the same two edges
			}
			budget--
			e := (j + 1) % n
			a1, b1, a2, b2 := t[i], t[i+1], t[j], t[e]
			x, y := rs[a1]-rs[b1], cs[a1]-cs[b1]
			if x < 0 {
				x = -x
			}
			if y < 0 {
				y = -y
			}
			now := x + y
			x, y = rs[a2]-rs[b2], cs[a2]-cs[b2]
			if x < 0 {
				x = -x
			}
			if y < 0 {
				y = -y
			}
			now += x + y
			x, y = rs[a1]-rs[a2], cs[a1]-cs[a2]
			if x < 0 {
				x = -x
			}
			if y < 0 {
				y = -y
			}
			swapped := x + y
			x, y = rs[b1]-rs[b2], cs[b1]-cs[b2]
			if x < 0 {
				x = -x
			}
			if y < 0 {
				y = -y
			}
			swapped += x + y
			if swapped < now {
				for l, h := i+1, j; l < h; l, h = l+1, h-1 {
					t[l], t[h] = t[h], t[l]
				}
				budget -= (j - i) / 2
				o.better = true
			}
		}
		k.opt[a] = o
	}
}

// cellOrder holds a list of distinct cells' indices sorted by row then
// column (rows) and by column then row (cols), and a scratch mark per
// cell, all false between uses.
type cellOrder struct {
	rows, cols []int
	in         []bool
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

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
		t = dropSpawns(t, rs, cs, p.Drop, p.Spacing*len(k.placed()))
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
	period := p.Spacing * len(k.placed())
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
	placed := k.placed()
	n := len(placed)
	k.tourAt = make([]int, k.n)
	if !p.Sorted {
		for r, a := range placed {
			k.tourAt[a] = r * period / n
		}
		return
	}
	t, rs, cs := k.tour[0], k.spawnR, k.spawnC
	now := v.Step()
	stand := make([]int, k.n) // where each agent stands along the cycle, in steps of the period
	for _, a := range placed {
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
	order := append([]int(nil), placed...)
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

// placed returns the agents the cycle's places are given to: every agent
// of the episode, or with defence.Repartition the team's.
func (k *kit) placed() []int {
	var out []int
	for a := 0; a < k.n; a++ {
		if !defence.Repartition || k.team[a] {
			out = append(out, a)
		}
	}
	return out
}
