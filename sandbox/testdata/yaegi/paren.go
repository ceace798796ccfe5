package policy

import (
	"fmt"
	"ssd"
)

func Policy(v *ssd.View, agent int) int { return 0 }

type T struct{ A, B int }

func f(x int) int { return x * 10 }
func g(x int) T   { return T{x, x} }

func P_struct_assign() string { var q T; var n int; q, n = (T{A: 1}), 1; return fmt.Sprint(q, n) }
func P_struct_define() string { q, n := (T{A: 1, B: 2}), 1; return fmt.Sprint(q, n) }
func P_call() string          { var a, b int; a, b = (f(2)), 3; return fmt.Sprint(a, b) }
func P_call2() string         { var a, b int; b = 5; a, b = (f(b)), a; return fmt.Sprint(a, b) }
func P_swaplit() string       { x, y := T{1, 1}, 2; x, y = (T{y, y}), x.A; return fmt.Sprint(x, y) }
func P_redecl2() string       { a := T{1, 2}; a, b := (T{3, 4}), a; return fmt.Sprint(a, b) }
func P_redecl3() string       { a := T{1, 2}; a, b := (T{3, 4}), a.A; return fmt.Sprint(a, b) }
func P_redecl4() string       { a := 1; a, b := f(a), a; return fmt.Sprint(a, b) }
func P_redecl5() string       { a := 1; a, b := a+1, a; return fmt.Sprint(a, b) }
func P_var_spec() string      { var q, n = (T{A: 1}), 1; return fmt.Sprint(q, n) }

var pq, pn = (T{A: 7}), 7

func P_pkg_var() string { return fmt.Sprint(pq, pn) }

// refused: a value of type policy.T assigned to x
func P_iface_lit() string { var x any; var n int; x, n = (T{A: 1}), 2; return fmt.Sprint(x, n) }
func P_len() string       { var a, b int; a, b = (len("abc")), 2; return fmt.Sprint(a, b) }
func P_append() string    { var s []int; var n int; s, n = (append(s, 1)), 2; return fmt.Sprint(s, n) }
func P_best() string {
	best, bestPos := -1, ssd.Pos{}
	for i, s := range []int{3, 9, 4} {
		if s > best {
			best, bestPos = s, (ssd.Pos{R: i, C: s})
		}
	}
	return fmt.Sprint(best, bestPos)
}
