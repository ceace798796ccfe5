package policy

// Variables of interface type declared with a value of a compiled type
// (var x any = ssd.Pos{}): yaegi gave them that type's storage, and a
// later value of another type panicked (reflect.Set: value of type bool
// is not assignable to type ssd.Pos). Found by FuzzAgree (seed 588).

import (
	"fmt"
	"ssd"
)

func Policy(v *ssd.View, agent int) int { return 0 }

func P_bool_in_parallel() string {
	var x any = ssd.Pos{}
	var n int
	x, n = true, 1
	return fmt.Sprint(x, n)
}
func P_bool_var_in_parallel() string {
	var x any = ssd.Pos{}
	var n int
	b := true
	x, n = b, 1
	return fmt.Sprint(x, n)
}
func P_int_then_string() string   { var x any = 3; var n int; x, n = "s", 1; return fmt.Sprint(x, n) }
func P_int_then_int() string      { var x any = 3; var n int; x, n = 4, 1; return fmt.Sprint(x, n) }
func P_nil_any_then_bool() string { var x any; var n int; x, n = 2 != n, 1; return fmt.Sprint(x, n) }
func P_comparison_in_parallel() string {
	var x any = ssd.Pos{}
	var n int
	x, n = (n != 1), 1
	return fmt.Sprint(x, n)
}
func P_in_loop() string {
	var x any = ssd.Pos{}
	n := 2
	for i := 0; i < 2; i++ {
		n, x = i, (i != n)
	}
	return fmt.Sprint(x, n)
}
func P_single() string           { var x any = ssd.Pos{}; x = true; return fmt.Sprint(x) }
func P_converted() string        { var x any = ssd.Pos{}; x = any(true); return fmt.Sprint(x) }
func P_int() string              { var x any = ssd.Pos{}; x = 5; return fmt.Sprint(x) }
func P_same_type() string        { var x any = ssd.Pos{}; x = ssd.Pos{1, 2}; return fmt.Sprint(x) }
func P_nil() string              { var x any = ssd.Pos{}; x = nil; return fmt.Sprint(x) }
func P_slice() string            { var x any = ssd.Pos{}; x = []int{1}; return fmt.Sprint(x) }
func P_any_value() string        { var x any = ssd.Pos{}; var y any = true; x = y; return fmt.Sprint(x) }
func P_define_converted() string { x := any(ssd.Pos{}); x = true; return fmt.Sprint(x) }
func P_agent() string            { var x any = ssd.Agent{}; x = 1; return fmt.Sprint(x) }
func P_int_then_pos() string     { var x any = 3; x = ssd.Pos{}; x = 4; return fmt.Sprint(x) }
func P_assigned_pos() string     { var x any; x = ssd.Pos{}; x = 4; return fmt.Sprint(x) }
func P_element() string          { xs := []any{ssd.Pos{}}; xs[0] = true; return fmt.Sprint(xs) }

type T struct{ A int }

func (t T) Sum() int { return t.A }

type S interface{ Sum() int }

func P_policy_type() string { var x any = T{1}; x = true; return fmt.Sprint(x) }
func P_interface() string   { var x S = T{1}; x = T{2}; return fmt.Sprint(x.Sum()) }

// refused: a value of type any assigned to x of type any
func P_swap() string { var x, y any = ssd.Pos{}, 3; x, y = y, x; return fmt.Sprint(x, y) }
func P_asserted() string {
	var x any = ssd.Pos{1, 2}
	p, ok := x.(ssd.Pos)
	x = 1
	return fmt.Sprint(p, ok, x)
}
