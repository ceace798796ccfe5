package ssd

import "math"

// Policy is the shape of every policy: given the view of the current state
// and the id of the agent to move, return its action. Agents that play the
// same policy in an episode share one instance, called in id order each
// step; tagged-out agents are asked too (their action is ignored).
type Policy func(v *View, agent int) int

// GreedyAction is the reference's greedy BFS collector: Stand while tagged
// out, else a step along a shortest path to the nearest alive apple (Stand
// when there is none, or when standing on one).
func (v *View) GreedyAction(agent int) int {
	if v.st.Timeout[agent] > 0 {
		return Stand
	}
	dr, dc, ok := v.BFSNearestApple(agent)
	if !ok {
		return Stand
	}
	return DirectionToAction(dr, dc, v.st.Orient[agent])
}

// chaseRange is how far (Manhattan) the exploitative policy chases a
// half-tagged rival.
const chaseRange = 12

// ExploitAction is the reference's exploitative policy. In order:
//  1. beam when an opponent is in the beam now (by BeamTargets);
//  2. rotate toward the side where one quarter turn brings an opponent into
//     the beam, preferring half-tagged then nearer ones (left on ties);
//  3. chase the nearest half-tagged opponent within 12 cells toward a
//     firing position on its row or column (at most 7 cells away), or turn
//     toward it when already there;
//  4. otherwise collect like GreedyAction.
func (v *View) ExploitAction(agent int) int {
	if v.st.Timeout[agent] > 0 {
		return Stand
	}
	me := v.st.Pos[agent]
	cur := v.st.Orient[agent]
	opps := v.opponents(agent)
	if len(opps) == 0 {
		return v.GreedyAction(agent)
	}
	if len(v.beamTargets(me.R, me.C, cur, opps)) > 0 {
		return Beam
	}
	ls := v.bestScore(v.beamTargets(me.R, me.C, (cur+3)%4, opps))
	rs := v.bestScore(v.beamTargets(me.R, me.C, (cur+1)%4, opps))
	if ls >= 0 || rs >= 0 {
		if ls >= rs {
			return RotateLeft
		}
		return RotateRight
	}

	// Chase the nearest half-tagged opponent (first in id order on ties).
	target := -1
	for k, o := range opps {
		if o.Hits >= 1 && (target < 0 || o.Dist < opps[target].Dist) {
			target = k
		}
	}
	if target >= 0 && opps[target].Dist <= chaseRange {
		if a, ok := v.chase(agent, opps[target].Pos); ok {
			return a
		}
	}
	return v.GreedyAction(agent)
}

// bestScore rates a rotation's targets: half-tagged first, then nearer.
func (v *View) bestScore(ts []BeamTarget) int {
	if len(ts) == 0 {
		return -999
	}
	best := math.MinInt
	for _, t := range ts {
		best = max(best, t.Hits*1000+(v.lay.Params.BeamLength-t.Fwd))
	}
	return best
}

// chase moves toward the nearest cell from which a beam facing some
// orientation would reach t, or turns toward t when already on one.
func (v *View) chase(agent int, t Pos) (int, bool) {
	v.scratch()
	g := v.nextMark()
	w := v.lay.Width
	reach := min(v.lay.Params.BeamLength, 7)
	any := false
	for o := 0; o < 4; o++ {
		a, _, c, _ := Rotation(o)
		for f := 1; f <= reach; f++ {
			r, cc := t.R-a*f, t.C-c*f
			if !v.Wall(r, cc) {
				v.mark[r*w+cc] = g
				any = true
			}
		}
	}
	if !any {
		return 0, false
	}
	me := v.st.Pos[agent]
	cur := v.st.Orient[agent]
	if v.mark[me.R*w+me.C] == g {
		dr, dc := t.R-me.R, t.C-me.C
		for o := 0; o < 4; o++ {
			a, _, c, _ := Rotation(o)
			if dr != 0 && a != 0 && (dr > 0) == (a > 0) && dc == 0 {
				return RotateToward(cur, o), true
			}
			if dc != 0 && c != 0 && (dc > 0) == (c > 0) && dr == 0 {
				return RotateToward(cur, o), true
			}
		}
		return 0, false
	}
	d, ok := v.firstStep(int32(me.R*w+me.C), false)
	if !ok {
		return 0, false
	}
	return DirectionToAction(dirs[d][0], dirs[d][1], cur), true
}
