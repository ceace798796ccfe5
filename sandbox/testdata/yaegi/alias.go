package policy

import (
	"fmt"
	"ssd"
)

func Policy(v *ssd.View, agent int) int { return 0 }

type T struct{ A, B int }

func mk(a int) T       { return T{a, a} }
func mks(a int) []int  { return []int{a} }
func add(a, b int) int { return a + b }

func P_lit_ptr() string { t := T{1, 2}; p := &t; t = T{5, 6}; return fmt.Sprint(*p) }
func P_lit_closure() string {
	t := T{1, 2}
	g := func() T { return t }
	t = T{5, 6}
	return fmt.Sprint(g())
}
func P_call_ptr() string { t := T{1, 2}; p := &t; t = mk(5); return fmt.Sprint(*p) }
func P_call_closure() string {
	t := T{1, 2}
	g := func() T { return t }
	t = mk(5)
	return fmt.Sprint(g())
}
func P_arith_ptr() string { x, y := 1, 2; p := &x; x = y + 5; return fmt.Sprint(*p) }
func P_arith_closure() string {
	x, y := 1, 2
	g := func() int { return x }
	x = y * 5
	return fmt.Sprint(g())
}
func P_call_int_closure() string {
	x := 1
	g := func() int { return x }
	x = add(x, 5)
	return fmt.Sprint(g())
}
func P_slice_lit_closure() string {
	s := []int{1}
	g := func() []int { return s }
	s = []int{2, 3}
	return fmt.Sprint(g())
}
func P_slice_append_closure() string {
	s := []int{1}
	g := func() []int { return s }
	s = append(s, 2)
	return fmt.Sprint(g())
}
func P_slice_call_closure() string {
	s := []int{1}
	g := func() []int { return s }
	s = mks(7)
	return fmt.Sprint(g())
}
func P_map_lit_closure() string {
	m := map[int]int{1: 1}
	g := func() int { return len(m) }
	m = map[int]int{}
	return fmt.Sprint(g())
}
func P_map_make_closure() string {
	m := map[int]int{1: 1}
	g := func() int { return len(m) }
	m = make(map[int]int)
	return fmt.Sprint(g())
}
func P_arr_lit_closure() string {
	a := [2]int{1, 2}
	g := func() [2]int { return a }
	a = [2]int{3, 4}
	return fmt.Sprint(g())
}
func P_str_closure() string {
	s := "a"
	g := func() string { return s }
	s = s + "b"
	return fmt.Sprint(g())
}
func P_str_concat_call() string {
	s := "a"
	g := func() string { return s }
	s = fmt.Sprint(3)
	return fmt.Sprint(g())
}
func P_float_closure() string {
	f := 1.5
	g := func() float64 { return f }
	f = f * 2
	return fmt.Sprint(g())
}
func P_field_lit() string    { var s struct{ P T }; s.P = T{1, 2}; return fmt.Sprint(s) }
func P_field_call() string   { var s struct{ P T }; s.P = mk(3); return fmt.Sprint(s) }
func P_ptrfield_lit() string { s := &struct{ P T }{}; s.P = T{1, 2}; return fmt.Sprint(*s) }
func P_idx_lit() string      { s := make([]T, 1); s[0] = T{1, 2}; return fmt.Sprint(s) }
func P_star_lit() string     { t := &T{}; *t = T{1, 2}; return fmt.Sprint(*t) }
func P_global_lit() string   { gt = T{4, 4}; return fmt.Sprint(gt, *gp) }

var gt T
var gp = &gt

func P_lit_closure_set() string {
	t := T{1, 2}
	set := func() { t.A = 100 }
	t = T{5, 6}
	set()
	return fmt.Sprint(t)
}
func P_nested_closure() string {
	best := T{}
	consider := func(a int) {
		if a > best.A {
			best = T{a, a}
		}
	}
	consider(3)
	consider(5)
	consider(4)
	return fmt.Sprint(best)
}
func P_var_decl_then_lit() string {
	var best ssd.Pos
	found := false
	check := func() bool { return best.R == 2 }
	for r := 0; r < 3; r++ {
		if r == 2 {
			best = ssd.Pos{R: r, C: 1}
			found = true
		}
	}
	return fmt.Sprint(found, check())
}
func P_range_struct() string {
	var last T
	get := func() T { return last }
	for _, t := range []T{{1, 1}, {2, 2}} {
		last = t
	}
	return fmt.Sprint(get())
}
func P_incdec_closure() string {
	n := 0
	inc := func() { n++ }
	inc()
	n = n + 10
	inc()
	return fmt.Sprint(n)
}
func P_opassign_closure() string {
	n := 0
	get := func() int { return n }
	n += 5
	return fmt.Sprint(get())
}
