package ssd

import "fmt"

// View is what a policy sees: read-only accessors over one State. Every
// method returns a value or a freshly allocated slice, so nothing reachable
// from a View can change the State or the environment behind it.
//
// Positions outside the grid read as walls. Agent and apple indices out of
// range panic, like a slice index would.
//
// A View is used by one goroutine at a time: its helpers keep scratch
// buffers between calls.
type View struct {
	st  *State
	lay *Layout
	d   *derived

	// BFS scratch, sized to the grid on first use.
	seen    []uint32 // seen[cell] == seenGen: visited in the current search
	seenGen uint32
	mark    []uint32 // mark[cell] == markGen: a target of the current search
	markGen uint32
	first   []int8  // first step (index into dirs) of the path to a cell
	dist    []int32 // BFS distance of a visited cell
	queue   []int32
	opps    []Opponent // exploit scratch
	targets []BeamTarget

	// Whole-map results of the current state, computed once per step and
	// shared by every agent asked in it (see memo.go).
	memo memo
}

// NewView returns a View over st. It fails if st does not fit its Layout.
func NewView(st *State) (*View, error) {
	v := &View{}
	if err := v.Update(st); err != nil {
		return nil, err
	}
	return v, nil
}

// Update points the View at another State (the next step's snapshot),
// keeping its scratch buffers. The State must fit its Layout.
func (v *View) Update(st *State) error {
	if st == nil || st.Layout == nil {
		return fmt.Errorf("view: no state")
	}
	if st.Layout != v.lay {
		if err := st.Check(); err != nil {
			return err
		}
		v.lay = st.Layout
		v.d = &st.Layout.derived
		v.seen = nil
		v.mark = nil
	} else if len(st.Pos) != v.lay.NumAgents || len(st.AppleAlive) != len(v.lay.Apples) ||
		len(st.Waste) != len(v.lay.River) || len(st.Orient) != len(st.Pos) ||
		len(st.Timeout) != len(st.Pos) || len(st.Hits) != len(st.Pos) {
		return st.Check()
	}
	v.st = st
	v.memo.clear()
	return nil
}

// Game is the game being played.
//
//ssd:game both
func (v *View) Game() Game { return v.lay.Game }

// NumActions is the number of valid actions: 8 in Gathering, 9 in Cleanup.
func (v *View) NumActions() int { return v.lay.Game.NumActions() }

// Height is the number of rows of the grid.
func (v *View) Height() int { return v.lay.Height }

// Width is the number of columns of the grid.
func (v *View) Width() int { return v.lay.Width }

// NumAgents is the number of agents in the episode.
func (v *View) NumAgents() int { return v.lay.NumAgents }

// Step is the number of steps already taken (0 before the first).
func (v *View) Step() int { return v.st.Step }

// MaxSteps is the episode length.
func (v *View) MaxSteps() int { return v.lay.MaxSteps }

// Params returns the game's rules (beam size, hits to tag, timeout, costs…).
func (v *View) Params() Params { return v.lay.Params }

// InBounds reports whether (r, c) is on the grid.
func (v *View) InBounds(r, c int) bool {
	return r >= 0 && r < v.lay.Height && c >= 0 && c < v.lay.Width
}

// Wall reports whether (r, c) is a wall; cells off the grid count as walls.
func (v *View) Wall(r, c int) bool {
	if !v.InBounds(r, c) {
		return true
	}
	return v.lay.Walls[r*v.lay.Width+c]
}

// Walls returns a fresh Height x Width copy of the wall map.
func (v *View) Walls() [][]bool {
	h, w := v.lay.Height, v.lay.Width
	out := make([][]bool, h)
	for r := range out {
		out[r] = append([]bool(nil), v.lay.Walls[r*w:(r+1)*w]...)
	}
	return out
}

// AgentPos is where agent i stands.
func (v *View) AgentPos(i int) Pos { return v.st.Pos[i] }

// Orientation is where agent i faces (North, East, South, West).
func (v *View) Orientation(i int) int { return v.st.Orient[i] }

// Timeout is how many steps agent i remains tagged out; 0 when active.
func (v *View) Timeout(i int) int { return v.st.Timeout[i] }

// Active reports whether agent i is in the game (not tagged out).
func (v *View) Active(i int) bool { return v.st.Timeout[i] <= 0 }

// BeamHits is the number of beam hits agent i has taken toward its next tag.
func (v *View) BeamHits(i int) int { return v.st.Hits[i] }

// NumActive counts the agents not tagged out.
func (v *View) NumActive() int {
	n := 0
	for _, t := range v.st.Timeout {
		if t <= 0 {
			n++
		}
	}
	return n
}

// Agent describes one agent.
type Agent struct {
	ID       int
	Pos      Pos
	Orient   int
	Timeout  int
	BeamHits int
}

// Agents returns a fresh description of every agent, in id order.
func (v *View) Agents() []Agent {
	out := make([]Agent, len(v.st.Pos))
	for i := range out {
		out[i] = Agent{ID: i, Pos: v.st.Pos[i], Orient: v.st.Orient[i],
			Timeout: v.st.Timeout[i], BeamHits: v.st.Hits[i]}
	}
	return out
}

// AgentsAt returns the ids of the agents standing on (r, c), in id order.
func (v *View) AgentsAt(r, c int) []int {
	var out []int
	for i, p := range v.st.Pos {
		if p.R == r && p.C == c {
			out = append(out, i)
		}
	}
	return out
}

// NumApples is the number of apple spawn cells (alive or not).
func (v *View) NumApples() int { return len(v.lay.Apples) }

// ApplePos is the cell of apple spawn k.
func (v *View) ApplePos(k int) Pos { return v.lay.Apples[k] }

// AppleAlive reports whether apple k is on the map now.
func (v *View) AppleAlive(k int) bool { return v.st.AppleAlive[k] }

// AppleIndex returns the index of the apple spawn at (r, c), or -1.
func (v *View) AppleIndex(r, c int) int {
	if !v.InBounds(r, c) {
		return -1
	}
	return int(v.d.appleAt[r*v.lay.Width+c])
}

// AppleAt reports whether an alive apple is at (r, c).
func (v *View) AppleAt(r, c int) bool {
	k := v.AppleIndex(r, c)
	return k >= 0 && v.st.AppleAlive[k]
}

// NumAlive counts the apples on the map now.
func (v *View) NumAlive() int {
	n := 0
	for _, a := range v.st.AppleAlive {
		if a {
			n++
		}
	}
	return n
}

// Apples returns the cells of the alive apples, in spawn order.
func (v *View) Apples() []Pos {
	out := make([]Pos, 0, len(v.lay.Apples))
	for k, a := range v.st.AppleAlive {
		if a {
			out = append(out, v.lay.Apples[k])
		}
	}
	return out
}

// AppleSpawns returns every apple spawn cell, alive or not, in spawn order.
func (v *View) AppleSpawns() []Pos { return append([]Pos(nil), v.lay.Apples...) }

// IsRiver reports whether (r, c) is a river cell (Cleanup), polluted or not.
//
//ssd:game cleanup
func (v *View) IsRiver(r, c int) bool {
	return v.InBounds(r, c) && v.d.riverAt[r*v.lay.Width+c] >= 0
}

// IsStream reports whether (r, c) is a stream cell (Cleanup).
//
//ssd:game cleanup
func (v *View) IsStream(r, c int) bool {
	return v.InBounds(r, c) && v.d.stream[r*v.lay.Width+c]
}

// WasteAt reports whether (r, c) is a polluted river cell (Cleanup).
//
//ssd:game cleanup
func (v *View) WasteAt(r, c int) bool {
	if !v.InBounds(r, c) {
		return false
	}
	k := v.d.riverAt[r*v.lay.Width+c]
	return k >= 0 && v.st.Waste[k]
}

// RiverCells returns every river cell, in scan order.
//
//ssd:game cleanup
func (v *View) RiverCells() []Pos { return append([]Pos(nil), v.lay.River...) }

// StreamCells returns every stream cell, in scan order.
//
//ssd:game cleanup
func (v *View) StreamCells() []Pos { return append([]Pos(nil), v.lay.Stream...) }

// WasteCells returns the polluted river cells, in scan order.
//
//ssd:game cleanup
func (v *View) WasteCells() []Pos {
	var out []Pos
	for k, w := range v.st.Waste {
		if w {
			out = append(out, v.lay.River[k])
		}
	}
	return out
}

// NumWaste counts the polluted river cells.
//
//ssd:game cleanup
func (v *View) NumWaste() int {
	n := 0
	for _, w := range v.st.Waste {
		if w {
			n++
		}
	}
	return n
}

// WasteDensity is the polluted fraction of the river (0 with no river):
// apples stop regrowing at Params().ThresholdDepletion.
//
//ssd:game cleanup
func (v *View) WasteDensity() float64 {
	if len(v.lay.River) == 0 {
		return 0
	}
	return float64(v.NumWaste()) / float64(len(v.lay.River))
}

// cell returns the flat index of agent i's cell.
func (v *View) cell(i int) int32 {
	p := v.st.Pos[i]
	return int32(p.R*v.lay.Width + p.C)
}
