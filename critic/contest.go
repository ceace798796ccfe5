package critic

import "policyevolve/envs/ssd"

// nearest is a multi-source breadth-first search from the alive apples:
// for every open cell, the distance to the nearest alive apple and which
// apple that is. Ties go to the apple whose search reached the cell first
// (sources enter the queue in apple order; neighbours are tried north,
// south, west, east), so the answer is deterministic.
type nearest struct {
	lay   *ssd.Layout
	nbr   []int32 // 4 per cell (N, S, W, E): the open neighbour, or -1
	dist  []int32 // -1: unreachable or a wall
	owner []int32 // apple index, or -1
	queue []int32
}

func newNearest(lay *ssd.Layout) *nearest {
	h, w := lay.Height, lay.Width
	f := &nearest{lay: lay, nbr: make([]int32, 4*h*w), dist: make([]int32, h*w), owner: make([]int32, h*w), queue: make([]int32, 0, h*w)}
	for r := range h {
		for c := range w {
			for k, d := range [4][2]int{{-1, 0}, {1, 0}, {0, -1}, {0, 1}} {
				nr, nc := r+d[0], c+d[1]
				v := int32(-1)
				if nr >= 0 && nr < h && nc >= 0 && nc < w && !lay.Walls[nr*w+nc] {
					v = int32(nr*w + nc)
				}
				f.nbr[4*(r*w+c)+k] = v
			}
		}
	}
	return f
}

// flood recomputes the field for the alive apples; it reports whether
// any alive apple was on an open cell.
func (f *nearest) flood(alive []bool) bool {
	for i := range f.dist {
		f.dist[i], f.owner[i] = -1, -1
	}
	w := f.lay.Width
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
	dist, owner := f.dist, f.owner
	for head := 0; head < len(q); head++ {
		c := q[head]
		for _, nb := range f.nbr[4*c : 4*c+4] {
			if nb >= 0 && dist[nb] < 0 {
				dist[nb], owner[nb] = dist[c]+1, owner[c]
				q = append(q, nb)
			}
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
