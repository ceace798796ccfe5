package policy

import (
	"math"

	"ssd"
)

// The reference's cooperative zone patrol, written out in plain Go. At its
// first call of an episode it splits the apple spawns, in scan order, into
// one zone per agent and matches agents to zones greedily by BFS distance
// (nearest pair first). Then each agent walks to the nearest alive apple
// of its zone, or waits at the zone's centroid. It never fires.
//
// zones is package state: it lives for one episode, because every episode
// gets a fresh instance of the policy.

var zones [][]int

var dirs = [4][2]int{{-1, 0}, {1, 0}, {0, -1}, {0, 1}}

// distance is the BFS distance from (r0, c0) to the nearest cell of goal,
// or 9999 when none is reachable.
func distance(v *ssd.View, r0, c0 int, goal map[ssd.Pos]bool) int {
	if goal[ssd.Pos{R: r0, C: c0}] {
		return 0
	}
	w := v.Width()
	dist := make([]int, v.Height()*w)
	for i := range dist {
		dist[i] = -1
	}
	dist[r0*w+c0] = 0
	queue := []int{r0*w + c0}
	for head := 0; head < len(queue); head++ {
		cell := queue[head]
		for _, dd := range dirs {
			r, c := cell/w+dd[0], cell%w+dd[1]
			if v.Wall(r, c) || dist[r*w+c] >= 0 {
				continue
			}
			dist[r*w+c] = dist[cell] + 1
			if goal[ssd.Pos{R: r, C: c}] {
				return dist[r*w+c]
			}
			queue = append(queue, r*w+c)
		}
	}
	return 9999
}

// firstStep is the first step of a shortest path from (r0, c0) to the
// first cell of goal discovered, trying neighbours N, S, W, E.
func firstStep(v *ssd.View, r0, c0 int, goal map[ssd.Pos]bool) (int, int, bool) {
	w := v.Width()
	seen := make([]bool, v.Height()*w)
	first := make([]int, v.Height()*w)
	seen[r0*w+c0] = true
	var queue []int
	for d, dd := range dirs {
		r, c := r0+dd[0], c0+dd[1]
		if v.Wall(r, c) || seen[r*w+c] {
			continue
		}
		seen[r*w+c] = true
		if goal[ssd.Pos{R: r, C: c}] {
			return dd[0], dd[1], true
		}
		first[r*w+c] = d
		queue = append(queue, r*w+c)
	}
	for head := 0; head < len(queue); head++ {
		cell := queue[head]
		for _, dd := range dirs {
			r, c := cell/w+dd[0], cell%w+dd[1]
			if v.Wall(r, c) || seen[r*w+c] {
				continue
			}
			seen[r*w+c] = true
			if goal[ssd.Pos{R: r, C: c}] {
				f := dirs[first[cell]]
				return f[0], f[1], true
			}
			first[r*w+c] = first[cell]
			queue = append(queue, r*w+c)
		}
	}
	return 0, 0, false
}

func makeZones(v *ssd.View) [][]int {
	n := v.NumAgents()
	na := v.NumApples()
	groups := make([][]int, n)
	k := 0
	for g := 0; g < n; g++ {
		size := na / n
		if g < na%n {
			size++
		}
		for i := 0; i < size; i++ {
			groups[g] = append(groups[g], k)
			k++
		}
	}
	dist := make([][]int, n)
	for a := 0; a < n; a++ {
		dist[a] = make([]int, n)
		p := v.AgentPos(a)
		for g := 0; g < n; g++ {
			goal := map[ssd.Pos]bool{}
			for _, i := range groups[g] {
				goal[v.ApplePos(i)] = true
			}
			dist[a][g] = distance(v, p.R, p.C, goal)
		}
	}
	out := make([][]int, n)
	usedA := make([]bool, n)
	usedG := make([]bool, n)
	for round := 0; round < n; round++ {
		best, ba, bg := 1<<60, 0, 0
		for a := 0; a < n; a++ {
			for g := 0; g < n; g++ {
				if !usedA[a] && !usedG[g] && dist[a][g] < best {
					best, ba, bg = dist[a][g], a, g
				}
			}
		}
		out[ba] = groups[bg]
		usedA[ba], usedG[bg] = true, true
	}
	return out
}

func Policy(v *ssd.View, agent int) int {
	if zones == nil {
		zones = makeZones(v)
	}
	if v.Timeout(agent) > 0 {
		return ssd.Stand
	}
	me := v.AgentPos(agent)
	orient := v.Orientation(agent)
	zone := zones[agent]
	alive := map[ssd.Pos]bool{}
	for _, i := range zone {
		if v.AppleAlive(i) {
			alive[v.ApplePos(i)] = true
		}
	}
	if len(alive) > 0 {
		if dr, dc, ok := firstStep(v, me.R, me.C, alive); ok {
			return ssd.DirectionToAction(dr, dc, orient)
		}
	}
	if len(zone) == 0 {
		return ssd.Stand
	}
	sr, sc := 0, 0
	for _, i := range zone {
		sr += v.ApplePos(i).R
		sc += v.ApplePos(i).C
	}
	cr := int(math.RoundToEven(float64(sr) / float64(len(zone))))
	cc := int(math.RoundToEven(float64(sc) / float64(len(zone))))
	if v.Wall(cr, cc) {
	search:
		for dr := -2; dr <= 2; dr++ {
			for dc := -2; dc <= 2; dc++ {
				if !v.Wall(cr+dr, cc+dc) {
					cr, cc = cr+dr, cc+dc
					break search
				}
			}
		}
	}
	if me.R == cr && me.C == cc {
		return ssd.Stand
	}
	if dr, dc, ok := firstStep(v, me.R, me.C, map[ssd.Pos]bool{{R: cr, C: cc}: true}); ok {
		return ssd.DirectionToAction(dr, dc, orient)
	}
	return ssd.Stand
}
