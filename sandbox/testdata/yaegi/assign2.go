package policy

import (
	"fmt"
	"ssd"
)

func Policy(v *ssd.View, agent int) int { return 0 }

type T struct{ A, B int }

func P_ptr_order() string { t1, t2 := &T{}, &T{}; p := t1; p, p.A = t2, 1; return fmt.Sprint(*t1, *t2) }
func P_ptr_order2() string {
	t1, t2 := new(int), new(int)
	p := t1
	p, *p = t2, 1
	return fmt.Sprint(*t1, *t2)
}

// refused: m[1] on the left of this assignment is
func P_map_var_order() string {
	m1, m2 := map[int]int{}, map[int]int{}
	m := m1
	m, m[1] = m2, 5
	return fmt.Sprint(m1, m2)
}
func P_slice_var_order() string {
	s1, s2 := []int{0}, []int{0}
	s := s1
	s, s[0] = s2, 5
	return fmt.Sprint(s1, s2)
}

// refused: m[k+0] on the left of this assignment is
func P_map_keyexpr() string { m := map[int]int{}; k := 0; k, m[k+0] = 5, 1; return fmt.Sprint(m, k) }
func P_arr_order() string   { var a [3]int; i := 0; i, a[i] = 2, 1; return fmt.Sprint(a, i) }
func P_field_idx() string {
	var s struct{ X []int }
	s.X = []int{0, 0}
	i := 0
	i, s.X[i] = 1, 7
	return fmt.Sprint(s, i)
}
func P_redecl_captured() string {
	a := 1
	get := func() int { return a }
	a, b := 2, 3
	return fmt.Sprint(get(), a, b)
}
func P_redecl_addr() string {
	a := 1
	p := &a
	a, b := 2, 3
	return fmt.Sprint(*p, a, b)
}
func P_redecl_err() string {
	x, n := 1, 0
	add := func() { n++ }
	add()
	y, n := 2, n+10
	add()
	return fmt.Sprint(x, y, n)
}
func P_ta() string   { var x any = 3; var a, b int; a, b = x.(int), 2; return fmt.Sprint(a, b) }
func P_idx() string  { s := []int{4}; var a, b int; a, b = s[0], 2; return fmt.Sprint(a, b) }
func P_midx() string { m := map[int]int{1: 4}; var a, b int; a, b = m[1], 2; return fmt.Sprint(a, b) }
func P_slc() string {
	s := []int{4, 5}
	var a []int
	var b int
	a, b = s[1:], 2
	return fmt.Sprint(a, b)
}
func P_sel() string  { t := T{3, 4}; var a, b int; a, b = t.B, 2; return fmt.Sprint(a, b) }
func P_star() string { t := &T{3, 4}; var a T; var b int; a, b = *t, 2; return fmt.Sprint(a, b) }
func P_bin() string  { x := 3; var a, b int; a, b = x*2, x+1; return fmt.Sprint(a, b) }
func P_neg() string  { x := 3; var a, b int; a, b = -x, 2; return fmt.Sprint(a, b) }
func P_not() string  { x := true; var a bool; var b int; a, b = !x, 2; return fmt.Sprint(a, b) }
func P_cmp() string  { x := 3; var a bool; var b int; a, b = x > 2, 2; return fmt.Sprint(a, b) }
func P_str() string {
	x := 65
	var a string
	var b int
	a, b = string(rune(x)), 2
	return fmt.Sprint(a, b)
}
func P_methval() string {
	t := T{1, 2}
	var a func() T
	var b int
	a, b = t.swap, 2
	t.A = 9
	return fmt.Sprint(a(), b)
}
func (t T) swap() T        { return T{t.B, t.A} }
func P_new() string        { var a *int; var b int; a, b = new(int), 2; return fmt.Sprint(*a, b) }
func P_make() string       { var a []int; var b int; a, b = make([]int, 2), 2; return fmt.Sprint(a, b) }
func P_swapidx() string    { s := []int{1, 2}; s[0], s[1] = s[1], s[0]; return fmt.Sprint(s) }
func P_swapfield() string  { t := T{1, 2}; t.A, t.B = t.B, t.A; return fmt.Sprint(t) }
func P_swapstruct() string { a, b := T{1, 2}, T{3, 4}; a, b = b, a; return fmt.Sprint(a, b) }
func P_swaparr() string    { a, b := [2]int{1, 2}, [2]int{3, 4}; a, b = b, a; return fmt.Sprint(a, b) }
func P_swapstructfield() string {
	var s [2]T
	s[0].A = 5
	s[0], s[1] = s[1], s[0]
	return fmt.Sprint(s)
}
func P_opassign() string   { x := 3; y := 4; x += y; y -= x; return fmt.Sprint(x, y) }
func P_structself() string { p := T{1, 2}; p = T{A: p.B, B: p.A}; return fmt.Sprint(p) }
func P_arrself() string    { p := [2]int{1, 2}; p = [2]int{p[1], p[0]}; return fmt.Sprint(p) }
func P_sliceself() string  { p := []int{1, 2}; p = []int{p[1], p[0]}; return fmt.Sprint(p) }
func P_callself() string   { p := T{1, 2}; p = p.swap(); return fmt.Sprint(p) }
