package policy

import (
	"fmt"
	"ssd"
)

func Policy(v *ssd.View, agent int) int { return 0 }

type Base struct{ ID int }

func (b Base) Describe() string { return fmt.Sprint("base", b.ID) }
func (b *Base) Bump()           { b.ID++ }

type Derived struct {
	Base
	ID string
}

type point struct{ x, y int }

func P_embedding_shadowed_field() string {
	d := Derived{Base{1}, "d"}
	d.Bump()
	return fmt.Sprint(d.ID, d.Base.ID, d.Describe())
}
func P_elided_pointer_literals() string {
	ps := []*point{{1, 2}, {3, 4}}
	m := map[string]*point{"a": {5, 6}}
	ps[0].x = 9
	return fmt.Sprint(*ps[0], *ps[1], *m["a"])
}
func P_loopvar_closures_go122() string {
	var fs []func() int
	for i := 0; i < 3; i++ {
		fs = append(fs, func() int { return i * 10 })
	}
	out := ""
	for _, f := range fs {
		out += fmt.Sprint(f())
	}
	return out
}
func P_method_expression() string {
	f := Base.Describe
	g := (*Base).Bump
	b := Base{4}
	g(&b)
	return f(b)
}
func P_shadowing_in_blocks() string {
	x := 1
	{
		x := 2
		x++
		_ = x
	}
	if x := 5; x > 3 {
		return fmt.Sprint("inner", x)
	}
	return fmt.Sprint(x)
}
func P_parallel_assign_index() string {
	s := []int{1, 2, 3}
	i := 0
	i, s[i] = 2, 9
	return fmt.Sprint(i, s)
}
func P_defer_modifies_result() string {
	f := func() (n int) {
		defer func() { n *= 2 }()
		n = 3
		return n + 1
	}
	return fmt.Sprint(f())
}
func P_goto_forward() string {
	n := 0
	if n == 0 {
		goto done
	}
	n = 5
done:
	return fmt.Sprint(n)
}
func P_pointer_to_struct_in_slice() string {
	pts := []point{{1, 1}, {2, 2}}
	p := &pts[1]
	p.x = 7
	pts = append(pts, point{3, 3})
	p.y = 8
	return fmt.Sprint(pts[1].x, pts[1].y >= 2)
}
func P_new_and_deref() string {
	p := new(int)
	*p = 41
	*p++
	q := new(point)
	q.y = *p
	return fmt.Sprint(*p, *q)
}
