package policy

import "ssd"

// A territorial collector in plain Go. Every call it floods the map from
// all active agents at once (a multi-source BFS) to find which cells each
// agent reaches first, ties going to the lower id: its Voronoi territory.
// Then it walks to the nearest alive apple in its own territory; failing
// that, camps on the nearest apple spawn it owns, to be there when the
// apple regrows; failing that, heads for any reachable apple.

var dirs = [4][2]int{{-1, 0}, {1, 0}, {0, -1}, {0, 1}}

var (
	owner []int // cell -> owning agent, -1 for none
	dist  []int // cell -> distance to its owner
	seen  []int // cell -> stamp of the search that reached it
	first []int // cell -> first step (index into dirs) from the agent
	queue []int
	stamp int
)

func flood(v *ssd.View) {
	h, w := v.Height(), v.Width()
	if len(owner) != h*w {
		owner = make([]int, h*w)
		dist = make([]int, h*w)
		seen = make([]int, h*w)
		first = make([]int, h*w)
	}
	for i := range owner {
		owner[i], dist[i] = -1, -1
	}
	queue = queue[:0]
	for a := 0; a < v.NumAgents(); a++ {
		if v.Timeout(a) > 0 {
			continue
		}
		p := v.AgentPos(a)
		cell := p.R*w + p.C
		if owner[cell] >= 0 {
			continue // a lower id already stands here
		}
		owner[cell], dist[cell] = a, 0
		queue = append(queue, cell)
	}
	for head := 0; head < len(queue); head++ {
		cell := queue[head]
		for _, dd := range dirs {
			r, c := cell/w+dd[0], cell%w+dd[1]
			if v.Wall(r, c) {
				continue
			}
			n := r*w + c
			switch {
			case dist[n] < 0:
				dist[n], owner[n] = dist[cell]+1, owner[cell]
				queue = append(queue, n)
			case dist[n] == dist[cell]+1 && owner[cell] < owner[n]:
				owner[n] = owner[cell]
			}
		}
	}
}

func Policy(v *ssd.View, agent int) int {
	if v.Timeout(agent) > 0 {
		return ssd.Stand
	}
	flood(v)
	w := v.Width()
	me := v.AgentPos(agent)
	start := me.R*w + me.C
	if v.AppleAt(me.R, me.C) {
		return ssd.Stand
	}
	orient := v.Orientation(agent)
	campStep, campHere := -1, v.AppleIndex(me.R, me.C) >= 0 && owner[start] == agent
	anyStep := -1
	stamp++
	queue = queue[:0]
	seen[start] = stamp
	queue = append(queue, start)
	for head := 0; head < len(queue); head++ {
		cell := queue[head]
		for d, dd := range dirs {
			r, c := cell/w+dd[0], cell%w+dd[1]
			if v.Wall(r, c) {
				continue
			}
			n := r*w + c
			if seen[n] == stamp {
				continue
			}
			seen[n] = stamp
			if cell == start {
				first[n] = d
			} else {
				first[n] = first[cell]
			}
			if v.AppleAt(r, c) {
				if owner[n] == agent {
					f := dirs[first[n]]
					return ssd.DirectionToAction(f[0], f[1], orient)
				}
				if anyStep < 0 {
					anyStep = first[n]
				}
			} else if campStep < 0 && owner[n] == agent && v.AppleIndex(r, c) >= 0 {
				campStep = first[n]
			}
			queue = append(queue, n)
		}
	}
	switch {
	case campHere:
		return ssd.Stand
	case campStep >= 0:
		return ssd.DirectionToAction(dirs[campStep][0], dirs[campStep][1], orient)
	case anyStep >= 0:
		return ssd.DirectionToAction(dirs[anyStep][0], dirs[anyStep][1], orient)
	}
	return ssd.Stand
}
