package policy

import "ssd"

// Three agents clean the river when it is dirty; everyone else, and the
// cleaners when it is clean, collects the nearest apple. The threshold is
// deliberately bad: the waste density never passes the depletion
// threshold (0.4), so nobody ever cleans and the orchard dies out.

const cleanAbove = 0.9 // waste density above which the cleaners clean

func Policy(v *ssd.View, agent int) int {
	if v.Timeout(agent) > 0 {
		return ssd.Stand
	}
	o := v.Orientation(agent)
	if agent < 3 && v.WasteDensity() > cleanAbove {
		me := v.AgentPos(agent)
		if v.CleanBeamCount(me.R, me.C, o) > 0 {
			return ssd.Clean
		}
		for t := 0; t < 4; t++ {
			if v.CleanBeamCount(me.R, me.C, t) > 0 {
				return ssd.RotateToward(o, t)
			}
		}
		if dr, dc, ok := v.BFSToTargets(agent, v.WasteCells()); ok {
			return ssd.DirectionToAction(dr, dc, o)
		}
	}
	return v.GreedyAction(agent)
}
