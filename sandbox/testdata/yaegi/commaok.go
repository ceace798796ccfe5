package policy

// Lookups with two results, m[k] and x.(T): when the key was missing or
// the assertion failed, yaegi left the first target as it was, where Go
// sets it to the zero value (in a loop, v, ok := m[k] kept the value of
// the iteration before). Found by FuzzAgree (seed 162).

import (
	"fmt"
	"ssd"
)

func Policy(v *ssd.View, agent int) int { return 0 }

type T struct{ A, B int }

func P_assign() string {
	m := map[int]int{1: 10}
	val, ok := 5, true
	val, ok = m[2]
	return fmt.Sprint(val, ok)
}
func P_single() string {
	m := map[int]int{1: 10, 3: 7}
	out := ""
	for i := 0; i < 4; i++ {
		val := m[i]
		out += fmt.Sprint(val, " ")
	}
	return out
}
func P_struct() string {
	m := map[int]T{1: {1, 2}}
	out := ""
	for i := 0; i < 3; i++ {
		val, ok := m[i]
		out += fmt.Sprint(val, ok, " ")
	}
	return out
}
func P_if() string {
	m := map[int]int{1: 10}
	out := ""
	for i := 0; i < 3; i++ {
		if val, ok := m[i]; ok || val == 0 {
			out += fmt.Sprint(val, ok, " ")
		}
	}
	return out
}
func P_assert() string {
	xs := []any{T{1, 2}, 3, T{5, 6}, "a"}
	out := ""
	for _, x := range xs {
		t, ok := x.(T)
		out += fmt.Sprint(t, ok, " ")
	}
	return out
}
func P_assert_int() string {
	xs := []any{4, "a", 5, 2.5}
	out := ""
	for _, x := range xs {
		n, ok := x.(int)
		out += fmt.Sprint(n, ok, " ")
	}
	return out
}
func P_blank() string {
	m := map[string]int{"a": 3}
	out := 0
	for _, k := range []string{"a", "b", "a", "c"} {
		c, _ := m[k]
		out = out*10 + c
	}
	return fmt.Sprint(out)
}
func P_func_scope() string {
	m := map[int]int{1: 10}
	f := func(k int) int { v, _ := m[k]; return v }
	return fmt.Sprint(f(1), f(2))
}
func P_var_spec() string {
	m := map[int]int{1: 10}
	out := ""
	for i := 0; i < 3; i++ {
		var val, ok = m[i]
		out += fmt.Sprint(val, ok, " ")
	}
	return out
}
func P_local_type() string {
	type cell struct{ r, c int }
	m := map[int]cell{1: {1, 2}}
	out := ""
	for i := 0; i < 3; i++ {
		c, ok := m[i]
		out += fmt.Sprint(c, ok, " ")
	}
	return out
}
func P_any_target() string {
	m := map[int]int{1: 10}
	var x any = "s"
	var ok bool
	x, ok = m[1]
	y := x
	x, ok = m[2]
	return fmt.Sprint(y, x, ok)
}
func P_nested() string {
	m := map[int]map[int]int{1: {2: 3}}
	out := ""
	for i := 0; i < 3; i++ {
		inner, ok := m[i]
		v, ok2 := inner[i+1]
		out += fmt.Sprint(len(inner), ok, v, ok2, " ")
	}
	return out
}
