package policy

import (
	"fmt"
	"ssd"
)

func Policy(v *ssd.View, agent int) int { return 0 }

type T struct{ A, B int }

func f(x int) int { return x * 10 }
func g(x int) T   { return T{x, x} }

func P_struct_assign() string { var q T; var n int; q, n = T{A: 1}, 1; return fmt.Sprint(q, n) }
func P_struct_define() string { q, n := T{A: 1, B: 2}, 1; return fmt.Sprint(q, n) }
func P_order2() string        { var q T; var n int; n, q = 1, T{A: 1}; return fmt.Sprint(q, n) }
func P_slice() string         { var s []int; var n int; s, n = []int{1, 2}, 1; return fmt.Sprint(s, n) }
func P_map() string {
	var m map[int]int
	var n int
	m, n = map[int]int{1: 2}, 1
	return fmt.Sprint(m, n)
}
func P_array() string      { var a [2]int; var n int; a, n = [2]int{1, 2}, 1; return fmt.Sprint(a, n) }
func P_call() string       { var a, b int; a, b = f(2), 3; return fmt.Sprint(a, b) }
func P_call2() string      { var a, b int; b = 5; a, b = f(b), a; return fmt.Sprint(a, b) }
func P_callT() string      { var a T; var b int; a, b = g(2), 3; return fmt.Sprint(a, b) }
func P_swapcall() string   { x, y := 1, 2; x, y = f(y), x; return fmt.Sprint(x, y) }
func P_swaplit() string    { x, y := T{1, 1}, 2; x, y = T{y, y}, x.A; return fmt.Sprint(x, y) }
func P_defcall() string    { a, b := f(1), 2; return fmt.Sprint(a, b) }
func P_redecl() string     { a := 1; a, b := 2, a; return fmt.Sprint(a, b) }
func P_redecl2() string    { a := T{1, 2}; a, b := T{3, 4}, a; return fmt.Sprint(a, b) }
func P_idx_order() string  { a := []int{0, 0, 0}; i := 0; i, a[i] = 2, 1; return fmt.Sprint(a, i) }
func P_idx_order2() string { a := []int{0, 0, 0}; i := 0; a[i], i = 1, 2; return fmt.Sprint(a, i) }

// refused: m[k] on the left of this assignment is
func P_map_order() string      { m := map[int]int{}; k := 0; k, m[k] = 5, 1; return fmt.Sprint(m, k) }
func P_ptr_order() string      { p := &T{}; q := &T{}; p, p.A = q, 1; return fmt.Sprint(*p, *q) }
func P_var_spec() string       { var q, n = T{A: 1}, 1; return fmt.Sprint(q, n) }
func P_var_spec_typed() string { var a, b T = T{A: 1}, T{B: 2}; return fmt.Sprint(a, b) }

var pq, pn = T{A: 7}, 7

func P_pkg_var() string { return fmt.Sprint(pq, pn) }
func P_field_lit() string {
	var s struct {
		P T
		N int
	}
	s.P, s.N = T{A: 1}, 2
	return fmt.Sprint(s)
}
func P_idx_lit() string { a := make([]T, 2); var n int; a[0], n = T{A: 1}, 2; return fmt.Sprint(a, n) }

// refused: a value of type policy.T assigned to x
func P_iface_lit() string { var x any; var n int; x, n = T{A: 1}, 2; return fmt.Sprint(x, n) }
func P_three() string     { var a, c int; var b T; a, b, c = 1, T{2, 2}, 3; return fmt.Sprint(a, b, c) }
func P_best() string {
	best, bestPos := -1, ssd.Pos{}
	for i, s := range []int{3, 9, 4} {
		if s > best {
			best, bestPos = s, ssd.Pos{R: i, C: s}
		}
	}
	return fmt.Sprint(best, bestPos)
}
func P_for_post() string {
	s := []int{1, 2, 3, 4}
	for i, j := 0, len(s)-1; i < j; i, j = i+1, j-1 {
		s[i], s[j] = s[j], s[i]
	}
	return fmt.Sprint(s)
}
func P_if_init() string {
	if a, b := g(1), 2; b > 0 {
		return fmt.Sprint(a, b)
	}
	return ""
}
func P_multiret() string { a, b := func() (T, int) { return T{1, 1}, 2 }(); return fmt.Sprint(a, b) }
func P_closure_call() string {
	h := func(x int) int { return x + 1 }
	var a, b int
	a, b = h(1), 5
	return fmt.Sprint(a, b)
}
func P_method_call() string { var a T; var b int; a, b = T{1, 2}.swap(), 9; return fmt.Sprint(a, b) }
func (t T) swap() T         { return T{t.B, t.A} }
func P_conv() string        { var a float64; var b int; a, b = float64(3), 2; return fmt.Sprint(a, b) }
func P_append() string      { var s []int; var n int; s, n = append(s, 1), 2; return fmt.Sprint(s, n) }
func P_len() string         { var a, b int; a, b = len("abc"), 2; return fmt.Sprint(a, b) }
func P_ssdcall() string     { var a ssd.Pos; var b int; a, b = ssd.Pos{R: 1}, 2; return fmt.Sprint(a, b) }
func P_ptrlit() string      { var a *T; var b int; a, b = &T{A: 1}, 2; return fmt.Sprint(*a, b) }
func P_funclit() string {
	var a func() int
	var b int
	a, b = func() int { return 4 }, 2
	return fmt.Sprint(a(), b)
}
