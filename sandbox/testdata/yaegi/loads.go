package policy

// Assignments to fields of structs, of positions, through pointers and in
// the clauses of tagless switches: yaegi failed to load some of them.

import (
	"fmt"
	"math"
	"ssd"
)

func Policy(v *ssd.View, agent int) int { return 0 }

type T struct {
	pos ssd.Pos
	id  int
}

type cand struct {
	pos ssd.Pos
	id  int
}

var g66 *cand = &cand{ssd.Pos{4, 1}, 2}
var g67 = &cand{ssd.Pos{4, 1}, 2}
var g68 *cand = &cand{ssd.Pos{4, 1}, 2}
var g69 = &cand{ssd.Pos{4, 1}, 2}

func P_switch_field() string {
	var t T
	d := 0.5
	switch {
	case d < 1:
		t.pos = ssd.Pos{1, 2}
	case d > 1:
		t.id = 3
	}
	return fmt.Sprint(t)
}

func P_if_field() string {
	var t T
	d := 0.5
	if d < 1 {
		t.pos = ssd.Pos{1, 2}
	} else {
		t.id = 3
	}
	return fmt.Sprint(t)
}

func P_switch_var() string {
	var p ssd.Pos
	d := 0.5
	switch {
	case d < 1:
		p = ssd.Pos{1, 2}
	}
	return fmt.Sprint(p)
}

func P_switch_one_case() string {
	var t T
	d := 0.5
	switch {
	case d < 1:
		t.pos = ssd.Pos{1, 2}
	}
	return fmt.Sprint(t)
}

func P_switch_tag() string {
	var t T
	d := 1
	switch d {
	case 1:
		t.pos = ssd.Pos{1, 2}
	}
	return fmt.Sprint(t)
}

func P_switch_paren() string {
	var t T
	d := 0.5
	switch {
	case d < 1:
		t.pos = (ssd.Pos{1, 2})
	}
	return fmt.Sprint(t)
}

func P_deref_field() string {
	d := 0.5
	switch {
	case math.IsNaN(d):
		(*g66).pos = ssd.Pos{1, (*g66).pos.C}
	case d > 1:
		g66.id = 3
	}
	return fmt.Sprint(*g66)
}

func P_deref_field_assign() string {
	(*g68).pos = ssd.Pos{1, 2}
	return fmt.Sprint(*g68)
}

func P_pointer_field() string {
	g67.pos = ssd.Pos{1, 2}
	return fmt.Sprint(*g67)
}

func P_pointer_field_in_if() string {
	if true {
		g69.pos = ssd.Pos{1, 2}
	}
	return fmt.Sprint(*g69)
}
