package ssd

// memo keeps the whole-map results of one state. A step's agents share the
// View (one per worker, one per in-process policy), so a Voronoi division
// or a distance field asked by several agents is computed once; Update
// clears it. Callers get copies: what one agent does with a result cannot
// change what the next one sees.
type memo struct {
	voronoi     bool
	owner, dist []int
	fields      map[int][]int // DistanceField by source cell
}

// maxFields bounds the distance fields kept for one state (each is a slice
// of the grid's size).
const maxFields = 64

func (m *memo) clear() {
	m.voronoi, m.owner, m.dist = false, nil, nil
	clear(m.fields)
}

func (m *memo) keepField(cell int, f []int) {
	if m.fields == nil {
		m.fields = map[int][]int{}
	}
	if len(m.fields) < maxFields {
		m.fields[cell] = f
	}
}
