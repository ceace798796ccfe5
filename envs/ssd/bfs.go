package ssd

// Breadth-first search over open cells, with the reference's exact
// decisions: neighbours are tried in the order north, south, west, east;
// a cell is marked when it is discovered, and the search stops at the first
// target discovered. Agents never block a path.

// Unreachable is the distance of a cell no path reaches.
const Unreachable = -1

func (v *View) scratch() {
	n := v.lay.Height * v.lay.Width
	if len(v.seen) != n {
		v.seen = make([]uint32, n)
		v.mark = make([]uint32, n)
		v.first = make([]int8, n)
		v.dist = make([]int32, n)
		v.queue = make([]int32, 0, n)
		v.seenGen, v.markGen = 0, 0
	}
}

// nextSeen starts a new search: every cell becomes unvisited.
func (v *View) nextSeen() uint32 {
	v.seenGen++
	if v.seenGen == 0 { // wrapped: clear for real
		clear(v.seen)
		v.seenGen = 1
	}
	return v.seenGen
}

// nextMark starts a new target set: every cell stops being a target.
func (v *View) nextMark() uint32 {
	v.markGen++
	if v.markGen == 0 {
		clear(v.mark)
		v.markGen = 1
	}
	return v.markGen
}

// markTargets marks the in-bounds cells of targets and reports whether any
// target was given at all.
func (v *View) markTargets(targets []Pos) (uint32, bool) {
	v.scratch()
	g := v.nextMark()
	w := v.lay.Width
	for _, p := range targets {
		if v.InBounds(p.R, p.C) {
			v.mark[p.R*w+p.C] = g
		}
	}
	return g, len(targets) > 0
}

// firstStep searches from start for the first discovered target and
// returns the index into dirs of the first step on the path to it. With
// apples set, the targets are the alive apples; otherwise the cells marked
// with the current mark generation.
func (v *View) firstStep(start int32, apples bool) (int, bool) {
	v.scratch()
	seen, gen := v.seen, v.nextSeen()
	mark, mg := v.mark, v.markGen
	nbr, appleAt, alive := v.d.nbr, v.d.appleAt, v.st.AppleAlive
	first := v.first
	isTarget := func(c int32) bool {
		if apples {
			k := appleAt[c]
			return k >= 0 && alive[k]
		}
		return mark[c] == mg
	}
	q := v.queue[:0]
	seen[start] = gen
	for k := 0; k < 4; k++ {
		n := nbr[4*start+int32(k)]
		if n < 0 || seen[n] == gen {
			continue
		}
		seen[n] = gen
		if isTarget(n) {
			v.queue = q
			return k, true
		}
		first[n] = int8(k)
		q = append(q, n)
	}
	for head := 0; head < len(q); head++ {
		c := q[head]
		f := first[c]
		ns := nbr[4*c : 4*c+4]
		for _, n := range ns {
			if n < 0 || seen[n] == gen {
				continue
			}
			seen[n] = gen
			if isTarget(n) {
				v.queue = q
				return int(f), true
			}
			first[n] = f
			q = append(q, n)
		}
	}
	v.queue = q
	return 0, false
}

// BFSNearestApple returns the first step (dr, dc) of a shortest path from
// agent's cell to the nearest alive apple, (0, 0) when the agent stands on
// one, and ok == false when no apple is alive or reachable. Ties go to the
// apple discovered first (neighbours in the order N, S, W, E).
func (v *View) BFSNearestApple(agent int) (dr, dc int, ok bool) {
	start := v.cell(agent)
	anyAlive := false
	for _, a := range v.st.AppleAlive {
		if a {
			anyAlive = true
			break
		}
	}
	if !anyAlive {
		return 0, 0, false
	}
	if k := v.d.appleAt[start]; k >= 0 && v.st.AppleAlive[k] {
		return 0, 0, true
	}
	d, ok := v.firstStep(start, true)
	if !ok {
		return 0, 0, false
	}
	return dirs[d][0], dirs[d][1], true
}

// BFSToTargets is BFSNearestApple toward the nearest cell of targets
// instead: (0, 0) when the agent stands on one, ok == false when targets is
// empty or none is reachable.
func (v *View) BFSToTargets(agent int, targets []Pos) (dr, dc int, ok bool) {
	g, any := v.markTargets(targets)
	if !any {
		return 0, 0, false
	}
	start := v.cell(agent)
	if v.mark[start] == g {
		return 0, 0, true
	}
	d, ok := v.firstStep(start, false)
	if !ok {
		return 0, 0, false
	}
	return dirs[d][0], dirs[d][1], true
}

// BFSToward returns the first step toward (r, c): (0, 0) when the agent is
// there, ok == false when the cell cannot be reached (a wall, off the grid,
// or walled off).
func (v *View) BFSToward(agent, r, c int) (dr, dc int, ok bool) {
	p := v.st.Pos[agent]
	if p.R == r && p.C == c {
		return 0, 0, true
	}
	v.markTargets([]Pos{{r, c}})
	d, ok := v.firstStep(v.cell(agent), false)
	if !ok {
		return 0, 0, false
	}
	return dirs[d][0], dirs[d][1], true
}

// DirectionToAction converts a world step (dr, dc) into the movement action
// that makes it for an agent facing orient (agents strafe, so no rotation
// is needed); (0, 0) is Stand. Anything other than a unit step returns
// Forward, as the reference does.
func DirectionToAction(dr, dc, orient int) int {
	if dr == 0 && dc == 0 {
		return Stand
	}
	a, b, c, d := Rotation(orient)
	switch {
	case dr == a && dc == c:
		return Forward
	case dr == -a && dc == -c:
		return Backward
	case dr == -b && dc == -d:
		return StepLeft
	case dr == b && dc == d:
		return StepRight
	}
	return Forward
}

// Distance returns the length of a shortest path from `from` to the
// nearest cell of targets, or Unreachable.
func (v *View) Distance(from Pos, targets []Pos) int {
	if !v.InBounds(from.R, from.C) || len(targets) == 0 {
		return Unreachable
	}
	g, _ := v.markTargets(targets)
	start := int32(from.R*v.lay.Width + from.C)
	if v.mark[start] == g {
		return 0
	}
	seen, sg := v.seen, v.nextSeen()
	dist, nbr, q := v.dist, v.d.nbr, v.queue[:0]
	seen[start] = sg
	dist[start] = 0
	q = append(q, start)
	for head := 0; head < len(q); head++ {
		c := q[head]
		for _, n := range nbr[4*c : 4*c+4] {
			if n < 0 || seen[n] == sg {
				continue
			}
			seen[n] = sg
			dist[n] = dist[c] + 1
			if v.mark[n] == g {
				v.queue = q
				return int(dist[n])
			}
			q = append(q, n)
		}
	}
	v.queue = q
	return Unreachable
}

// DistanceField returns the shortest-path distance from `from` to every
// cell, row-major (index r*Width()+c); walls and unreachable cells hold
// Unreachable. The slice is fresh. The field is computed once per step
// and cell: asking again for the same cell in the same step (another
// agent, say) costs a copy.
func (v *View) DistanceField(from Pos) []int {
	if !v.InBounds(from.R, from.C) {
		return v.DistanceFieldFrom([]Pos{from})
	}
	cell := from.R*v.lay.Width + from.C
	if f, ok := v.memo.fields[cell]; ok {
		return append([]int(nil), f...)
	}
	f := v.DistanceFieldFrom([]Pos{from})
	v.memo.keepField(cell, f)
	return append([]int(nil), f...)
}

// DistanceFieldFrom is DistanceField from the nearest of several sources;
// sources on walls or off the grid are ignored.
func (v *View) DistanceFieldFrom(sources []Pos) []int {
	out, _ := v.flood(sources, nil)
	return out
}

// Voronoi divides the open cells among the active agents: each cell belongs
// to the agent with the shortest path to it, ties going to the lowest agent
// id (also when agents share a cell). It returns the owner of every cell
// (row-major; -1 for walls, unreachable cells, or when every agent is
// tagged out) and the owner's distance (Unreachable where there is none).
// Both slices are fresh. The division is computed once per step: every
// agent after the first gets a copy.
func (v *View) Voronoi() (owner []int, dist []int) {
	if v.memo.voronoi {
		return append([]int(nil), v.memo.owner...), append([]int(nil), v.memo.dist...)
	}
	var srcs []Pos
	var ids []int
	for i, p := range v.st.Pos {
		if v.st.Timeout[i] <= 0 {
			srcs = append(srcs, p)
			ids = append(ids, i)
		}
	}
	dist, owner = v.flood(srcs, ids)
	v.memo.voronoi, v.memo.owner, v.memo.dist = true, owner, dist
	return append([]int(nil), owner...), append([]int(nil), dist...)
}

// flood is a multi-source BFS. With ids it also tracks which source (by
// id) owns each cell, preferring the lowest id among equally near sources.
func (v *View) flood(sources []Pos, ids []int) (dist []int, owner []int) {
	v.scratch()
	n := v.lay.Height * v.lay.Width
	dist = make([]int, n)
	for i := range dist {
		dist[i] = Unreachable
	}
	if ids != nil {
		owner = make([]int, n)
		for i := range owner {
			owner[i] = -1
		}
	}
	w := v.lay.Width
	q := v.queue[:0]
	for s, p := range sources {
		if v.Wall(p.R, p.C) {
			continue
		}
		c := p.R*w + p.C
		if dist[c] == 0 {
			if owner != nil && ids[s] < owner[c] {
				owner[c] = ids[s]
			}
			continue
		}
		dist[c] = 0
		if owner != nil {
			owner[c] = ids[s]
		}
		q = append(q, int32(c))
	}
	nbr := v.d.nbr
	for head := 0; head < len(q); head++ {
		c := q[head]
		d := dist[c] + 1
		for _, nb := range nbr[4*c : 4*c+4] {
			if nb < 0 {
				continue
			}
			switch {
			case dist[nb] == Unreachable:
				dist[nb] = d
				if owner != nil {
					owner[nb] = owner[c]
				}
				q = append(q, nb)
			case owner != nil && dist[nb] == d && owner[c] < owner[nb]:
				// Reached again in the same layer by a lower id: the cell
				// has not been expanded yet, so its descendants inherit
				// the corrected owner.
				owner[nb] = owner[c]
			}
		}
	}
	v.queue = q
	return dist, owner
}
