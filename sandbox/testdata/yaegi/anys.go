package policy

// Values of type any assigned to variables of type any among several
// values: yaegi failed (reflect.Set: value of type interface {} is not
// assignable to type interp.valueInterface); found by FuzzAgree (seed
// 98). Refused when the targets exist; new variables are fine.

import (
	"errors"
	"fmt"
	"ssd"
)

func Policy(v *ssd.View, agent int) int { return 0 }

type K struct {
	n int
	x any
}

type S interface{ Sum() int }
type T struct{ A int }

func (t T) Sum() int { return t.A }

// refused: a value of type any assigned to x of type any
func P_any_nil() string { var x any = 1; var n int; x, n = any(nil), 1; return fmt.Sprint(x == nil, n) }

// refused: a value of type any assigned to x of type any
func P_any_var() string {
	var x any = 1
	var y any = 2
	var n int
	x, n = y, 1
	return fmt.Sprint(x, n)
}

// refused: a value of type any assigned to k.x of type any
func P_field_nil() string { k := K{x: 3}; k.x, k.n = nil, 2; return fmt.Sprint(k.x == nil, k.n) }

// refused: a value of type any assigned to k.x of type any
func P_field_var() string { k := K{x: 3}; var y any = 5; k.x, k.n = y, 2; return fmt.Sprint(k.x, k.n) }

// refused: a value of type any assigned to x of type any
func P_redeclared() string { var x any = 1; var y any = 2; x, n := y, 1; return fmt.Sprint(x, n) }

func P_concrete() string { k := K{x: 3}; k.x, k.n = 4, 2; return fmt.Sprint(k.x, k.n) }
func P_define() string   { var y any = 2; x, n := y, 1; return fmt.Sprint(x, n) }
func P_define2() string  { var y any = 2; var z any = 3; x, n := y, z; return fmt.Sprint(x, n) }
func P_var_spec() string {
	var y any = 2
	var x, n = y, 1
	var a, b any = y, 1
	return fmt.Sprint(x, n, a, b)
}
func P_error() string {
	var e error
	f := errors.New("x")
	var n int
	e, n = f, 1
	var g error
	g, n = error(nil), 2
	return fmt.Sprint(e != nil, g == nil, n)
}
func P_interface() string {
	var s S
	var u S
	var n int
	s, n = u, 1
	var w S
	w, n = nil, 2
	var t S = T{2}
	var x any
	x, n = t, 3
	return fmt.Sprint(s == nil, w == nil, x != nil, n)
}
