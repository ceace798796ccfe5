package ssd

import (
	"fmt"
	"sync"
)

// Pos is a cell: row R (growing southwards) and column C.
type Pos struct{ R, C int }

// Layout is the part of a game that never changes during an episode: the
// map, the agent count, the episode length and the rules. A Layout is
// shared by every State of an episode and must not be modified once a View
// has been made over it.
type Layout struct {
	Game      Game
	Height    int
	Width     int
	Walls     []bool // Height*Width, row-major
	Apples    []Pos  // apple spawn cells, in row-major scan order
	River     []Pos  // Cleanup: every river cell (H or R), in scan order
	Stream    []Pos  // Cleanup: stream cells (S), never polluted
	NumAgents int
	MaxSteps  int
	Params    Params

	once    sync.Once
	derived derived
}

// derived holds lookups computed once from the exported fields.
type derived struct {
	nbr     []int32 // 4 per cell, in the order N, S, W, E; -1 where blocked
	appleAt []int32 // cell -> apple index, or -1
	riverAt []int32 // cell -> river index, or -1
	stream  []bool  // cell -> is a stream cell
	err     error
}

// dirs are the BFS directions in the reference's order: N, S, W, E.
var dirs = [4][2]int{{-1, 0}, {1, 0}, {0, -1}, {0, 1}}

// Check reports a Layout whose fields contradict each other (sizes that do
// not match, cells out of bounds). It is called before the first View is
// made; a Layout that fails it cannot be viewed.
func (l *Layout) Check() error {
	l.prepare()
	return l.derived.err
}

func (l *Layout) prepare() {
	l.once.Do(func() { l.derived.err = l.build() })
}

func (l *Layout) build() error {
	h, w := l.Height, l.Width
	if h <= 0 || w <= 0 || h > 1<<12 || w > 1<<12 {
		return fmt.Errorf("layout: size %dx%d out of range", h, w)
	}
	if len(l.Walls) != h*w {
		return fmt.Errorf("layout: %d wall flags for a %dx%d grid", len(l.Walls), h, w)
	}
	if l.NumAgents < 0 || l.MaxSteps < 0 {
		return fmt.Errorf("layout: %d agents, %d steps", l.NumAgents, l.MaxSteps)
	}
	n := h * w
	d := derived{
		nbr:     make([]int32, 4*n),
		appleAt: make([]int32, n),
		riverAt: make([]int32, n),
		stream:  make([]bool, n),
	}
	for i := range d.appleAt {
		d.appleAt[i] = -1
		d.riverAt[i] = -1
	}
	inside := func(p Pos) bool { return p.R >= 0 && p.R < h && p.C >= 0 && p.C < w }
	for k, p := range l.Apples {
		if !inside(p) {
			return fmt.Errorf("layout: apple %d at %v is outside the grid", k, p)
		}
		d.appleAt[p.R*w+p.C] = int32(k)
	}
	for k, p := range l.River {
		if !inside(p) {
			return fmt.Errorf("layout: river cell %d at %v is outside the grid", k, p)
		}
		d.riverAt[p.R*w+p.C] = int32(k)
	}
	for _, p := range l.Stream {
		if !inside(p) {
			return fmt.Errorf("layout: stream cell %v is outside the grid", p)
		}
		d.stream[p.R*w+p.C] = true
	}
	for r := 0; r < h; r++ {
		for c := 0; c < w; c++ {
			cell := r*w + c
			for k, dd := range dirs {
				nr, nc := r+dd[0], c+dd[1]
				v := int32(-1)
				if nr >= 0 && nr < h && nc >= 0 && nc < w && !l.Walls[nr*w+nc] {
					v = int32(nr*w + nc)
				}
				d.nbr[4*cell+k] = v
			}
		}
	}
	l.derived = d
	return nil
}
