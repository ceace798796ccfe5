package policy

import "ssd"

// A territorial collector in plain Go. Every call it floods the map from
// all active agents at once (a multi-source BFS) to find which cells each
// agent reaches first, ties going to the lower id: its Voronoi territory.
// Then it walks to the nearest alive apple in its own territory; failing
// that, camps on the nearest apple spawn it owns, to be there when the
// apple regrows; failing that, heads for the nearest apple anywhere.
//
// A shortest path from an agent to a cell it owns stays inside its
// territory (a rival nearer to a cell on the path would be at least as
// near to the cell itself), so the flood's own distances lead the way
// back: no second search is needed except for the last resort.
//
// The map's geometry is read once per episode into package variables:
// a policy instance lives for one episode.

var (
	width   int
	nbr     []int // 4 per cell (N, S, W, E): the neighbour's cell, or -1
	apples  []int // apple index -> cell
	owner   []int // cell -> owning agent, -1 for none
	dist    []int // cell -> distance to its owner, -1 when unreached
	queue   []int
	seen    []int // last resort: cell -> stamp of the search that reached it
	first   []int // last resort: first step (0-3) toward the cell
	stamp   int
	offsets = [4][2]int{{-1, 0}, {1, 0}, {0, -1}, {0, 1}}
)

func setup(v *ssd.View) {
	h, w := v.Height(), v.Width()
	width = w
	walls := v.Walls()
	nbr = make([]int, 4*h*w)
	for r := 0; r < h; r++ {
		for c := 0; c < w; c++ {
			for k, o := range offsets {
				nr, nc := r+o[0], c+o[1]
				n := -1
				if nr >= 0 && nr < h && nc >= 0 && nc < w && !walls[nr][nc] {
					n = nr*w + nc
				}
				nbr[4*(r*w+c)+k] = n
			}
		}
	}
	for _, p := range v.AppleSpawns() {
		apples = append(apples, p.R*w+p.C)
	}
	owner = make([]int, h*w)
	dist = make([]int, h*w)
	queue = make([]int, h*w)
	seen = make([]int, h*w)
	first = make([]int, h*w)
}

// flood computes owner and dist from every active agent.
func flood(v *ssd.View) {
	for i := range dist {
		dist[i] = -1
		owner[i] = -1
	}
	tail := 0
	for a := 0; a < v.NumAgents(); a++ {
		if v.Timeout(a) > 0 {
			continue
		}
		p := v.AgentPos(a)
		cell := p.R*width + p.C
		if dist[cell] == 0 {
			continue // a lower id stands here already
		}
		dist[cell], owner[cell] = 0, a
		queue[tail] = cell
		tail++
	}
	for head := 0; head < tail; head++ {
		cell := queue[head]
		d, o := dist[cell]+1, owner[cell]
		for k := 4 * cell; k < 4*cell+4; k++ {
			n := nbr[k]
			if n < 0 {
				continue
			}
			if dist[n] < 0 {
				dist[n], owner[n] = d, o
				queue[tail] = n
				tail++
			} else if dist[n] == d && o < owner[n] {
				owner[n] = o
			}
		}
	}
}

// stepToward returns the first step from start to target (a cell the
// agent owns), following the flood's distances back from the target.
func stepToward(agent, start, target int) (int, int) {
	cell := target
	for dist[cell] > 1 {
		for k := 4 * cell; k < 4*cell+4; k++ {
			if n := nbr[k]; n >= 0 && owner[n] == agent && dist[n] == dist[cell]-1 {
				cell = n
				break
			}
		}
	}
	for k := 0; k < 4; k++ {
		if nbr[4*start+k] == cell {
			return offsets[k][0], offsets[k][1]
		}
	}
	return 0, 0
}

// nearestApple is the last resort: a BFS from start to any alive apple.
func nearestApple(v *ssd.View, start int) (int, int, bool) {
	stamp++
	seen[start] = stamp
	tail := 0
	for k := 0; k < 4; k++ {
		if n := nbr[4*start+k]; n >= 0 && seen[n] != stamp {
			seen[n], first[n] = stamp, k
			if v.AppleAt(n/width, n%width) {
				return offsets[k][0], offsets[k][1], true
			}
			queue[tail] = n
			tail++
		}
	}
	for head := 0; head < tail; head++ {
		cell := queue[head]
		for k := 4 * cell; k < 4*cell+4; k++ {
			if n := nbr[k]; n >= 0 && seen[n] != stamp {
				seen[n], first[n] = stamp, first[cell]
				if v.AppleAt(n/width, n%width) {
					f := offsets[first[n]]
					return f[0], f[1], true
				}
				queue[tail] = n
				tail++
			}
		}
	}
	return 0, 0, false
}

func Policy(v *ssd.View, agent int) int {
	if v.Timeout(agent) > 0 {
		return ssd.Stand
	}
	if nbr == nil {
		setup(v)
	}
	flood(v)
	me := v.AgentPos(agent)
	start := me.R*width + me.C
	orient := v.Orientation(agent)
	if v.AppleAt(me.R, me.C) {
		return ssd.Stand
	}
	bestApple, bestSpawn := -1, -1
	for k, cell := range apples {
		if owner[cell] != agent {
			continue
		}
		if v.AppleAlive(k) {
			if bestApple < 0 || dist[cell] < dist[bestApple] {
				bestApple = cell
			}
		} else if bestSpawn < 0 || dist[cell] < dist[bestSpawn] {
			bestSpawn = cell
		}
	}
	switch {
	case bestApple >= 0:
		dr, dc := stepToward(agent, start, bestApple)
		return ssd.DirectionToAction(dr, dc, orient)
	case bestSpawn == start:
		return ssd.Stand // camp
	case bestSpawn >= 0:
		dr, dc := stepToward(agent, start, bestSpawn)
		return ssd.DirectionToAction(dr, dc, orient)
	}
	if dr, dc, ok := nearestApple(v, start); ok {
		return ssd.DirectionToAction(dr, dc, orient)
	}
	return ssd.Stand
}
