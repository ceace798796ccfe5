package policy

import "ssd"

// The reference's greedy collector, written out in plain Go instead of
// calling v.GreedyAction: a breadth-first search from the agent's cell to
// the nearest alive apple, trying neighbours north, south, west, east and
// stopping at the first apple discovered; then the movement action that
// takes the first step of that path.

var (
	seen  []int // seen[cell] == stamp: visited in the current search
	first []int // first step (index into dirs) of the path to a cell
	queue []int
	stamp int
)

var dirs = [4][2]int{{-1, 0}, {1, 0}, {0, -1}, {0, 1}}

func Policy(v *ssd.View, agent int) int {
	if v.Timeout(agent) > 0 {
		return ssd.Stand
	}
	if v.NumAlive() == 0 {
		return ssd.Stand
	}
	me := v.AgentPos(agent)
	if v.AppleAt(me.R, me.C) {
		return ssd.Stand
	}
	h, w := v.Height(), v.Width()
	if len(seen) != h*w {
		seen = make([]int, h*w)
		first = make([]int, h*w)
	}
	stamp++
	queue = queue[:0]
	seen[me.R*w+me.C] = stamp
	for d, dd := range dirs {
		r, c := me.R+dd[0], me.C+dd[1]
		if v.Wall(r, c) || seen[r*w+c] == stamp {
			continue
		}
		seen[r*w+c] = stamp
		if v.AppleAt(r, c) {
			return ssd.DirectionToAction(dd[0], dd[1], v.Orientation(agent))
		}
		first[r*w+c] = d
		queue = append(queue, r*w+c)
	}
	for head := 0; head < len(queue); head++ {
		cell := queue[head]
		r0, c0 := cell/w, cell%w
		for _, dd := range dirs {
			r, c := r0+dd[0], c0+dd[1]
			if v.Wall(r, c) || seen[r*w+c] == stamp {
				continue
			}
			seen[r*w+c] = stamp
			if v.AppleAt(r, c) {
				f := dirs[first[cell]]
				return ssd.DirectionToAction(f[0], f[1], v.Orientation(agent))
			}
			first[r*w+c] = first[cell]
			queue = append(queue, r*w+c)
		}
	}
	return ssd.Stand
}
