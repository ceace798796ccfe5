package policy

// Returns of several values whose later values are calls of builtins:
// yaegi wrote their result into the first result (return 1, len(s)
// returned 1, 1; return x, append(s, 3) panicked). Found by FuzzAgree
// (seed 9: reflect: call of reflect.Value.SetInt on float64 Value).

import (
	"fmt"
	"ssd"
)

func Policy(v *ssd.View, agent int) int { return 0 }

type T struct{ A, B int }

func lenF(s []int) (float64, int)      { return 1.5, len(s) }
func lenI(s []int) (int, int)          { return 1, len(s) }
func capF(s []int) (float64, int)      { return 1.5, cap(s) }
func lenS(s []int) (string, int)       { return "a", len(s) }
func appendS(s []int) (int, []int)     { return 1, append(s, 3) }
func makeS(s []int) (int, []int)       { return 1, make([]int, 2) }
func newP(s []int) (int, *int)         { return 1, new(int) }
func lenFirst(s []int) (int, int)      { return len(s), 7 }
func third(s []int) (int, int, int)    { return 1, 2, len(s) }
func sum(s []int) (int, int)           { return 1, len(s) + 0 }
func conv(s []int) (int, int)          { return 1, int(len(s)) }
func named(s []int) (x, y int)         { return 1, len(s) }
func lenM(m map[int]int) (int, int)    { return 1, len(m) }
func lenStr(s string) (int, int)       { return 1, len(s) }
func copied(s []int) (int, int)        { return 1, copy(s, s) }
func paren(s []int) (int, int)         { return 1, (len(s)) }
func mixed(s []int) (T, int, []int)    { return T{}, len(s), append(s, 1) }
func viaLocal(s []int) (float64, int)  { n := len(s); return 1.5, n }
func best(ps []ssd.Pos) (ssd.Pos, int) { return ps[0], len(ps) }

func P_assign() string { var r float64; var n int; r, n = lenF([]int{1, 2}); return fmt.Sprint(r, n) }
func P_define() string {
	r, n := lenF([]int{1, 2})
	r2, n2 := lenF(nil)
	return fmt.Sprint(r, n, r2, n2)
}
func P_ints() string   { var r, n int; r, n = lenI([]int{1, 2}); return fmt.Sprint(r, n) }
func P_cap() string    { r, n := capF([]int{1, 2}); return fmt.Sprint(r, n) }
func P_string() string { r, n := lenS([]int{1, 2}); return fmt.Sprint(r, n) }
func P_append() string { a, b := appendS([]int{1, 2}); return fmt.Sprint(a, b) }
func P_make() string   { a, b := makeS([]int{1, 2}); return fmt.Sprint(a, b) }
func P_new() string    { a, b := newP([]int{1, 2}); return fmt.Sprint(a, *b) }
func P_first() string  { a, b := lenFirst([]int{1, 2}); return fmt.Sprint(a, b) }
func P_third() string  { a, b, c := third([]int{1, 2}); return fmt.Sprint(a, b, c) }
func P_sum() string    { a, b := sum([]int{1, 2}); return fmt.Sprint(a, b) }
func P_conv() string   { a, b := conv([]int{1, 2}); return fmt.Sprint(a, b) }
func P_named() string  { a, b := named([]int{1, 2}); return fmt.Sprint(a, b) }
func P_map() string    { a, b := lenM(map[int]int{1: 1, 2: 2}); return fmt.Sprint(a, b) }
func P_str() string    { a, b := lenStr("abc"); return fmt.Sprint(a, b) }
func P_copy() string   { a, b := copied([]int{1, 2}); return fmt.Sprint(a, b) }
func P_paren() string  { a, b := paren([]int{1, 2}); return fmt.Sprint(a, b) }
func P_mixed() string  { a, b, c := mixed([]int{1}); return fmt.Sprint(a, b, c) }
func P_local() string  { a, b := viaLocal([]int{1, 2}); return fmt.Sprint(a, b) }
func P_best() string   { p, n := best([]ssd.Pos{{1, 2}, {3, 4}}); return fmt.Sprint(p, n) }
func P_closure() string {
	g := func(s []int) (float64, int) { return 2.5, len(s) }
	var r float64
	var n int
	r, n = g([]int{1})
	return fmt.Sprint(r, n)
}

// Other places with several values: literals, arguments (no rewrite
// needed).
type U struct {
	A int
	S []int
}

func two(a, b int) string { return fmt.Sprint(a, b) }

func P_struct_lit() string {
	s := []int{1, 2}
	t := T{1, len(s)}
	k := T{A: 1, B: cap(s)}
	return fmt.Sprint(t, k)
}
func P_slice_lit() string { s := []int{1, 2}; x := []int{1, len(s), cap(s)}; return fmt.Sprint(x) }
func P_arguments() string { s := []int{1, 2}; return two(1, len(s)) }
func P_map_lit() string {
	s := []int{1, 2}
	m := map[int]int{1: len(s), len(s): 3}
	return fmt.Sprint(m)
}
func P_append_lit() string { s := []int{1, 2}; u := U{1, append(s, 5)}; return fmt.Sprint(u) }
func P_array_lit() string {
	s := []int{1, 2}
	a := [3]int{1, len(s), 3}
	p := ssd.Pos{1, len(s)}
	return fmt.Sprint(a, p)
}
