package policy

// A second probe set for issue 48's classes, written after the fixes
// from the Go specification's sections on conversions, assignability,
// for statements with range clauses, switch statements, method values
// and type assertions: each must agree or be refused.

import (
	"fmt"
	"sort"
	"ssd"
)

func Policy(v *ssd.View, agent int) int { return 0 }

var _ = sort.Ints

type Valuer interface{ Val() int }

type N int

func (n N) Val() int { return int(n) }

type Cell struct{ R, C int }

func (c Cell) Val() int { return c.R*100 + c.C }

func pairOf(c Cell) (Valuer, error) { return c, nil }

func sum(vs ...Valuer) int {
	t := 0
	for _, v := range vs {
		t = t*10 + v.Val()
	}
	return t
}

func P_after_multi_result() string {
	c := Cell{1, 2}
	v, err := pairOf(c)
	c.R = 9
	return fmt.Sprint(v.Val(), err == nil)
}

func P_after_variadic_and_field() string {
	a, b := N(1), N(2)
	var keep []func() int
	for _, n := range []N{3, 4} {
		keep = append(keep, func() int { return sum(n, a) })
	}
	type box struct{ v Valuer }
	bx := box{}
	bx.v = b
	b = 7
	a = 5
	return fmt.Sprint(keep[0](), keep[1](), bx.v.Val(), sum(a, b))
}

func P_after_var_list_and_closure() string {
	c, d := N(1), Cell{2, 3}
	var x, y Valuer = c, d
	c, d.R = 8, 8
	var fs []Valuer
	for k := 0; k < 3; k++ {
		n := N(k)
		func() { fs = append(fs, n) }()
		n = 9
	}
	return fmt.Sprint(x.Val(), y.Val(), fs[0].Val(), fs[1].Val(), fs[2].Val())
}

func P_after_array_of_struct_elems() string {
	grid := [2][2]Cell{{{1, 1}, {1, 2}}, {{2, 1}, {2, 2}}}
	var vs []Valuer
	for r := range grid {
		for c := range grid[r] {
			vs = append(vs, grid[r][c])
			grid[r][c].C = 0
		}
	}
	return fmt.Sprint(vs[0].Val(), vs[1].Val(), vs[2].Val(), vs[3].Val())
}

func P_after_range_nested_assigned() string {
	out := ""
	for i, row := range [][]int{{1, 2}, {3, 4}, {5}} {
		for j := range row {
			j += 10
			out += fmt.Sprint(j)
		}
		i *= 100
		row = nil
		out += fmt.Sprint(i, len(row), ";")
	}
	return out
}

func P_after_range_continue_mutated() string {
	n := 0
	s := []int{1, 2, 3, 4, 5}
	for i, x := range s {
		i++
		if x%2 == 0 {
			x = 0
			continue
		}
		n += i * x
	}
	return fmt.Sprint(n)
}

func P_after_switch_tag_side_effect() string {
	calls := 0
	tag := func() int { calls++; return 2 }
	hits := ""
	check := func(k int) int { hits += fmt.Sprint(k); return k }
	switch tag() {
	case check(2), check(3):
		hits += "!"
	case check(4):
	}
	return fmt.Sprint(calls, hits)
}

func P_after_switch_string_fallthrough() string {
	pick := func(s string) string { return s + s }
	r := ""
	switch x := "aa"; x {
	case "b", pick("b"):
		r = "b"
	case pick("a"), pick("c"):
		r = "a"
		fallthrough
	case pick("z"):
		r += "z"
	}
	return r
}

type Base struct{ k int }

func (b *Base) K() int { return b.k }
func (b Base) KV() int { return b.k * 2 }

type Mid2 struct{ *Base }

type Top struct{ *Mid2 }

func P_after_method_value_two_pointer_levels() string {
	t := Top{&Mid2{&Base{3}}}
	f, g := t.K, t.KV
	t.Mid2 = &Mid2{&Base{9}}
	return fmt.Sprint(f(), g())
}

func P_after_method_value_in_literal() string {
	m := Mid2{&Base{4}}
	fs := map[string]func() int{"k": m.K, "kv": m.KV}
	m.Base.k = 6
	return fmt.Sprint(fs["k"](), fs["kv"]())
}

type Strs []string

// refused: type assertion to policy.Strs
func P_after_assert_strs_vs_stringslice() string {
	var x any = sort.StringSlice{"a"}
	_, ok := x.(Strs)
	return fmt.Sprint(ok)
}

type Spot struct{ R, C int }

// refused: type assertion to *policy.Spot
func P_after_assert_ptr_shape() string {
	var x any = &ssd.Pos{R: 1}
	_, ok := x.(*Spot)
	return fmt.Sprint(ok)
}

// refused: type switch case ssd.Pos
func P_after_tswitch_ssd_pos_vs_policy() string {
	var x any = Spot{1, 2}
	switch x.(type) {
	case ssd.Pos:
		return "pos"
	}
	return "other"
}

type VE struct{ c int }

func (e VE) Error() string { return fmt.Sprint("ve", e.c) }

func find(k int) error {
	if k > 1 {
		return VE{k}
	}
	return nil
}

func P_after_value_error_return_and_expr() string {
	out := ""
	for k := 0; k < 4; k++ {
		if err := find(k); err != nil {
			out += err.Error()
		}
	}
	e := VE{1}
	f := (*VE).Error
	g := VE.Error
	return out + f(&e) + g(e) + (*VE).Error(&e)
}

func twoVals(n N) (N, int) { return n, int(n) }

func asValuer(n N) (Valuer, int) { return twoVals(n) }

func P_after_multi_value_call_conversions() string {
	var vs []Valuer
	for _, n := range []N{1, 2, 3} {
		v, _ := asValuer(n)
		vs = append(vs, v)
	}
	var w Valuer
	var k int
	m := N(5)
	w, k = twoVals(m)
	m = 6
	return fmt.Sprint(vs[0].Val(), vs[1].Val(), vs[2].Val(), w.Val(), k)
}
