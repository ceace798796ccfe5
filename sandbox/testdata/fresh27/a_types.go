package policy

import (
	"fmt"
	"ssd"
)

func Policy(v *ssd.View, agent int) int { return 0 }

type Celsius float64
type Fahrenheit float64
type Grid [3][3]int8
type Named struct {
	Name string
	Tags []string
}
type Tree struct {
	Left, Right *Tree
	Val         int
}
type Shape interface{ Area() float64 }
type Rect struct{ W, H float64 }
type Circle struct{ R float64 }

func (r Rect) Area() float64   { return r.W * r.H }
func (c Circle) Area() float64 { return 3 * c.R * c.R }

func P_named_float_arith() string {
	c := Celsius(21.5)
	f := Fahrenheit(c*9/5 + 32)
	return fmt.Sprint(c, f, float64(f)-float64(c))
}
func P_array_of_arrays() string {
	var g Grid
	for i := range g {
		for j := range g[i] {
			g[i][j] = int8(i*3 + j - 4)
		}
	}
	h := g
	h[1][1] = 99
	return fmt.Sprint(g, h, g == h)
}
func P_struct_slice_field_copy() string {
	a := Named{"a", []string{"x", "y"}}
	b := a
	b.Tags[0] = "z"
	b.Name = "b"
	return fmt.Sprint(a, b)
}
func P_recursive_tree() string {
	var insert func(t *Tree, v int) *Tree
	insert = func(t *Tree, v int) *Tree {
		if t == nil {
			return &Tree{Val: v}
		}
		if v < t.Val {
			t.Left = insert(t.Left, v)
		} else {
			t.Right = insert(t.Right, v)
		}
		return t
	}
	var root *Tree
	for _, v := range []int{5, 3, 8, 1, 4, 9} {
		root = insert(root, v)
	}
	var walk func(t *Tree) string
	walk = func(t *Tree) string {
		if t == nil {
			return ""
		}
		return walk(t.Left) + fmt.Sprint(t.Val) + walk(t.Right)
	}
	return walk(root)
}
func P_interface_dispatch() string {
	shapes := []Shape{Rect{2, 3}, Circle{1}, Rect{1, 1}}
	total := 0.0
	for _, s := range shapes {
		total += s.Area()
	}
	return fmt.Sprint(total)
}
func P_interface_slice_sort_by_area() string {
	shapes := []Shape{Rect{2, 3}, Circle{1}, Rect{1, 1}}
	for i := 1; i < len(shapes); i++ {
		for j := i; j > 0 && shapes[j].Area() < shapes[j-1].Area(); j-- {
			shapes[j], shapes[j-1] = shapes[j-1], shapes[j]
		}
	}
	out := ""
	for _, s := range shapes {
		out += fmt.Sprint(s.Area(), ";")
	}
	return out
}
func P_anonymous_struct_var() string {
	p := struct {
		X, Y int
		L    string
	}{1, 2, "p"}
	q := p
	q.X = 7
	return fmt.Sprint(p, q, p == q)
}
func P_pointer_to_array_range() string {
	a := [4]int{1, 2, 3, 4}
	p := &a
	s := 0
	for i, x := range p {
		s += i * x
		p[i] = x * 2
	}
	return fmt.Sprint(s, a)
}
func P_map_of_slices() string {
	m := map[string][]int{}
	for i := 0; i < 6; i++ {
		k := "odd"
		if i%2 == 0 {
			k = "even"
		}
		m[k] = append(m[k], i)
	}
	return fmt.Sprint(m["even"], m["odd"], len(m))
}
func P_func_typed_field() string {
	type op struct {
		name string
		f    func(int, int) int
	}
	ops := []op{{"add", func(a, b int) int { return a + b }}, {"mul", func(a, b int) int { return a * b }}}
	out := ""
	for _, o := range ops {
		out += fmt.Sprint(o.name, o.f(3, 4))
	}
	return out
}
