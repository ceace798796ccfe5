package ssd

import "fmt"

// State is a snapshot of an episode between two steps: everything a policy
// may know. The environment writes a fresh snapshot before every step;
// changing a State never changes the environment it was taken from.
type State struct {
	Layout     *Layout
	Step       int    // steps taken so far: 0 before the first step
	Pos        []Pos  // per agent
	Orient     []int  // per agent: North, East, South or West
	Timeout    []int  // per agent: steps left out of the game; 0 = active
	Hits       []int  // per agent: beam hits toward the next tag
	AppleAlive []bool // per apple spawn cell of the Layout
	Waste      []bool // Cleanup: per river cell of the Layout, polluted or not
}

// Check reports a State whose slices do not fit its Layout, or whose agents
// stand outside the grid or on walls.
func (s *State) Check() error {
	l := s.Layout
	if l == nil {
		return fmt.Errorf("state: no layout")
	}
	if err := l.Check(); err != nil {
		return err
	}
	n := l.NumAgents
	if len(s.Pos) != n || len(s.Orient) != n || len(s.Timeout) != n || len(s.Hits) != n {
		return fmt.Errorf("state: agent slices of lengths %d/%d/%d/%d for %d agents",
			len(s.Pos), len(s.Orient), len(s.Timeout), len(s.Hits), n)
	}
	if len(s.AppleAlive) != len(l.Apples) {
		return fmt.Errorf("state: %d apple flags for %d apples", len(s.AppleAlive), len(l.Apples))
	}
	if len(s.Waste) != len(l.River) {
		return fmt.Errorf("state: %d waste flags for %d river cells", len(s.Waste), len(l.River))
	}
	for i, p := range s.Pos {
		if p.R < 0 || p.R >= l.Height || p.C < 0 || p.C >= l.Width || l.Walls[p.R*l.Width+p.C] {
			return fmt.Errorf("state: agent %d at %v is not on an open cell", i, p)
		}
		if s.Orient[i] < 0 || s.Orient[i] > 3 {
			return fmt.Errorf("state: agent %d has orientation %d", i, s.Orient[i])
		}
	}
	return nil
}

// CopyFrom makes s a deep copy of src, reusing s's slices where they are
// large enough. The Layout is shared, not copied.
func (s *State) CopyFrom(src *State) {
	s.Layout = src.Layout
	s.Step = src.Step
	s.Pos = append(s.Pos[:0], src.Pos...)
	s.Orient = append(s.Orient[:0], src.Orient...)
	s.Timeout = append(s.Timeout[:0], src.Timeout...)
	s.Hits = append(s.Hits[:0], src.Hits...)
	s.AppleAlive = append(s.AppleAlive[:0], src.AppleAlive...)
	s.Waste = append(s.Waste[:0], src.Waste...)
}
