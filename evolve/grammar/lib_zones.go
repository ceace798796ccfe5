package grammar

import "policyevolve/envs/ssd"

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
	return k.collect(v, agent, zone, p.Roam, p.Wait)
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
		dr, dc, ok := v.BFSToward(agent, a.R, a.C)
		if !ok {
			return ssd.Stand, false
		}
		return ssd.DirectionToAction(dr, dc, v.Orientation(agent)), true
	}
	return ssd.Stand, false
}

// zonesFor cuts the zones when there are none yet, or, with Share, when
// the active harvesters of the team changed since the last cut.
func (k *kit) zonesFor(v *ssd.View, p *ZonesParams) {
	who := k.who[:0]
	for i := 0; i < k.n; i++ {
		if !p.Share || (k.team[i] && v.Active(i) && !k.cleaner[i]) {
			who = append(who, i)
		}
	}
	k.who = who
	if k.zone != nil && (!p.Share || sameInts(who, k.zoneWho)) {
		return
	}
	k.zoneWho = append(k.zoneWho[:0], who...)
	k.zone = cutZones(v, k.n, who, p.Refine, p.Match)
	if p.Tour {
		k.tour = make([][]int, k.n)
		k.tourAt = make([]int, k.n)
		for _, a := range who {
			k.tour[a] = tourOf(v, v.AgentPos(a), k.zone[a])
		}
	}
}

// tourOf orders the apple spawns zone into a cycle: nearest neighbour
// (rows plus columns) from start, then 2-opt moves while one shortens it.
// Positions are copied out once and distances computed inline: the
// interpreter pays for every call.
func tourOf(v *ssd.View, start ssd.Pos, zone []int) []int {
	n := len(zone)
	rs, cs := make([]int, n), make([]int, n)
	for j, i := range zone {
		p := v.ApplePos(i)
		rs[j], cs[j] = p.R, p.C
	}
	order := make([]int, 0, n) // positions in zone
	used := make([]bool, n)
	r, c := start.R, start.C
	for len(order) < n {
		best, bestD := -1, 0
		for j := 0; j < n; j++ {
			if used[j] {
				continue
			}
			d := rs[j] - r
			if d < 0 {
				d = -d
			}
			dc := cs[j] - c
			if dc < 0 {
				dc = -dc
			}
			if best < 0 || d+dc < bestD {
				best, bestD = j, d+dc
			}
		}
		used[best] = true
		order = append(order, best)
		r, c = rs[best], cs[best]
	}
	tr, tc := make([]int, n), make([]int, n)
	for k, j := range order {
		tr[k], tc[k] = rs[j], cs[j]
	}
	for shorter := true; shorter; {
		shorter = false
		for i := 0; i+2 < n; i++ {
			for j := i + 2; j < n; j++ {
				if i == 0 && j == n-1 {
					continue // the same two edges
				}
				e := (j + 1) % n
				if dist4(tr[i], tc[i], tr[j], tc[j], tr[i+1], tc[i+1], tr[e], tc[e]) < dist4(tr[i], tc[i], tr[i+1], tc[i+1], tr[j], tc[j], tr[e], tc[e]) {
					for l, h := i+1, j; l < h; l, h = l+1, h-1 {
						tr[l], tr[h] = tr[h], tr[l]
						tc[l], tc[h] = tc[h], tc[l]
						order[l], order[h] = order[h], order[l]
					}
					shorter = true
				}
			}
		}
	}
	t := make([]int, n)
	for k, j := range order {
		t[k] = zone[j]
	}
	return t
}

// dist4 is the length of two legs, (r1,c1)-(r2,c2) and (r3,c3)-(r4,c4),
// in rows plus columns.
func dist4(r1, c1, r2, c2, r3, c3, r4, c4 int) int {
	d := 0
	for _, x := range [4]int{r1 - r2, c1 - c2, r3 - r4, c3 - c4} {
		if x < 0 {
			x = -x
		}
		d += x
	}
	return d
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
// recursive bisection then refine rounds of balanced k-means, and returns
// each agent's apple indices (nil for the agents not in who).
func cutZones(v *ssd.View, n int, who []int, refine int, match bool) [][]int {
	out := make([][]int, n)
	if len(who) == 0 {
		return out
	}
	cells := v.AppleSpawns()
	idx := make([]int, len(cells))
	for i := range idx {
		idx[i] = i
	}
	parts := bisectCells(cells, idx, len(who), nil, v.Height(), v.Width())
	for r := 0; r < refine; r++ {
		parts = rebalance(cells, parts, v.Height()+v.Width())
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

// bisectCells appends to out the cells idx (indices into cells) cut into
// parts groups of as equal counts as can be: sorted along the longer side
// of their bounding box, cut in proportion to the groups on each side,
// and each side cut again. It reorders idx; h and w are the map's height
// and width.
func bisectCells(cells []ssd.Pos, idx []int, parts int, out [][]int, h, w int) [][]int {
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
	rows := maxR-minR > maxC-minC
	key := make([]int, len(idx))
	for j, i := range idx {
		key[j] = cellKey(cells[i], rows, h, w)
	}
	for i := 1; i < len(idx); i++ { // insertion sort: stable, and run once per cut
		for j := i; j > 0 && key[j] < key[j-1]; j-- {
			idx[j], idx[j-1] = idx[j-1], idx[j]
			key[j], key[j-1] = key[j-1], key[j]
		}
	}
	half := parts / 2
	cut := len(idx) * half / parts
	out = bisectCells(cells, idx[:cut], half, out, h, w)
	return bisectCells(cells, idx[cut:], parts-half, out, h, w)
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
				dist[i*np+j] = quarterDist(cells[i], cr[j], cc[j])
				count[dist[i*np+j]+1]++
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
