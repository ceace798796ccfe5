// The Cleanup main job's champion 5c54b78d (written by the grammar
// planner; its genome and strategy below) with hand-written defence
// settings added, to measure what a cooperator needs to hold among
// strangers (docs/scenarios.md). With Retaliate on and every other
// setting off it plays exactly as 5c54b78d does. The settings are the
// variable defence.
//
// genome (of 5c54b78d): {"v":3,"game":"cleanup","harvest":{"kind":"zones","params":{"Refine":0,"Match":true,"Share":true,"Timed":false,"Tour":false,"Patience":2,"Roam":12,"Wait":false,"Paths":true}},"aggression":{"kind":"retaliate","params":{"Reach":20,"Turn":true,"Rest":16,"Memory":88}},"cleaning":{"kind":"fixed","params":{"Cleaners":2,"Roles":{"ByRiver":false,"Search":true,"Radius":6,"MinWaste":2,"Hold":22,"Split":true,"Stay":true}}}}
//
// Strategy (cleanup):
//   - harvesting: own zone first: the apple spawns cut into compact zones of
//     equal counts by bisection, among the active harvesters (cut again when
//     they change), each zone to the agent nearest its centre; with none alive
//     there, an apple within 12 steps; else the nearest apple anywhere; of the
//     shortest paths to an apple, walk the one passing the most apples
//   - aggression: beam agents that beamed one of us in the last 88 steps
//     anywhere in the beam's reach, turning toward them, holding fire 16 steps
//     after a tag
//   - cleaning: 2 cleaners, chosen lowest ids, roles held 22 steps; cleaners
//     search 6 steps around for the beam that clears most, each in its own
//     section of the river, waiting by the river when there is nothing to
//     clean, firing when a beam clears at least 2
//   - defence (hand-written): see DefenceParams
package policy

import (
	"sort"
	"ssd"
)

// cleaning are the parameters of the cleaning module (fixed).
var cleaning = FixedParams{
	Cleaners: 2,
	Roles: RoleParams{
		ByRiver:  false,
		Search:   true,
		Radius:   6,
		MinWaste: 2,
		Hold:     22,
		Split:    true,
		Stay:     true,
	},
}

// aggression are the parameters of the aggression module (retaliate).
var aggression = RetaliateParams{
	Reach:  20,
	Turn:   true,
	Rest:   16,
	Memory: 88,
}

// harvest are the parameters of the harvest module (zones).
var harvest = ZonesParams{
	Refine:   0,
	Match:    true,
	Share:    true,
	Timed:    false,
	Tour:     false,
	Patience: 2,
	Roam:     12,
	Wait:     false,
	Paths:    true,
}

// defence are the hand-written defence settings.
var defence = DefenceParams{
	Retaliate: true,
	Strangers: false,
	Evade:     0,
	Sanction:  0,
	Guard:     0,
	Guards:    1,
}

// DefenceParams are the defences against strangers. Self-play never calls
// for any of them (no agent beams, and every agent is of the team).
type DefenceParams struct {
	// Retaliate: the aggression module (retaliation, as 5c54b78d) plays;
	// off, the agents never beam.
	Retaliate bool
	// Strangers: retaliate only against strangers (agents this instance
	// does not play) and never fire a beam that would hit a teammate.
	// 5c54b78d blames any agent standing still facing a victim, teammates
	// included, and fires through teammates.
	Strangers bool
	// Evade: 1 steps out of the beam of a stranger that beamed one of the
	// team lately (within aggression's Memory) when it faces the agent; 2
	// out of the beam it would have facing any way (one turn and it fires),
	// also in its last 2 steps tagged out; 0 never.
	Evade int
	// Sanction: a stranger not seen cleaning for Sanction steps (from the
	// start, or its last clean) is a free-rider, beamed like an aggressor
	// until it cleans; 0 never.
	Sanction int
	// Guard: when an aggressor (as Evade's) has at most Guard steps left
	// tagged out, the teammate nearest it walks to a cell from which its
	// beam reaches it, out of the way it faces, and turns to it; every
	// teammate whose beam reaches it (and no teammate) fires in its last
	// step out, so that the beam lands the step it comes back, after its
	// own action (agents act in id order). 0 never.
	Guard int
	// Guards: how many teammates, the nearest the aggressor, guard it.
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
	if a, ok := k.cleanFixed(v, agent, &cleaning); ok {
		return k.done(agent, a)
	}
	if defence.Guard > 0 {
		if a, ok := k.guard(v, agent); ok {
			return k.done(agent, a)
		}
	}
	if defence.Retaliate {
		if a, ok := k.aggressRetaliate(v, agent, &aggression); ok {
			return k.done(agent, a)
		}
	}
	if defence.Evade > 0 {
		if a, ok := k.evade(v, agent); ok {
			return k.done(agent, a)
		}
	}
	return k.done(agent, k.harvestZones(v, agent, &harvest))
}

// guard readies the agent for an aggressor's return (defence.Guard).
func (k *kit) guard(v *ssd.View, agent int) (int, bool) {
	me := v.AgentPos(agent)
	o := v.Orientation(agent)
	for j := 0; j < k.n; j++ {
		t := v.Timeout(j)
		if k.team[j] || t < 1 || t > defence.Guard || k.step-k.shotAt[j] > aggression.Memory {
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
			p := v.AgentPos(i)
			if e := abs(q.R-p.R) + abs(q.C-p.C); e < d || e == d && i < agent {
				nearer++
			}
		}
		if nearer >= defence.Guards {
			continue
		}
		var cells []ssd.Pos
		here := -1
		bl := v.Params().BeamLength
		for r := q.R - bl; r <= q.R+bl; r++ {
			for c := q.C - bl; c <= q.C+bl; c++ {
				cell := ssd.Pos{R: r, C: c}
				if v.Wall(r, c) || covers(v, q, v.Orientation(j), cell) || samePos(cell, q) {
					continue
				}
				for oo := 0; oo < 4; oo++ {
					if covers(v, cell, oo, q) {
						cells = append(cells, cell)
						if samePos(cell, me) && here < 0 {
							here = oo
						}
						break
					}
				}
			}
		}
		if here >= 0 {
			for oo := 0; oo < 4; oo++ {
				if covers(v, me, oo, q) {
					if oo == o {
						return ssd.Stand, true
					}
					return ssd.RotateToward(o, oo), true
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

// evade steps out of the beam of an aggressor facing the agent.
func (k *kit) evade(v *ssd.View, agent int) (int, bool) {
	me := v.AgentPos(agent)
	if !k.threatened(v, me) {
		return 0, false
	}
	dirs := [4][2]int{{-1, 0}, {0, 1}, {1, 0}, {0, -1}}
	for _, d := range dirs {
		r, c := me.R+d[0], me.C+d[1]
		if v.Wall(r, c) || len(v.AgentsAt(r, c)) > 0 {
			continue
		}
		if !k.threatened(v, ssd.Pos{R: r, C: c}) {
			return ssd.DirectionToAction(d[0], d[1], v.Orientation(agent)), true
		}
	}
	return 0, false
}

// threatened reports whether a cell lies in the beam of an active
// stranger that beamed one of the team within aggression's Memory.
func (k *kit) threatened(v *ssd.View, cell ssd.Pos) bool {
	for j := 0; j < k.n; j++ {
		if k.team[j] || k.step-k.shotAt[j] > aggression.Memory {
			continue
		}
		if defence.Evade < 2 {
			if v.Active(j) && covers(v, v.AgentPos(j), v.Orientation(j), cell) {
				return true
			}
			continue
		}
		if v.Timeout(j) > 2 {
			continue
		}
		for o := 0; o < 4; o++ {
			if covers(v, v.AgentPos(j), o, cell) {
				return true
			}
		}
	}
	return false
}

// seeCleaning notes the strangers seen cleaning at the last step: one
// that stood still, facing the same way, with waste gone from its beam's
// rectangle (waste can also go to another's beam: the guess is generous).
func (k *kit) seeCleaning(v *ssd.View) {
	river := v.RiverCells()
	if k.prevWaste == nil {
		k.prevWaste = make([]bool, len(river))
		k.cleanedAt = make([]int, k.n)
	} else {
		for j := 0; j < k.n; j++ {
			if k.team[j] || k.prevOut[j] > 0 || !samePos(v.AgentPos(j), k.prevPos[j]) || v.Orientation(j) != k.prevOri[j] {
				continue
			}
			for x, c := range river {
				if k.prevWaste[x] && !v.WasteAt(c.R, c.C) && covers(v, k.prevPos[j], k.prevOri[j], c) {
					k.cleanedAt[j] = v.Step()
					break
				}
			}
		}
	}
	for x, c := range river {
		k.prevWaste[x] = v.WasteAt(c.R, c.C)
	}
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
	cleaner []bool
	// Free-riders (defence.Sanction): the river's waste at the last step
	// and the step at which each agent was last seen cleaning.
	prevWaste []bool
	cleanedAt []int
	roleAt    int
	roleStep  int
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
	if defence.Sanction > 0 {
		k.seeCleaning(v)
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

// collect goes for the nearest alive apple of the agent's own (apple
// indices), else falls back (see fallback) with roam and wait.
func (k *kit) collect(v *ssd.View, agent int, mine []int, roam int, wait bool) int {
	own, spawns := k.own[:0], k.spawns[:0]
	for _, i := range mine {
		if v.AppleAlive(i) {
			own = append(own, v.ApplePos(i))
		} else {
			spawns = append(spawns, v.ApplePos(i))
		}
	}
	k.own, k.spawns = own, spawns
	return fallback(v, agent, own, spawns, roam, wait)
}

// fallback goes for the nearest own alive apple; with none, for an apple
// within roam steps; else waits on the nearest own spawn (wait) or goes
// for the nearest apple anywhere.
func fallback(v *ssd.View, agent int, own, spawns []ssd.Pos, roam int, wait bool) int {
	if a, ok := moveTo(v, agent, own); ok {
		return a
	}
	apples := v.Apples()
	if roam > 0 && len(apples) > 0 {
		d := v.Distance(v.AgentPos(agent), apples)
		if d != ssd.Unreachable && d <= roam {
			if a, ok := moveTo(v, agent, apples); ok {
				return a
			}
		}
	}
	if wait {
		if a, ok := moveTo(v, agent, spawns); ok {
			return a
		}
	}
	if a, ok := moveTo(v, agent, apples); ok {
		return a
	}
	return ssd.Stand
}

// walk is the distance from a to b in rows plus columns, a path's length
// when no wall is in the way.
func walk(a, b ssd.Pos) int { return abs(a.R-b.R) + abs(a.C-b.C) }

// ZonesParams: the apple spawns are cut into compact zones of equal
// counts, one per harvester, and each agent collects in its own zone
// first.
type ZonesParams struct {
	// Refine: rounds of balanced k-means (each spawn to the nearest zone
	// centre with room, zones keeping their sizes) after the cut by
	// recursive bisection along the longer side; 0 keeps the bisection.
	Refine int
	// Match gives the zones to the harvesters nearest their centres
	// (harvesters in id order, each taking the nearest zone left); else
	// the zones go to the harvesters in id order.
	Match bool
	// Share cuts the spawns among the team's active harvesters only (not
	// tagged out, not cleaning), again whenever they change; else among
	// all the agents of the game, once.
	Share bool
	// Timed goes for the own spawn whose apple can be picked soonest,
	// counting when a collected apple grows back (known in Gathering,
	// where regrowth takes a fixed time), waiting on it when it is near;
	// else for the nearest own alive apple.
	Timed bool
	// Tour walks the zone's spawns in a cycle (nearest neighbour from
	// where the agent stood when the zones were cut, shortened by 2-opt),
	// heading for the next spawn along it whose apple is alive — with
	// Timed, whose apple grows back by the time the agent gets there
	// plus Patience steps, waiting on it.
	Tour     bool
	Patience int
	Roam     int  // as TerritoryParams.Roam; with Timed, only when nearer than the own pick
	Wait     bool // as TerritoryParams.Wait, on the zone's spawns
	// Paths: of the shortest paths to the apple the agent heads for (the
	// nearest own alive one, the next alive one of its Tour, or, with
	// none of its own alive, the nearest one it may go for), it walks one
	// that passes the most alive apples, picking them on the way, and of
	// equally near apples it heads for the one such a path makes worth
	// most; else (and with Timed but no Tour) the first path the
	// breadth-first search finds.
	Paths bool
}

// harvestZones collects the apples of the agent's zone.
func (k *kit) harvestZones(v *ssd.View, agent int, p *ZonesParams) int {
	k.zonesFor(v, p)
	zone := k.zone[agent]
	if p.Tour {
		if a, ok := k.tourNext(v, agent, p); ok {
			return a
		}
	} else if p.Timed {
		if a, ok := k.soonest(v, agent, zone, p.Roam); ok {
			return a
		}
	}
	if p.Paths && (p.Tour || !p.Timed) {
		own := k.own[:0]
		for _, i := range zone {
			if v.AppleAlive(i) {
				own = append(own, v.ApplePos(i))
			}
		}
		k.own = own
		if a, ok := k.richStep(v, agent, own); ok {
			return a
		}
		if all := v.Apples(); len(own) == 0 && len(all) > 0 {
			d := v.Distance(v.AgentPos(agent), all)
			if !p.Wait || (d != ssd.Unreachable && d <= p.Roam) {
				if a, ok := k.richStep(v, agent, all); ok {
					return a
				}
			}
		}
	}
	return k.collect(v, agent, zone, p.Roam, p.Wait)
}

// richStep returns the first step toward the nearest of targets along
// the shortest path that passes the most alive apples (an apple is
// picked by stepping on it); of equally near targets, the one whose
// best path passes the most, the first on ties. ok is false when the
// agent stands on a target or none is reachable. Its breadth-first
// search stops at the nearest targets' distance, so that its cost
// follows how far they are, not the map's size.
func (k *kit) richStep(v *ssd.View, agent int, targets []ssd.Pos) (int, bool) {
	w, h := v.Width(), v.Height()
	if len(k.pathSeen) != w*h {
		k.pathDist, k.pathSeen, k.pathMark = make([]int, w*h), make([]int, w*h), make([]int, w*h)
		k.pathCount, k.pathCounted = make([]int, w*h), make([]int, w*h)
	}
	k.pathGen++
	gen := k.pathGen
	for _, t := range targets {
		if v.InBounds(t.R, t.C) {
			k.pathMark[t.R*w+t.C] = gen
		}
	}
	me := v.AgentPos(agent)
	start := me.R*w + me.C
	if k.pathMark[start] == gen {
		return ssd.Stand, false
	}
	dirs := [4][2]int{{-1, 0}, {1, 0}, {0, -1}, {0, 1}}
	queue := append(k.pathQueue[:0], start)
	k.pathSeen[start], k.pathDist[start] = gen, 0
	near := -1
	for head := 0; head < len(queue); head++ {
		c := queue[head]
		d := k.pathDist[c]
		if near >= 0 && d >= near {
			break
		}
		for _, dd := range dirs {
			r, cc := c/w+dd[0], c%w+dd[1]
			if !v.InBounds(r, cc) || v.Wall(r, cc) {
				continue
			}
			n := r*w + cc
			if k.pathSeen[n] == gen {
				continue
			}
			k.pathSeen[n], k.pathDist[n] = gen, d+1
			queue = append(queue, n)
			if near < 0 && k.pathMark[n] == gen {
				near = d + 1
			}
		}
	}
	k.pathQueue = queue
	if near < 0 {
		return ssd.Stand, false
	}
	best, step := -1, -1
	for _, t := range targets {
		if !v.InBounds(t.R, t.C) {
			continue
		}
		c := t.R*w + t.C
		if k.pathSeen[c] != gen || k.pathDist[c] != near {
			continue
		}
		if n, first := k.richPath(v, c); n > best {
			best, step = n, first
		}
	}
	return ssd.DirectionToAction(step/w-me.R, step%w-me.C, v.Orientation(agent)), true
}

// richPath walks back from cell t through the cells of the shortest
// paths to it from the agent (those whose distance from the agent, as
// richStep's search left it, falls by one a step) and returns the most
// alive apples one of them passes and that path's first cell.
func (k *kit) richPath(v *ssd.View, t int) (int, int) {
	w := v.Width()
	dirs := [4][2]int{{-1, 0}, {1, 0}, {0, -1}, {0, 1}}
	seen := k.pathSeen[t] // the search's generation
	k.pathGen++
	gen := k.pathGen
	k.pathCounted[t], k.pathCount[t] = gen, 0
	layer := append(k.pathLayer[:0], t)
	next := k.pathNext[:0]
	for d := k.pathDist[t]; ; d-- {
		for _, c := range layer {
			if v.AppleAt(c/w, c%w) {
				k.pathCount[c]++
			}
		}
		if d == 1 {
			break
		}
		next = next[:0]
		for _, c := range layer {
			for _, dd := range dirs {
				r, cc := c/w+dd[0], c%w+dd[1]
				if !v.InBounds(r, cc) {
					continue
				}
				n := r*w + cc
				if k.pathSeen[n] != seen || k.pathDist[n] != d-1 {
					continue
				}
				if k.pathCounted[n] != gen {
					k.pathCounted[n], k.pathCount[n] = gen, -1
					next = append(next, n)
				}
				if k.pathCount[c] > k.pathCount[n] {
					k.pathCount[n] = k.pathCount[c]
				}
			}
		}
		layer, next = next, layer
	}
	k.pathLayer, k.pathNext = layer, next
	best, first := -1, -1
	for _, c := range layer { // the cells one step from the agent
		if k.pathCount[c] > best {
			best, first = k.pathCount[c], c
		}
	}
	return best, first
}

// tourNext heads for the next spawn along the agent's tour that is worth
// it: alive, or (Timed, regrowth known) growing back by the time the
// agent arrives plus Patience, where it stands until then. It declines
// when no spawn of the tour is.
func (k *kit) tourNext(v *ssd.View, agent int, p *ZonesParams) (int, bool) {
	t := k.tour[agent]
	me := v.AgentPos(agent)
	now := v.Step()
	for j := 0; j < len(t); j++ {
		at := (k.tourAt[agent] + j) % len(t)
		i := t[at]
		a := v.ApplePos(i)
		d := walk(me, a)
		worth := v.AppleAlive(i)
		if p.Timed && k.ready[i] >= 0 {
			worth = k.ready[i]-now <= d+p.Patience
		}
		if !worth {
			continue
		}
		k.tourAt[agent] = at
		if d == 0 {
			return ssd.Stand, true
		}
		if p.Paths {
			if act, ok := k.richStep(v, agent, []ssd.Pos{a}); ok {
				return act, true
			}
		}
		dr, dc, ok := v.BFSToward(agent, a.R, a.C)
		if !ok {
			return ssd.Stand, false
		}
		return ssd.DirectionToAction(dr, dc, v.Orientation(agent)), true
	}
	return ssd.Stand, false
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

// zonesFor cuts the zones when there are none yet, or, with Share, when
// the active harvesters of the team changed since the last cut; with
// Tour, it spends the step's 2-opt budget once a step.
func (k *kit) zonesFor(v *ssd.View, p *ZonesParams) {
	who := k.who[:0]
	for i := 0; i < k.n; i++ {
		if !p.Share || (k.team[i] && v.Active(i) && !k.cleaner[i]) {
			who = append(who, i)
		}
	}
	k.who = who
	if k.zone == nil || (p.Share && !sameInts(who, k.zoneWho)) {
		k.zoneWho = append(k.zoneWho[:0], who...)
		if k.spawnOrd == nil {
			cells := v.AppleSpawns()
			k.spawnOrd = orderCells(cells, v.Height(), v.Width())
			k.spawnR, k.spawnC = make([]int, len(cells)), make([]int, len(cells))
			for i, c := range cells {
				k.spawnR[i], k.spawnC[i] = c.R, c.C
			}
		}
		old := k.zone
		k.zone = cutZones(v, k.n, who, p.Refine, p.Match, k.spawnOrd)
		if p.Tour {
			k.newTours(v, old)
		}
	}
	if p.Tour && k.optStep != k.step {
		k.optStep = k.step
		k.improveTours(tourBudget)
	}
}

// newTours gives every agent with a zone a tour of it: the one it had
// when its zone did not change (old holds the zones before the cut), else
// a new one by nearest neighbour from where it stands, 2-opt still to do.
func (k *kit) newTours(v *ssd.View, old [][]int) {
	if k.tour == nil {
		k.tour = make([][]int, k.n)
		k.tourAt = make([]int, k.n)
		k.opt = make([]twoOpt, k.n)
	}
	in := k.spawnOrd.in
	for a := 0; a < k.n; a++ {
		z := k.zone[a]
		if z == nil {
			k.tour[a] = nil
			continue
		}
		if old != nil && k.tour[a] != nil && len(old[a]) == len(z) {
			for _, i := range old[a] {
				in[i] = true
			}
			same := true
			for _, i := range z {
				if !in[i] {
					same = false
				}
			}
			for _, i := range old[a] {
				in[i] = false
			}
			if same {
				continue
			}
		}
		k.tour[a] = nearestTour(k.spawnR, k.spawnC, v.AgentPos(a), z)
		k.tourAt[a] = 0
		k.opt[a] = twoOpt{j: 2}
	}
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

// soonest heads for the spawn of zone whose apple the agent can pick
// first (its distance, or the wait until the apple grows back, whichever
// is longer; the nearer on ties), standing on it while it grows; an alive
// apple anywhere within roam steps that is nearer than that comes first.
// It declines when no spawn of the zone has a known time.
func (k *kit) soonest(v *ssd.View, agent int, zone []int, roam int) (int, bool) {
	me := v.AgentPos(agent)
	dist := v.DistanceField(me)
	w := v.Width()
	now := v.Step()
	best, bestT, bestD := -1, 0, 0
	for _, i := range zone {
		a := v.ApplePos(i)
		d := dist[a.R*w+a.C]
		if d == ssd.Unreachable || k.ready[i] < 0 {
			continue
		}
		t := d
		if k.ready[i]-now > t {
			t = k.ready[i] - now
		}
		if best < 0 || t < bestT || (t == bestT && d < bestD) {
			best, bestT, bestD = i, t, d
		}
	}
	if best < 0 {
		return ssd.Stand, false
	}
	if roam > 0 {
		apples := v.Apples()
		if d := v.Distance(me, apples); d != ssd.Unreachable && d > 0 && d <= roam && d < bestT {
			if a, ok := moveTo(v, agent, apples); ok {
				return a, true
			}
		}
	}
	if bestD == 0 {
		return ssd.Stand, true
	}
	a := v.ApplePos(best)
	dr, dc, ok := v.BFSToward(agent, a.R, a.C)
	if !ok {
		return ssd.Stand, false
	}
	return ssd.DirectionToAction(dr, dc, v.Orientation(agent)), true
}

// cutZones cuts the apple spawns into one zone per agent of who, by
// recursive bisection then at most refine rounds of balanced k-means
// (fewer when a round changes nothing: every later round would give the
// same), and returns each agent's apple indices (nil for the agents not
// in who). ord holds the spawns' orders (orderCells).
func cutZones(v *ssd.View, n int, who []int, refine int, match bool, ord *cellOrder) [][]int {
	out := make([][]int, n)
	if len(who) == 0 {
		return out
	}
	cells := v.AppleSpawns()
	idx := make([]int, len(cells))
	for i := range idx {
		idx[i] = i
	}
	parts := bisectCells(cells, ord, idx, len(who), nil)
	for r := 0; r < refine; r++ {
		next := rebalance(cells, parts, v.Height()+v.Width())
		same := true
		for j := range next {
			if !sameInts(next[j], parts[j]) {
				same = false
			}
		}
		parts = next
		if same {
			break
		}
	}
	taken := make([]bool, len(parts))
	for j, a := range who {
		pick := j
		if match {
			pick = nearestZone(v.AgentPos(a), cells, parts, taken)
		}
		taken[pick] = true
		out[a] = append([]int(nil), parts[pick]...)
	}
	return out
}

// cellOrder holds a list of distinct cells' indices sorted by row then
// column (rows) and by column then row (cols), and a scratch mark per
// cell, all false between uses.
type cellOrder struct {
	rows, cols []int
	in         []bool
}

// orderCells sorts the cells of an h×w map both ways, once.
func orderCells(cells []ssd.Pos, h, w int) *cellOrder {
	o := &cellOrder{in: make([]bool, len(cells))}
	at := make([]int, h*w) // the cell at each key
	for _, rows := range []bool{true, false} {
		key := make([]int, len(cells))
		for i, c := range cells {
			key[i] = cellKey(c, rows, h, w)
			at[key[i]] = i
		}
		sort.Ints(key)
		idx := make([]int, len(cells))
		for j, kk := range key {
			idx[j] = at[kk]
		}
		if rows {
			o.rows = idx
		} else {
			o.cols = idx
		}
	}
	return o
}

// bisectCells appends to out the cells idx (indices into cells, which ord
// orders) cut into parts groups of as equal counts as can be: ordered
// along the longer side of their bounding box, cut in proportion to the
// groups on each side, and each side cut again. It reorders idx.
func bisectCells(cells []ssd.Pos, ord *cellOrder, idx []int, parts int, out [][]int) [][]int {
	if parts <= 1 {
		return append(out, idx)
	}
	minR, maxR, minC, maxC := 0, -1, 0, -1
	for j, i := range idx {
		p := cells[i]
		if j == 0 || p.R < minR {
			minR = p.R
		}
		if j == 0 || p.R > maxR {
			maxR = p.R
		}
		if j == 0 || p.C < minC {
			minC = p.C
		}
		if j == 0 || p.C > maxC {
			maxC = p.C
		}
	}
	all := ord.cols
	if maxR-minR > maxC-minC {
		all = ord.rows
	}
	for _, i := range idx {
		ord.in[i] = true
	}
	j := 0
	for _, i := range all { // idx in that order, in one pass over every cell
		if ord.in[i] {
			ord.in[i] = false
			idx[j] = i
			j++
		}
	}
	half := parts / 2
	cut := len(idx) * half / parts
	out = bisectCells(cells, ord, idx[:cut], half, out)
	return bisectCells(cells, ord, idx[cut:], parts-half, out)
}

// cellKey orders the cells of an h×w map by row then column (rows) or
// by column then row.
func cellKey(p ssd.Pos, rows bool, h, w int) int {
	if rows {
		return p.R*w + p.C
	}
	return p.C*h + p.R
}

// rebalance is one round of balanced k-means: every group's centre (in
// quarter cells), then the (cell, group) pairs from the nearest
// (Manhattan) up, each cell going to the first group in its pairs that
// still has room, each group keeping its size. span bounds a distance in
// cells (the map's height plus width).
func rebalance(cells []ssd.Pos, parts [][]int, span int) [][]int {
	np := len(parts)
	cr := make([]int, np)
	cc := make([]int, np)
	in := make([]bool, len(cells))
	for j, g := range parts {
		cr[j], cc[j] = centre(cells, g)
		for _, i := range g {
			in[i] = true
		}
	}
	// Every (cell, group) distance, once; then a counting sort of the
	// pairs by distance: cell order, then group order, within one
	// distance.
	dist := make([]int, len(cells)*np)
	count := make([]int, 4*span+2)
	for i := range cells {
		if !in[i] {
			continue
		}
		for j := 0; j < np; j++ {
			if len(parts[j]) > 0 {
				x, y := 4*cells[i].R-cr[j], 4*cells[i].C-cc[j] // quarterDist, inline
				if x < 0 {
					x = -x
				}
				if y < 0 {
					y = -y
				}
				dist[i*np+j] = x + y
				count[x+y+1]++
			}
		}
	}
	for d := 1; d < len(count); d++ {
		count[d] += count[d-1]
	}
	pairs := make([]int, count[len(count)-1])
	for i := range cells {
		if !in[i] {
			continue
		}
		for j := 0; j < np; j++ {
			if len(parts[j]) > 0 {
				d := dist[i*np+j]
				pairs[count[d]] = i*np + j
				count[d]++
			}
		}
	}
	group := make([]int, len(cells))
	for i := range group {
		group[i] = -1
	}
	size := make([]int, np)
	for _, pr := range pairs {
		i, j := pr/np, pr%np
		if group[i] < 0 && size[j] < len(parts[j]) {
			group[i] = j
			size[j]++
		}
	}
	out := make([][]int, np)
	for i, j := range group {
		if j >= 0 {
			out[j] = append(out[j], i)
		}
	}
	return out
}

// centre is the mean position of the cells g in quarter cells.
func centre(cells []ssd.Pos, g []int) (int, int) {
	if len(g) == 0 {
		return 0, 0
	}
	sr, sc := 0, 0
	for _, i := range g {
		sr += cells[i].R
		sc += cells[i].C
	}
	return 4 * sr / len(g), 4 * sc / len(g)
}

// quarterDist is the Manhattan distance from p to a centre given in
// quarter cells, in quarter cells.
func quarterDist(p ssd.Pos, r4, c4 int) int {
	return abs(4*p.R-r4) + abs(4*p.C-c4)
}

// nearestZone returns the group not taken whose centre is nearest p (the
// first on ties), or the first not taken when every group is empty.
func nearestZone(p ssd.Pos, cells []ssd.Pos, parts [][]int, taken []bool) int {
	best, bestD := -1, 0
	for j, g := range parts {
		if taken[j] {
			continue
		}
		d := 1 << 30
		if len(g) > 0 {
			r4, c4 := centre(cells, g)
			d = quarterDist(p, r4, c4)
		}
		if best < 0 || d < bestD {
			best, bestD = j, d
		}
	}
	return best
}

// sameInts reports whether a and b hold the same values in order.
func sameInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// RetaliateParams: beam only agents seen beaming one of ours in the last
// Memory steps.
type RetaliateParams struct {
	Reach  int  // as OpportunisticParams.Reach
	Turn   bool // as OpportunisticParams.Turn
	Rest   int  // as OpportunisticParams.Rest
	Memory int
}

// aggressRetaliate beams agents that beamed one of ours lately.
func (k *kit) aggressRetaliate(v *ssd.View, agent int, p *RetaliateParams) (int, bool) {
	in := make([]bool, k.n)
	for j := 0; j < k.n; j++ {
		in[j] = k.step-k.shotAt[j] <= p.Memory
		if defence.Strangers && k.team[j] {
			in[j] = false
		}
		if defence.Sanction > 0 && !k.team[j] && k.cleanedAt != nil && k.step-k.cleanedAt[j] > defence.Sanction {
			in[j] = true
		}
	}
	return k.aim(v, agent, p.Reach, p.Turn, p.Rest, in)
}

// aim fires when a target (every other active agent when targets is nil)
// is within reach of the beam, or, with turn, rotates toward the side
// where one would be; it declines (false) while resting after a tag.
func (k *kit) aim(v *ssd.View, agent, reach int, turn bool, rest int, targets []bool) (int, bool) {
	if k.step-k.tagged[agent] < rest {
		return ssd.Stand, false
	}
	if reach > v.Params().BeamLength {
		reach = v.Params().BeamLength
	}
	o := v.Orientation(agent)
	var mates []bool // with defence.Strangers: a beam that would hit one of them is not fired
	if defence.Strangers {
		mates = make([]bool, k.n)
		copy(mates, k.team)
	}
	clear := func(o int) bool {
		return mates == nil || nearestTarget(v, agent, o, v.Params().BeamLength, mates) == 0
	}
	if nearestTarget(v, agent, o, reach, targets) > 0 && clear(o) {
		return ssd.Beam, true
	}
	if !turn {
		return ssd.Stand, false
	}
	left := nearestTarget(v, agent, (o+3)%4, reach, targets)
	right := nearestTarget(v, agent, (o+1)%4, reach, targets)
	if !clear((o + 3) % 4) {
		left = 0
	}
	if !clear((o + 1) % 4) {
		right = 0
	}
	switch {
	case left > 0 && (right == 0 || left <= right):
		return ssd.RotateLeft, true
	case right > 0:
		return ssd.RotateRight, true
	}
	return ssd.Stand, false
}

// nearestTarget returns how far ahead the nearest target within reach of
// a beam fired by agent facing orient stands, 0 when there is none.
func nearestTarget(v *ssd.View, agent, orient, reach int, targets []bool) int {
	me := v.AgentPos(agent)
	a, b, c, d := ssd.Rotation(orient)
	half := v.Params().BeamWidth / 2
	best := 0
	for j := 0; j < v.NumAgents(); j++ {
		if j == agent || !v.Active(j) || (targets != nil && !targets[j]) {
			continue
		}
		q := v.AgentPos(j)
		dr, dc := q.R-me.R, q.C-me.C
		fwd := b*dc - d*dr
		right := c*dr - a*dc
		if fwd >= 1 && fwd <= reach && right >= -half && right <= half && (best == 0 || fwd < best) {
			best = fwd
		}
	}
	return best
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// RoleParams say who cleans and how (Cleanup).
type RoleParams struct {
	// ByRiver chooses the agents nearest the river as cleaners; else the
	// lowest ids.
	ByRiver bool
	// Search looks at the cells within Radius steps and the four
	// orientations for the beam that clears the most waste, walks there
	// and fires; else a cleaner fires from where it stands, turning toward
	// waste or walking toward the nearest waste.
	Search bool
	Radius int
	// MinWaste: fire only a beam that clears at least this many cells.
	MinWaste int
	// Hold: roles are reassigned at most every Hold steps, and the number
	// of cleaners falls only Hold steps after the roles last changed
	// (hysteresis, so that roles do not flap).
	Hold int
	// Split cuts the river into one section per cleaner (in the order the
	// roles are given): a cleaner fires only from the cells nearer its
	// own section than any other, and walks toward only the waste of its
	// own section.
	Split bool
	// Stay: a cleaner with no waste to clean waits by the river (in its
	// section) instead of harvesting.
	Stay bool
}

// FixedParams: a fixed number of cleaners.
type FixedParams struct {
	Cleaners int
	Roles    RoleParams
}

// cleanFixed: the agent cleans when it is one of Cleaners cleaners.
func (k *kit) cleanFixed(v *ssd.View, agent int, p *FixedParams) (int, bool) {
	return k.clean(v, agent, p.Cleaners, &p.Roles)
}

// clean returns a cleaner's action, and false for an agent that is not a
// cleaner now (or has no waste to clean), which does something else.
func (k *kit) clean(v *ssd.View, agent, want int, r *RoleParams) (int, bool) {
	if k.roleAt != k.step {
		k.roleAt = k.step
		k.assign(v, want, r)
	}
	if !k.cleaner[agent] {
		return ssd.Stand, false
	}
	sec := -1
	if r.Split {
		sec = k.section(v, agent)
	}
	if v.NumWaste() > 0 {
		var a int
		var ok bool
		if r.Search {
			a, ok = k.cleanSearch(v, agent, r, sec)
		} else {
			a, ok = k.cleanHere(v, agent, r, sec)
		}
		if ok {
			return a, true
		}
	}
	if r.Stay {
		return k.stay(v, agent, sec)
	}
	return ssd.Stand, false
}

// stay keeps an idle cleaner by the river: it walks into its section
// (the river, without Split) and stands there.
func (k *kit) stay(v *ssd.View, agent, sec int) (int, bool) {
	me := v.AgentPos(agent)
	w := v.Width()
	if v.IsRiver(me.R, me.C) && (sec < 0 || k.secAt[me.R*w+me.C] == sec) {
		return ssd.Stand, true
	}
	var targets []ssd.Pos
	for _, p := range v.RiverCells() {
		if sec < 0 || k.secAt[p.R*w+p.C] == sec {
			targets = append(targets, p)
		}
	}
	if a, ok := moveTo(v, agent, targets); ok {
		return a, true
	}
	return ssd.Stand, true
}

// section returns the agent's section of the river, cutting the river
// into one section per cleaner (in rank order) when the cleaners changed.
func (k *kit) section(v *ssd.View, agent int) int {
	if k.secStep != k.roleStep || k.secOf == nil {
		k.secStep = k.roleStep
		k.cutSections(v)
	}
	return k.secOf[agent]
}

// cutSections cuts the river cells into as many sections of equal counts
// as there are cleaners, by recursive bisection, the sections going to
// the cleaners in rank order; secAt maps each cell to the section of its
// nearest river cell (the first section on ties; -1 where none is
// reachable).
func (k *kit) cutSections(v *ssd.View) {
	river := v.RiverCells()
	w := v.Width()
	if k.secAt == nil {
		k.secAt = make([]int, v.Height()*w)
		k.secOf = make([]int, k.n)
	}
	for i := range k.secAt {
		k.secAt[i] = -1
	}
	var who []int
	for _, i := range k.ranked {
		if k.cleaner[i] {
			who = append(who, i)
		}
	}
	for i := range k.secOf {
		k.secOf[i] = -1
	}
	if len(who) == 0 {
		return
	}
	idx := make([]int, len(river))
	for i := range idx {
		idx[i] = i
	}
	if k.riverOrd == nil {
		k.riverOrd = orderCells(river, v.Height(), w)
	}
	parts := bisectCells(river, k.riverOrd, idx, len(who), nil)
	near := make([]int, len(k.secAt))
	for j, part := range parts {
		var cells []ssd.Pos
		for _, i := range part {
			cells = append(cells, river[i])
		}
		field := v.DistanceFieldFrom(cells)
		for c, d := range field {
			if d != ssd.Unreachable && (k.secAt[c] < 0 || d < near[c]) {
				k.secAt[c], near[c] = j, d
			}
		}
		k.secOf[who[j]] = j
	}
}

// assign chooses the step's cleaners among the active agents of the team.
func (k *kit) assign(v *ssd.View, want int, r *RoleParams) {
	rank := k.rank(v, r.ByRiver)
	k.ranked = rank
	if want > len(rank) {
		want = len(rank)
	}
	if want < 0 {
		want = 0
	}
	held := k.step-k.roleStep < r.Hold
	now := make([]bool, k.n)
	count := 0
	if held {
		for _, i := range rank { // incumbents stay
			if k.cleaner[i] {
				now[i] = true
				count++
			}
		}
	}
	for _, i := range rank {
		if count >= want {
			break
		}
		if !now[i] {
			now[i] = true
			count++
		}
	}
	changed := false
	for i := 0; i < k.n; i++ {
		if now[i] != k.cleaner[i] {
			changed = true
		}
		k.cleaner[i] = now[i]
	}
	if changed {
		k.roleStep = k.step
	}
}

// rank orders the active agents of the team for the cleaner role: by id,
// or nearest the river first (ties by id).
func (k *kit) rank(v *ssd.View, byRiver bool) []int {
	var out []int
	var key []int
	var field []int
	if byRiver {
		field = v.DistanceFieldFrom(v.RiverCells())
	}
	w := v.Width()
	for i := 0; i < k.n; i++ {
		if !k.team[i] || !v.Active(i) {
			continue
		}
		d := 0
		if field != nil {
			p := v.AgentPos(i)
			d = field[p.R*w+p.C]
			if d == ssd.Unreachable {
				d = 1 << 30
			}
		}
		out = append(out, i)
		key = append(key, d)
	}
	for i := 1; i < len(out); i++ { // insertion sort, stable
		for j := i; j > 0 && key[j] < key[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
			key[j], key[j-1] = key[j-1], key[j]
		}
	}
	return out
}

// cleanHere fires when the beam from here clears enough waste, else turns
// toward the orientation that would, else walks toward the nearest waste;
// with sec not -1, it fires only from the cells of section sec and walks
// toward the waste of that section.
func (k *kit) cleanHere(v *ssd.View, agent int, r *RoleParams, sec int) (int, bool) {
	me := v.AgentPos(agent)
	o := v.Orientation(agent)
	if sec < 0 || k.secAt[me.R*v.Width()+me.C] == sec {
		if v.CleanBeamCount(me.R, me.C, o) >= r.MinWaste {
			return ssd.Clean, true
		}
		best, bestN := -1, r.MinWaste-1
		for t := 0; t < 4; t++ {
			if n := v.CleanBeamCount(me.R, me.C, t); n > bestN {
				best, bestN = t, n
			}
		}
		if best >= 0 {
			return ssd.RotateToward(o, best), true
		}
	}
	return k.towardWaste(v, agent, sec)
}

// cleanSearch finds, within Radius steps, the cell and orientation whose
// beam clears the most waste (nearest first on ties), goes there and
// fires. With sec not -1 it fires only from the cells of that section.
func (k *kit) cleanSearch(v *ssd.View, agent int, r *RoleParams, sec int) (int, bool) {
	me := v.AgentPos(agent)
	o := v.Orientation(agent)
	dist := v.DistanceField(me)
	w := v.Width()
	bestN, bestD := r.MinWaste-1, 0
	var best ssd.Pos
	bestO := -1
	for dr := -r.Radius; dr <= r.Radius; dr++ {
		for dc := -r.Radius; dc <= r.Radius; dc++ {
			p := ssd.Pos{R: me.R + dr, C: me.C + dc}
			if !v.InBounds(p.R, p.C) || v.Wall(p.R, p.C) || (sec >= 0 && k.secAt[p.R*w+p.C] != sec) {
				continue
			}
			d := dist[p.R*w+p.C]
			if d == ssd.Unreachable || d > r.Radius {
				continue
			}
			for t := 0; t < 4; t++ {
				n := v.CleanBeamCount(p.R, p.C, t)
				if n > bestN || (n == bestN && bestO >= 0 && d < bestD) {
					bestN, bestD, best, bestO = n, d, p, t
				}
			}
		}
	}
	switch {
	case bestO < 0:
		return k.towardWaste(v, agent, sec)
	case bestD > 0:
		dr, dc, ok := v.BFSToward(agent, best.R, best.C)
		if !ok {
			return ssd.Stand, false
		}
		return ssd.DirectionToAction(dr, dc, o), true
	case bestO != o && v.CleanBeamCount(me.R, me.C, o) < bestN:
		return ssd.RotateToward(o, bestO), true
	}
	return ssd.Clean, true
}

// towardWaste walks toward the nearest waste cell (of section sec, when
// sec is not -1) other than the one the agent stands on.
func (k *kit) towardWaste(v *ssd.View, agent, sec int) (int, bool) {
	me := v.AgentPos(agent)
	w := v.Width()
	var targets []ssd.Pos
	for _, p := range v.WasteCells() {
		if (p.R != me.R || p.C != me.C) && (sec < 0 || k.secAt[p.R*w+p.C] == sec) {
			targets = append(targets, p)
		}
	}
	return moveTo(v, agent, targets)
}
