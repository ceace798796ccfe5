package qlearn

import (
	"policyevolve/envs/ssd"
)

// Table is a Q-table shared by all agents: one row of action values per
// visited state. Rows are kept in the order the reference's defaultdict
// creates them (a state gets a row the first time its values are read), so
// that two tables agree in their rows and in their order.
//
// Training writes a Table from one goroutine; a trained Table is only read
// by the Actors that play it, so any number of them may share it.
type Table struct {
	Game ssd.Game
	Info Info // how it was trained; informative only

	sp      *space
	actions int
	row     []int32   // state key -> row, or -1
	keys    []int32   // row -> state key, in creation order
	q       []float64 // row*actions + action
}

// Info describes how a Table was trained.
type Info struct {
	Map      string `json:"map,omitempty"` // the map's name (or file) as given
	Agents   int    `json:"agents"`
	Episodes int    `json:"episodes"`
	Seed     uint64 `json:"seed"`
	MaxSteps int    `json:"max_steps"`
	Params   Params `json:"params"`
}

// NewTable returns an empty table for game.
func NewTable(game ssd.Game) *Table {
	sp := &spaces[game]
	t := &Table{Game: game, sp: sp, actions: game.NumActions(), row: make([]int32, sp.size)}
	for i := range t.row {
		t.row[i] = -1
	}
	return t
}

// Len is the number of visited states (the reference's n_visited).
func (t *Table) Len() int { return len(t.keys) }

// StateSpace is the number of distinct states of the table's game.
func (t *Table) StateSpace() int { return t.sp.size }

// Actions is the number of actions of the table's game.
func (t *Table) Actions() int { return t.actions }

// values returns the row of key, creating a zero row when the state is
// new, as reading the reference's defaultdict does.
func (t *Table) values(key int32) []float64 {
	r := t.row[key]
	if r < 0 {
		r = int32(len(t.keys))
		t.row[key] = r
		t.keys = append(t.keys, key)
		t.q = append(t.q, make([]float64, t.actions)...)
	}
	return t.q[int(r)*t.actions : int(r+1)*t.actions]
}

// State returns the feature tuple and the action values of row i, in
// creation order; the slice is the table's own.
func (t *Table) State(i int) (tuple []int, q []float64) {
	return t.sp.decode(t.keys[i]), t.q[i*t.actions : (i+1)*t.actions]
}

// Features names the features of the table's game, in tuple order.
func (t *Table) Features() []string { return append([]string(nil), t.sp.names...) }

// greedy returns the action of highest value in the state (the lowest
// such action, as numpy's argmax), 0 for a state never visited, whose
// values are all zero. It never adds a row.
func (t *Table) greedy(key int32) int {
	r := t.row[key]
	if r < 0 {
		return 0
	}
	return argmax(t.q[int(r)*t.actions : int(r+1)*t.actions])
}

// argmax is numpy's argmax: the first index of the largest value.
func argmax(v []float64) int {
	best := 0
	for i, x := range v[1:] {
		if x > v[best] {
			best = i + 1
		}
	}
	return best
}

// maxOf is numpy's max over a row without NaNs.
func maxOf(v []float64) float64 {
	m := v[0]
	for _, x := range v[1:] {
		if x > m {
			m = x
		}
	}
	return m
}
