package qlearn

import (
	"slices"

	"policyevolve/envs/ssd"
)

// Values of the step features: a movement action 0-3 (ssd.Forward …
// ssd.StepRight) toward the target, or one of these.
const (
	stepHere = 4 // standing on a target
	stepNone = 5 // no target reachable
)

// noTarget is the distance the reference gives an unreachable target.
const noTarget = 99

// featurizer computes the reference's features on one Layout, with
// scratch space reused from call to call. Not safe for concurrent use.
type featurizer struct {
	lay     *ssd.Layout
	sp      *space
	w       int
	nbr     []int32 // 4 per cell, N, S, W, E (the reference's BFS order); -1 where blocked
	appleAt []int32 // cell -> apple index or -1
	riverAt []int32 // cell -> river index or -1

	seen  []uint32 // seen[c] == gen: discovered in the current search
	gen   uint32
	first []int8  // direction index of the first step on the path to a cell
	dist  []int32 // path length to a cell
	queue []int32
	tuple []int
}

// dirs are the BFS directions in the reference's order: N, S, W, E.
var dirs = [4][2]int{{-1, 0}, {1, 0}, {0, -1}, {0, 1}}

func newFeaturizer(lay *ssd.Layout) *featurizer {
	h, w := lay.Height, lay.Width
	n := h * w
	f := &featurizer{
		lay:     lay,
		sp:      &spaces[lay.Game],
		w:       w,
		nbr:     make([]int32, 4*n),
		appleAt: make([]int32, n),
		riverAt: make([]int32, n),
		seen:    make([]uint32, n),
		first:   make([]int8, n),
		dist:    make([]int32, n),
		queue:   make([]int32, 0, n),
	}
	f.tuple = make([]int, len(f.sp.radix))
	for i := range f.appleAt {
		f.appleAt[i], f.riverAt[i] = -1, -1
	}
	for k, p := range lay.Apples {
		f.appleAt[p.R*w+p.C] = int32(k)
	}
	for k, p := range lay.River {
		f.riverAt[p.R*w+p.C] = int32(k)
	}
	for r := 0; r < h; r++ {
		for c := 0; c < w; c++ {
			for k, d := range dirs {
				v := int32(-1)
				if f.open(r+d[0], c+d[1]) {
					v = int32((r+d[0])*w + c + d[1])
				}
				f.nbr[4*(r*w+c)+k] = v
			}
		}
	}
	return f
}

// open reports whether (r, c) is inside the grid and not a wall.
func (f *featurizer) open(r, c int) bool {
	return r >= 0 && r < f.lay.Height && c >= 0 && c < f.w && !f.lay.Walls[r*f.w+c]
}

// key returns the key of agent's state in st.
func (f *featurizer) key(st *ssd.State, agent int) int32 {
	if f.lay.Game == ssd.Cleanup {
		f.cleanup(st, agent)
	} else {
		f.gathering(st, agent)
	}
	return f.sp.encode(f.tuple)
}

// gathering fills the tuple as gathering_qlearning.extract_state does.
func (f *featurizer) gathering(st *ssd.State, agent int) {
	t := f.tuple
	step, d := f.nearest(st, agent, false)
	t[0], t[1] = step, bin(d, 0, 3, 8)
	t[2] = bin(f.localApples(st, agent), 0, 3)
	dir, rd, ok := f.nearestRival(st, agent)
	if ok {
		t[3], t[4] = dir, bin(rd, 3, 7)
	} else {
		t[3], t[4] = 4, 2
	}
	t[5] = boolInt(f.beamHitsRival(st, agent))
	t[6] = min(st.Hits[agent], 1)
}

// cleanup fills the tuple as cleanup_qlearning.extract_state does.
func (f *featurizer) cleanup(st *ssd.State, agent int) {
	t := f.tuple
	step, d := f.nearest(st, agent, false)
	t[0], t[1] = step, bin(d, 3, 8)
	step, d = f.nearest(st, agent, true)
	t[2], t[3] = step, bin(d, 3, 8)
	t[4] = densityBin(st)
	t[5] = boolInt(f.cleanReachesWaste(st, agent))
	t[6] = bin(f.localApples(st, agent), 0)
	_, rd, ok := f.nearestRival(st, agent)
	if !ok {
		rd = 999
	}
	t[7] = bin(rd, 3, 7)
}

// bin returns the index of the first bound v does not exceed, or
// len(bounds): the reference's _bin.
func bin(v int, bounds ...int) int {
	for i, b := range bounds {
		if v <= b {
			return i
		}
	}
	return len(bounds)
}

// densityBin bins the river's waste density (see wasteDensity) at 0.1
// and 0.3.
func densityBin(st *ssd.State) int {
	switch d := wasteDensity(st.Waste); {
	case d <= 0.1:
		return 0
	case d <= 0.3:
		return 1
	}
	return 2
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// isTarget reports whether cell c holds an alive apple (or, with waste, a
// polluted river cell).
func (f *featurizer) isTarget(st *ssd.State, c int32, waste bool) bool {
	if waste {
		k := f.riverAt[c]
		return k >= 0 && st.Waste[k]
	}
	k := f.appleAt[c]
	return k >= 0 && st.AppleAlive[k]
}

// nearest is the reference's _bfs_apple_info / _bfs_waste_info turned into
// the two features: the movement action of the first step toward the first
// target the BFS discovers and the path's length; (stepHere, 0) on a target;
// (stepNone, noTarget) when none is reachable. Neighbours are tried N, S,
// W, E; a cell is marked when discovered; agents never block.
func (f *featurizer) nearest(st *ssd.State, agent int, waste bool) (step, dist int) {
	p := st.Pos[agent]
	start := int32(p.R*f.w + p.C)
	if f.isTarget(st, start, waste) {
		return stepHere, 0
	}
	targets := st.AppleAlive
	if waste {
		targets = st.Waste
	}
	if !slices.Contains(targets, true) {
		return stepNone, noTarget // the reference's empty target set; also spares a search of the whole map
	}
	f.gen++
	if f.gen == 0 {
		clear(f.seen)
		f.gen = 1
	}
	seen, gen := f.seen, f.gen
	seen[start] = gen
	f.first[start], f.dist[start] = -1, 0
	q := append(f.queue[:0], start)
	for head := 0; head < len(q); head++ {
		cur := q[head]
		for k := int32(0); k < 4; k++ {
			n := f.nbr[4*cur+k]
			if n < 0 || seen[n] == gen {
				continue
			}
			seen[n] = gen
			first := f.first[cur]
			if cur == start {
				first = int8(k)
			}
			if f.isTarget(st, n, waste) {
				d := dirs[first]
				f.queue = q
				return ssd.DirectionToAction(d[0], d[1], st.Orient[agent]), int(f.dist[cur]) + 1
			}
			f.first[n], f.dist[n] = first, f.dist[cur]+1
			q = append(q, n)
		}
	}
	f.queue = q
	return stepNone, noTarget
}

// localApples counts the alive apples within Manhattan distance 5.
func (f *featurizer) localApples(st *ssd.State, agent int) int {
	p := st.Pos[agent]
	n := 0
	for k, a := range f.lay.Apples {
		if st.AppleAlive[k] && abs(a.R-p.R)+abs(a.C-p.C) <= 5 {
			n++
		}
	}
	return n
}

// nearestRival finds the active agent other than agent nearest in
// Manhattan distance (the lowest index among equals) and returns its
// direction in agent's frame (0 ahead, 1 behind, 2 left, 3 right; ties
// between the axes go to ahead/behind; 0 on the same cell) and its
// distance; ok is false when no other agent is active.
func (f *featurizer) nearestRival(st *ssd.State, agent int) (dir, dist int, ok bool) {
	p := st.Pos[agent]
	a, b, c, d := ssd.Rotation(st.Orient[agent])
	for j, q := range st.Pos {
		if j == agent || st.Timeout[j] > 0 {
			continue
		}
		dj := abs(q.R-p.R) + abs(q.C-p.C)
		if ok && dj >= dist {
			continue
		}
		ok, dist = true, dj
		dr, dc := q.R-p.R, q.C-p.C
		fwd := b*dc - d*dr
		right := c*dr - a*dc
		switch {
		case fwd == 0 && right == 0:
			dir = 0
		case abs(fwd) >= abs(right):
			dir = 1
			if fwd > 0 {
				dir = 0
			}
		default:
			dir = 2
			if right > 0 {
				dir = 3
			}
		}
	}
	return dir, dist, ok
}

// beamCells calls hit for the cells of agent's beam in the reference
// feature's order (each lateral offset from the left, then outward),
// stopping each ray at the grid's edge or at a wall, until hit returns
// true; it reports whether one did.
func (f *featurizer) beamCells(st *ssd.State, agent int, hit func(cell int) bool) bool {
	p := st.Pos[agent]
	a, b, c, d := ssd.Rotation(st.Orient[agent])
	half := f.lay.Params.BeamWidth / 2
	for off := -half; off <= half; off++ {
		for k := 1; k <= f.lay.Params.BeamLength; k++ {
			r, cc := p.R+a*k+b*off, p.C+c*k+d*off
			if !f.open(r, cc) {
				break
			}
			if hit(r*f.w + cc) {
				return true
			}
		}
	}
	return false
}

// beamHitsRival is the reference's _can_beam_opponent: would the tagging
// beam, stopped by walls, reach an active rival now?
func (f *featurizer) beamHitsRival(st *ssd.State, agent int) bool {
	return f.beamCells(st, agent, func(cell int) bool {
		for j, q := range st.Pos {
			if j != agent && st.Timeout[j] <= 0 && q.R*f.w+q.C == cell {
				return true
			}
		}
		return false
	})
}

// cleanReachesWaste is the reference's _can_clean_waste: would the clean
// beam, stopped by walls, reach a polluted cell now?
func (f *featurizer) cleanReachesWaste(st *ssd.State, agent int) bool {
	return f.beamCells(st, agent, func(cell int) bool {
		k := f.riverAt[cell]
		return k >= 0 && st.Waste[k]
	})
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
