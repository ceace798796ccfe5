package policy

import (
	"fmt"
	"sort"
	"ssd"
	"strings"
)

func Policy(v *ssd.View, agent int) int { return 0 }

type T struct{ A, B int }

func (t T) Sum() int { return t.A + t.B }

type Shape interface{ Sum() int }

// refused: type switch case
func P_typeswitch() string {
	vals := []any{1, "a", T{1, 2}, &T{3, 4}, nil, 2.5, []int{1}}
	out := ""
	for _, x := range vals {
		switch y := x.(type) {
		case int:
			out += fmt.Sprint("i", y)
		case string, float64:
			out += fmt.Sprint("sf", y)
		case T:
			out += fmt.Sprint("T", y.A)
		case *T:
			out += fmt.Sprint("P", y.B)
		case nil:
			out += "nil"
		default:
			out += "d"
		}
	}
	return out
}

// refused: type switch case Shape
func P_typeswitch_iface() string {
	var s Shape = T{1, 2}
	out := ""
	switch s.(type) {
	case Shape:
		out += "shape"
	}
	if t, ok := s.(T); ok {
		out += fmt.Sprint(t.Sum())
	}
	return out
}
func P_range_array_copy() string {
	a := [3]int{1, 2, 3}
	out := ""
	for i, x := range a {
		a[2] = 10
		out += fmt.Sprint(i, x)
	}
	s := []int{1, 2, 3}
	for i, x := range s {
		s[2] = 10
		out += fmt.Sprint(i, x)
	}
	return out
}

// refused: range over the pointer to an array
func P_range_ptr_array() string {
	a := [3]int{1, 2, 3}
	out := ""
	for i, x := range &a {
		a[2] = 10
		out += fmt.Sprint(i, x)
	}
	return out
}
func P_range_append() string {
	s := []int{1, 2}
	n := 0
	for range s {
		s = append(s, 9)
		n++
	}
	return fmt.Sprint(n, len(s))
}
func P_range_once() string {
	calls := 0
	get := func() []int { calls++; return []int{1, 2, 3} }
	sum := 0
	for _, x := range get() {
		sum += x
	}
	return fmt.Sprint(calls, sum)
}
func P_range_struct_modify() string {
	ts := []T{{1, 1}, {2, 2}}
	for _, t := range ts {
		t.A = 100
	}
	for i := range ts {
		ts[i].B = 50
	}
	return fmt.Sprint(ts)
}
func P_closure_in_loop_modify() string {
	total := 0
	for i := 0; i < 4; i++ {
		add := func(x int) { total += x * i }
		add(2)
	}
	return fmt.Sprint(total)
}
func P_nested_struct_copy() string {
	type inner struct{ V [2]int }
	type outer struct {
		In  inner
		Arr [2]inner
	}
	a := outer{}
	a.In.V[0] = 1
	a.Arr[1].V[1] = 2
	b := a
	b.In.V[0] = 5
	b.Arr[1].V[1] = 6
	c := &a
	c.Arr[0].V[0] = 7
	return fmt.Sprint(a, b)
}
func P_map_of_struct_update() string {
	m := map[int]T{}
	m[1] = T{1, 1}
	t := m[1]
	t.A++
	m[1] = t
	mp := map[int]*T{1: {1, 1}}
	mp[1].A += 5
	return fmt.Sprint(m, *mp[1])
}
func P_array_of_struct_method() string {
	var arr [3]T
	for i := range arr {
		arr[i] = T{i, i * 2}
	}
	s := 0
	for _, t := range arr {
		s += t.Sum()
	}
	ps := arr[:]
	sort.Slice(ps, func(i, j int) bool { return ps[i].Sum() > ps[j].Sum() })
	return fmt.Sprint(s, arr)
}
func P_string_builder() string {
	var sb strings.Builder
	for i := 0; i < 3; i++ {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(strings.Repeat("x", i))
	}
	b := &sb
	b.WriteString("!")
	return sb.String() + fmt.Sprint(sb.Len())
}
func P_struct_ptr_method_in_map_loop() string {
	type counter struct{ n int }
	cs := []*counter{{1}, {2}}
	for _, c := range cs {
		c.n *= 10
	}
	return fmt.Sprint(cs[0].n, cs[1].n)
}
func P_func_field() string {
	type op struct {
		name string
		f    func(int) int
	}
	ops := []op{{"d", func(x int) int { return x * 2 }}, {"s", func(x int) int { return x * x }}}
	out := 0
	for _, o := range ops {
		out = out*100 + o.f(7)
	}
	return fmt.Sprint(out)
}
func P_func_map() string {
	m := map[string]func(int) int{"a": func(x int) int { return x + 1 }}
	m["b"] = func(x int) int { return x - 1 }
	return fmt.Sprint(m["a"](1), m["b"](1))
}
func P_multi_ret_func_assign() string {
	div := func(a, b int) (int, int) { return a / b, a % b }
	q, r := div(17, 5)
	var x, y int
	x, y = div(-17, 5)
	return fmt.Sprint(q, r, x, y)
}
func P_shadow() string {
	x := 1
	if x := 2; x > 1 {
		x++
		_ = x
	}
	{
		x := 10
		x++
	}
	return fmt.Sprint(x)
}
func P_const_iota() string {
	const (
		a = iota * 10
		b
		c
		_
		e
	)
	type dir int
	const (
		N dir = iota
		S
		W
	)
	return fmt.Sprint(a, b, c, e, W, N+2 == W)
}
func P_bool_shortcircuit() string {
	n := 0
	f := func(r bool) bool { n++; return r }
	if f(false) && f(true) {
	}
	if f(true) || f(true) {
	}
	return fmt.Sprint(n)
}
func P_struct_embedded_method_ptr() string {
	type base struct{ hp int }
	type unit struct {
		base
		name string
	}
	u := unit{base{10}, "x"}
	u.hp -= 3
	return fmt.Sprint(u.hp)
}
