package policy

// nil among several values assigned at once: yaegi panicked (reflect:
// New(nil)) on k.a, k.b = nil, nil and every other parallel assignment
// of an untyped nil, the one the rewrite makes of a return to named
// results included.

import (
	"fmt"
	"ssd"
)

func Policy(v *ssd.View, agent int) int { return 0 }

type K struct {
	a, b *int
	m    map[int]int
	s    []int
	f    func() int
	x    any
}

func retNil() (*int, bool)         { return nil, false }
func retNils() ([]int, error)      { return nil, nil }
func retNamed() (x *int, y int)    { return nil, 2 }
func retNamedK() (k *K, err error) { return nil, nil }

func P_fields() string {
	one := 1
	k := K{a: &one, b: &one}
	k.a, k.b = nil, nil
	return fmt.Sprint(k.a == nil, k.b == nil)
}
func P_pointer_fields() string {
	one := 1
	k := &K{a: &one, b: &one}
	k.a, k.b = nil, nil
	return fmt.Sprint(k.a == nil, k.b == nil)
}
func P_locals() string {
	var a, b *int
	one := 1
	a, b = &one, &one
	a, b = nil, nil
	return fmt.Sprint(a == nil, b == nil)
}
func P_map_slice() string {
	k := K{m: map[int]int{}, s: []int{1}}
	k.m, k.s = nil, nil
	return fmt.Sprint(k.m == nil, k.s == nil)
}

// refused: a value of type any assigned to k.x of type any
func P_func_any() string {
	k := K{f: func() int { return 1 }, x: 3}
	k.f, k.x = nil, nil
	return fmt.Sprint(k.f == nil, k.x == nil)
}
func P_with_value() string {
	one := 1
	k := K{a: &one}
	k.a, k.s = nil, []int{2}
	return fmt.Sprint(k.a == nil, k.s)
}
func P_elements() string {
	one := 1
	ks := []K{{a: &one}}
	ks[0].a, ks[0].b = nil, nil
	return fmt.Sprint(ks[0].a == nil)
}
func P_single() string { one := 1; k := K{a: &one}; k.a = nil; return fmt.Sprint(k.a == nil) }
func P_second() string {
	one := 1
	var k K
	k.a, k.b = &one, nil
	return fmt.Sprint(*k.a, k.b == nil)
}
func P_local_type() string {
	type node struct{ next *node }
	n := &node{}
	var a, b *node = n, n
	a, b = nil, nil
	return fmt.Sprint(a == nil, b == nil)
}
func P_var_spec() string { var a, b *int = nil, nil; return fmt.Sprint(a == nil, b == nil) }
func P_returns() string {
	a, b := retNil()
	c, d := retNils()
	return fmt.Sprint(a == nil, b, c == nil, d == nil)
}
func P_named() string {
	a, b := retNamed()
	k, err := retNamedK()
	return fmt.Sprint(a == nil, b, k == nil, err == nil)
}
func P_slice_error() string {
	var a []int
	var b error
	a, b = nil, nil
	return fmt.Sprint(a == nil, b == nil)
}
func P_swap_order() string {
	var a map[int]int
	var n int
	n, a = 3, nil
	return fmt.Sprint(a == nil, n)
}
