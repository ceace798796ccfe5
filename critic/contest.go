package critic

import "policyevolve/envs/ssd"

// nearest is a multi-source breadth-first search from the alive apples:
// for every open cell, the distance to the nearest alive apple and which
// apple that is. Ties go to the apple whose search reached the cell first
// (sources enter the queue in apple order; neighbours are tried north,
// south, west, east), so the answer is deterministic.
type nearest struct {
	lay   *ssd.Layout
	dist  []int32 // -1: unreachable or a wall
	owner []int32 // apple index, or -1
	queue []int32
}

func newNearest(lay *ssd.Layout) *nearest {
	n := lay.Height * lay.Width
	return &nearest{lay: lay, dist: make([]int32, n), owner: make([]int32, n), queue: make([]int32, 0, n)}
}

// flood recomputes the field for the alive apples; it reports whether
// any alive apple was on an open cell.
func (f *nearest) flood(alive []bool) bool {
	for i := range f.dist {
		f.dist[i], f.owner[i] = -1, -1
	}
	w, h := f.lay.Width, f.lay.Height
	q := f.queue[:0]
	for k, a := range alive {
		if !a {
			continue
		}
		p := f.lay.Apples[k]
		c := int32(p.R*w + p.C)
		if f.dist[c] < 0 && !f.lay.Walls[c] {
			f.dist[c], f.owner[c] = 0, int32(k)
			q = append(q, c)
		}
	}
	for head := 0; head < len(q); head++ {
		c := q[head]
		r, col := int(c)/w, int(c)%w
		for _, d := range [4][2]int{{-1, 0}, {1, 0}, {0, -1}, {0, 1}} {
			nr, nc := r+d[0], col+d[1]
			if nr < 0 || nr >= h || nc < 0 || nc >= w {
				continue
			}
			nb := int32(nr*w + nc)
			if f.lay.Walls[nb] || f.dist[nb] >= 0 {
				continue
			}
			f.dist[nb], f.owner[nb] = f.dist[c]+1, f.owner[c]
			q = append(q, nb)
		}
	}
	f.queue = q
	return len(q) > 0
}

// heading returns the apple an agent that moved from `from` to `to` heads
// for, or -1: the alive apple nearest to `from`, when the move brought the
// agent closer to the alive apples.
func (f *nearest) heading(from, to ssd.Pos) int {
	w := f.lay.Width
	a, b := from.R*w+from.C, to.R*w+to.C
	if f.owner[a] < 0 || f.dist[b] < 0 || f.dist[b] >= f.dist[a] {
		return -1
	}
	return int(f.owner[a])
}
