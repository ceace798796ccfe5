package ssd

import "math"

// coopFar is the distance the zone matching uses for an unreachable zone.
const coopFar = 9999

// CoopZones splits the apple spawns among agents as the reference's
// cooperative policy does: apples in scan order are cut into len(agents)
// consecutive groups (the first ones one larger when it does not divide
// evenly), then agents and groups are matched greedily by BFS distance from
// the agent's current cell to the group's nearest spawn, smallest first
// (ties to the earlier agent in the list, then the earlier group). The
// result has one entry per agent id of the episode: the apple indices of
// its zone, nil for agents not listed.
//
// The reference computes the zones once per episode, at the policy's first
// call; do the same to reproduce it.
func (v *View) CoopZones(agents []int) [][]int {
	n := len(agents)
	zones := make([][]int, v.lay.NumAgents)
	if n == 0 {
		return zones
	}
	na := len(v.lay.Apples)
	groups := make([][]Pos, n)
	idx := make([][]int, n)
	per, rem := na/n, na%n
	k := 0
	for g := 0; g < n; g++ {
		cnt := per
		if g < rem {
			cnt++
		}
		for ; cnt > 0; cnt-- {
			groups[g] = append(groups[g], v.lay.Apples[k])
			idx[g] = append(idx[g], k)
			k++
		}
	}
	dist := make([][]int, n)
	for ai, id := range agents {
		dist[ai] = make([]int, n)
		for g := range groups {
			d := v.Distance(v.st.Pos[id], groups[g])
			if d == Unreachable {
				d = coopFar
			}
			dist[ai][g] = d
		}
	}
	usedA := make([]bool, n)
	usedG := make([]bool, n)
	for range n {
		best, ba, bg := math.MaxInt, 0, 0
		for ai := 0; ai < n; ai++ {
			if usedA[ai] {
				continue
			}
			for g := 0; g < n; g++ {
				if !usedG[g] && dist[ai][g] < best {
					best, ba, bg = dist[ai][g], ai, g
				}
			}
		}
		zones[agents[ba]] = append([]int{}, idx[bg]...)
		usedA[ba], usedG[bg] = true, true
	}
	return zones
}

// CoopAction is the reference's cooperative zone patrol for one agent whose
// zone holds the given apple indices: Stand while tagged out; else a step
// toward the nearest alive apple of the zone; else toward the zone's
// centroid (mean row and column, rounded half to even, moved to the first
// open cell of the 5x5 square around it when it is a wall) to wait for
// regrowth. It never fires. With an empty zone it stands (the reference
// fails there).
func (v *View) CoopAction(agent int, zone []int) int {
	if v.st.Timeout[agent] > 0 {
		return Stand
	}
	orient := v.st.Orient[agent]
	var targets []Pos
	for _, k := range zone {
		if v.st.AppleAlive[k] {
			targets = append(targets, v.lay.Apples[k])
		}
	}
	if len(targets) > 0 {
		if dr, dc, ok := v.BFSToTargets(agent, targets); ok {
			return DirectionToAction(dr, dc, orient)
		}
	}
	if len(zone) == 0 {
		return Stand
	}
	sr, sc := 0, 0
	for _, k := range zone {
		sr += v.lay.Apples[k].R
		sc += v.lay.Apples[k].C
	}
	cr := int(math.RoundToEven(float64(sr) / float64(len(zone))))
	cc := int(math.RoundToEven(float64(sc) / float64(len(zone))))
	if v.Wall(cr, cc) {
	nudge:
		for dr := -2; dr <= 2; dr++ {
			for dc := -2; dc <= 2; dc++ {
				if !v.Wall(cr+dr, cc+dc) {
					cr, cc = cr+dr, cc+dc
					break nudge
				}
			}
		}
	}
	me := v.st.Pos[agent]
	if me.R != cr || me.C != cc {
		if dr, dc, ok := v.BFSToward(agent, cr, cc); ok {
			return DirectionToAction(dr, dc, orient)
		}
	}
	return Stand
}
