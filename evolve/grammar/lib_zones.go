package grammar

import (
	"sort"

	"policyevolve/envs/ssd"
)

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
