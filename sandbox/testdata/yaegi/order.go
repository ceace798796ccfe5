package policy

// A variable read in the same expression as a call that assigns it: Go
// leaves the order unspecified; the compiler makes the call first, yaegi
// reads left to right. Refused. Found by FuzzAgree (seed 6208).

import (
	"fmt"
	"ssd"
)

func Policy(v *ssd.View, agent int) int { return 0 }

var g = 1

func bump() int { g++; return g }

// refused: o is read in the same expression as a call that assigns it
func P_closure_in_literal() string {
	o := 1
	f := func() ssd.Pos { o = 5; return ssd.Pos{} }
	xs := []ssd.Pos{ssd.Pos{2, o}, f()}
	return fmt.Sprint(xs)
}

// refused: g is read in the same expression as a call that assigns it
func P_global_in_literal() string {
	xs := [2]int{g, bump()}
	return fmt.Sprint(xs)
}
func P_global_in_sum() string {
	g = 1
	s := g + bump()
	return fmt.Sprint(s)
}
func P_global_in_args() string {
	g = 1
	return fmt.Sprint(g, bump())
}
func P_closure_in_args() string {
	o := 1
	f := func() int { o = 5; return 0 }
	return fmt.Sprint(o, f())
}
func P_call_first_is_fine() string {
	o := 1
	f := func() int { o = 5; return 0 }
	n := f()
	xs := []int{o, n}
	return fmt.Sprint(xs)
}
func P_read_in_other_call_is_fine() string {
	o := 1
	f := func() int { o = 5; return 0 }
	id := func(x int) int { return x }
	xs := []int{id(o), f()}
	return fmt.Sprint(xs)
}
func P_logical_is_fine() string {
	o := 1
	f := func() bool { o = 5; return true }
	b := o == 1 && f()
	return fmt.Sprint(b, o)
}
