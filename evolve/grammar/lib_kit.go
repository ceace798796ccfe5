package grammar

// This file and the other lib_*.go files are the strategy modules' code.
// They are compiled into this package, where a genome runs in process, and
// embedded as text, from which Render copies the declarations a genome
// uses into the policy source it writes: one code, two ways to run it.
// They may therefore use only what a policy may (the ssd API, math, sort;
// no maps, closures, goroutines, min/max or range over an integer) and
// must not depend on anything else in this package.

import "policyevolve/envs/ssd"

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

// voronoi computes the step's territories once for all agents.
func (k *kit) voronoi(v *ssd.View) {
	if k.owner == nil {
		k.owner, k.odist = v.Voronoi()
	}
}

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
