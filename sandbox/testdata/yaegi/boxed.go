package policy

// Values of a concrete type going into a variable or result of type any:
// yaegi stored x = !b through the interface's own storage and panicked
// (reflect: call of reflect.Value.SetBool on interface Value), and so did
// return !b from a function returning any. Found by FuzzAgree (seed 6183).

import (
	"fmt"
	"ssd"
)

func Policy(v *ssd.View, agent int) int { return 0 }

func notAny(a int) any           { return !(a%2 == 0) }
func notIface(a int) interface{} { return !(a > 1) }
func negAny(a int) any           { return -a }

func P_not_assigned() string { var x any = 1; n := 3; x = !(n%2 == 0); return fmt.Sprint(x) }
func P_not_after_float() string {
	var x any = 1 > 0
	x = -3.25
	n := 2
	x = !(n%2 == 0)
	return fmt.Sprint(x)
}
func P_not_unset() string { var x any; n := 2; x = !(n > 1); return fmt.Sprint(x) }
func P_not_in_parallel() string {
	var x any = 1
	n := 3
	x, n = !(n%2 == 0), 4
	return fmt.Sprint(x, n)
}
func P_not_returned() string { return fmt.Sprint(notAny(3), notAny(4), notIface(0)) }
func P_neg_returned() string { return fmt.Sprint(negAny(3)) }
func P_not_closure() string {
	f := func(b bool) any { return !b }
	return fmt.Sprint(f(true), f(false))
}
func P_and_assigned() string { var x any = "s"; a, b := true, false; x = a && !b; return fmt.Sprint(x) }
func P_not_field() string {
	type box struct{ v any }
	var bx box
	n := 1
	bx.v = !(n == 1)
	return fmt.Sprint(bx.v)
}
func P_not_slice_elem() string { xs := []any{1, 2}; n := 1; xs[1] = !(n == 1); return fmt.Sprint(xs) }
func P_not_map_elem() string {
	m := map[string]any{}
	n := 1
	m["k"] = !(n == 2)
	return fmt.Sprint(m["k"])
}
