package policy

// The six classes of issue 48, each in the shapes it takes: a value
// converted to an interface with methods (assignment, loop, array
// element, argument, result, composite literal, map value) must be a
// copy; a range key or value assigned in the body must not change the
// iteration; a tagged switch must evaluate every case expression of a
// list until one matches; a method value promoted through an embedded
// pointer binds its receiver when evaluated; an assertion to a type
// the policy declares must not accept a compiled type of the same shape;
// method expressions through pointer types and value-receiver Error
// methods must run.

import (
	"fmt"
	"sort"
	"ssd"
	"strings"
)

func Policy(v *ssd.View, agent int) int { return 0 }

type Getter interface{ Get() int }

type C int

func (c C) Get() int { return int(c) }

type Pair struct{ A, B int }

func (p Pair) Get() int { return p.A*10 + p.B }

type Two [2]int

func (t Two) Get() int { return t[0]*10 + t[1] }

type Fn func() int

func (f Fn) Get() int { return f() }

type Ints []int

func (s Ints) Get() int { return len(s) }

// class 1: conversion to an interface with methods copies

func P_iface_copy_assign() string {
	c := C(1)
	var i Getter = c
	c = 5
	var j Getter
	d := C(2)
	j = d
	d++
	return fmt.Sprint(i.Get(), j.Get(), c, d)
}

func P_iface_copy_loop_append() string {
	ts := []C{1, 2, 3}
	var gs []Getter
	for _, t := range ts {
		gs = append(gs, t)
	}
	ps := []Pair{{1, 2}, {3, 4}}
	var hs []Getter
	for _, p := range ps {
		hs = append(hs, p)
	}
	s := ""
	for _, g := range append(gs, hs...) {
		s += fmt.Sprint(g.Get(), " ")
	}
	return s
}

func P_iface_copy_array_elem() string {
	arr := [3]Two{{1, 2}, {3, 4}, {5, 6}}
	var is [3]Getter
	for k := range arr {
		is[k] = arr[k]
	}
	arr[0][0] = 9
	arr[1] = Two{7, 7}
	return fmt.Sprint(is[0].Get(), is[1].Get(), is[2].Get())
}

func use(g Getter) Getter { return g }

func asGetter(p Pair) Getter { return p }

func P_iface_copy_arg_result() string {
	p := Pair{1, 1}
	g := use(p)
	p.A = 9
	h := asGetter(p)
	p.B = 9
	q := Pair{2, 2}
	r := func() Getter { return q }()
	q.A = 5
	return fmt.Sprint(g.Get(), h.Get(), r.Get())
}

type holder struct {
	G Getter
	N int
}

func P_iface_copy_literal_map() string {
	c := C(3)
	lst := []Getter{c, C(4)}
	h := holder{G: c, N: 1}
	m := map[string]Getter{"a": c}
	m2 := map[int]Getter{}
	m2[1] = c
	arr := [2]Getter{c}
	c = 8
	return fmt.Sprint(lst[0].Get(), h.G.Get(), m["a"].Get(), m2[1].Get(), arr[0].Get())
}

func P_iface_copy_func_slice_types() string {
	n := 1
	f := Fn(func() int { return n })
	var g Getter = f
	f = Fn(func() int { return 7 })
	s := Ints{1, 2}
	var h Getter = s
	s = Ints{1, 2, 3}
	return fmt.Sprint(g.Get(), h.Get(), f.Get(), s.Get())
}

var pkgC = C(6)

var pkgG Getter = pkgC

func P_iface_copy_package_level() string {
	pkgC = 7
	return fmt.Sprint(pkgG.Get())
}

type errV struct{ code int }

func (e errV) Error() string { return fmt.Sprint("e", e.code) }

func P_iface_copy_error_loop() string {
	var errs []error
	for _, e := range []errV{{1}, {2}} {
		errs = append(errs, e)
	}
	return errs[0].Error() + errs[1].Error()
}

type byLen []string

func (b byLen) Len() int           { return len(b) }
func (b byLen) Less(i, j int) bool { return len(b[i]) < len(b[j]) }
func (b byLen) Swap(i, j int)      { b[i], b[j] = b[j], b[i] }

func P_iface_copy_sort_interface() string {
	b := byLen{"ccc", "a", "bb"}
	var si sort.Interface = b
	b = byLen{"x"}
	sort.Sort(si)
	return fmt.Sprint(si.Len(), b)
}

type Stringer interface{ String() string }

type name struct{ s string }

func (n name) String() string { return strings.ToUpper(n.s) }

func P_iface_copy_method_arg() string {
	var out []Stringer
	add := func(s Stringer) { out = append(out, s) }
	for _, n := range []name{{"a"}, {"b"}} {
		add(n)
	}
	return out[0].String() + out[1].String()
}

// class 2: range variables assigned in the body

func P_range_key_assigned() string {
	s := []int{10, 20, 30, 40, 50, 60}
	n := 0
	for i := range s {
		if i == 1 {
			i = 4
		}
		n++
		_ = i
	}
	return fmt.Sprint(n)
}

func P_range_value_assigned() string {
	s := []int{1, 2, 3}
	sum := 0
	for i, x := range s {
		x *= 10
		i += 5
		sum += x + i
	}
	return fmt.Sprint(sum, s)
}

func P_range_array_key_incremented() string {
	a := [4]string{"a", "b", "c", "d"}
	out := ""
	for k, v := range a {
		out += v
		k++
		out += fmt.Sprint(k)
	}
	return out
}

func P_range_map_value_assigned() string {
	m := map[int]int{1: 1, 2: 2}
	sum := 0
	for k, v := range m {
		v = v * 100
		k = 0
		sum += v + k
	}
	return fmt.Sprint(sum)
}

// class 3: tagged switch with case lists

func P_switch_tagged_list_calls() string {
	calls := ""
	g := func(n int) int { calls += fmt.Sprint(n); return n }
	r := "none"
	switch 4 {
	case g(3), g(4):
		r = "first"
	case g(5):
		r = "second"
	}
	return r + calls
}

func P_switch_tagged_list_mixed() string {
	calls := ""
	g := func(n int) int { calls += fmt.Sprint(n); return n }
	x := 7
	r := ""
	switch y := x + 1; y {
	case 1, g(2):
		r = "a"
	case g(6), g(8), g(9):
		r = "b"
		fallthrough
	case 3:
		r += "c"
	default:
		r = "d"
	}
	return r + calls
}

func P_switch_tagged_string_methods() string {
	n := name{"ab"}
	r := ""
	switch strings.ToLower("AB") {
	case n.String(), strings.Repeat("a", 1) + "b":
		r = "x"
	default:
		r = "y"
	}
	return r
}

// class 4: method values through embedded pointers

type Inner struct{ N int }

func (i *Inner) PtrGet() int { return i.N }
func (i Inner) ValGet() int  { return i.N }

type Outer struct {
	*Inner
	Tag string
}

func P_method_value_embedded_ptr() string {
	o := Outer{Inner: &Inner{1}}
	f := o.PtrGet
	g := o.ValGet
	o.Inner = &Inner{5}
	return fmt.Sprint(f(), g(), o.PtrGet())
}

func P_method_value_embedded_ptr_mutated() string {
	o := &Outer{Inner: &Inner{1}}
	f := o.PtrGet
	g := o.ValGet
	o.Inner.N = 3
	return fmt.Sprint(f(), g())
}

type Mid struct{ Outer }

func P_method_value_embedded_two_levels() string {
	m := Mid{Outer{Inner: &Inner{2}}}
	fs := []func() int{m.PtrGet, m.ValGet}
	m.Inner = &Inner{9}
	return fmt.Sprint(fs[0](), fs[1]())
}

type Box struct{ Inner }

func P_method_value_embedded_value() string {
	b := Box{Inner{1}}
	f := b.PtrGet
	g := b.ValGet
	b.N = 4
	return fmt.Sprint(f(), g())
}

// class 5: assertions to a policy type against compiled types of the same shape

type P struct{ R, C int }

// refused: type assertion to policy.P
func P_assert_policy_vs_ssd_pos() string {
	var a any = ssd.Pos{R: 1, C: 2}
	_, ok := a.(P)
	return fmt.Sprint(ok)
}

// refused: type assertion to ssd.Pos
func P_assert_ssd_pos_vs_policy() string {
	var a any = P{1, 2}
	_, ok := a.(ssd.Pos)
	return fmt.Sprint(ok)
}

type Nums []int

// refused: type assertion to policy.Nums
func P_assert_named_slice_vs_intslice() string {
	var a any = sort.IntSlice{3, 1}
	_, ok := a.(Nums)
	return fmt.Sprint(ok)
}

// refused: type switch case P
func P_tswitch_policy_vs_ssd_pos() string {
	var a any = ssd.Pos{R: 1, C: 2}
	switch a.(type) {
	case P:
		return "P"
	}
	return "other"
}

// class 6: raw crashes

type T struct{ n int }

func (t T) Add(k int) int { return t.n + k }

func P_method_expr_ptr_value_recv() string {
	t := T{1}
	f := (*T).Add
	return fmt.Sprint((*T).Add(&t, 1), T.Add(t, 2), f(&t, 3))
}

type valErr struct{ msg string }

func (e valErr) Error() string { return "E:" + e.msg }

func mayFail(k int) error {
	if k > 0 {
		return valErr{"pos"}
	}
	return nil
}

func P_value_error_stored() string {
	var err error = valErr{"x"}
	e := valErr{"y"}
	err2 := error(e)
	var errs []error
	errs = append(errs, e, mayFail(1))
	return err.Error() + err2.Error() + errs[0].Error() + errs[1].Error() + fmt.Sprint(mayFail(0) == nil)
}

// more of each class

type ptrG struct{ n int }

func (p *ptrG) Get() int { return p.n }

func P_iface_copy_pointer_var() string {
	a, b := &ptrG{1}, &ptrG{2}
	p := a
	var g Getter = p
	p = b
	var gs []Getter
	for _, q := range []*ptrG{a, b} {
		gs = append(gs, q)
	}
	return fmt.Sprint(g.Get(), gs[0].Get(), gs[1].Get())
}

func P_iface_copy_struct_field_source() string {
	type wrap struct{ c C }
	w := wrap{C(1)}
	g := Getter(w.c)
	w.c = 2
	cs := map[string]C{"k": 3}
	h := Getter(cs["k"])
	cs["k"] = 4
	return fmt.Sprint(g.Get(), h.Get())
}

func P_range_string_key_assigned() string {
	out := ""
	for i, r := range "héllo" {
		if i == 1 {
			i = 10
			r = 'X'
		}
		out += fmt.Sprint(i, string(r))
	}
	return out
}

func P_range_assign_existing_vars() string {
	var i, x int
	n := 0
	for i, x = range []int{5, 6, 7} {
		if i == 0 {
			i = 2
			x = 0
		}
		n++
	}
	return fmt.Sprint(n, i, x)
}

// refused: a labelled switch with an init statement
func P_switch_tagged_labelled() string {
	calls := ""
	g := func(n int) int { calls += fmt.Sprint(n); return n }
	r := ""
L:
	switch k := 2; k {
	case g(1), g(2):
		r = "x"
		break L
	}
	return r + calls
}

func P_switch_tagged_no_match_all_called() string {
	calls := ""
	g := func(s string) string { calls += s; return s }
	switch "z" {
	case g("a"), g("b"):
		return "ab" + calls
	case g("c"), "d", g("e"):
		return "cde" + calls
	}
	return "none " + calls
}

func P_method_expr_promoted() string {
	o := Outer{Inner: &Inner{4}}
	f := Outer.ValGet
	g := (*Outer).PtrGet
	return fmt.Sprint(f(o), g(&o), Outer.ValGet(o), (*Inner).ValGet(o.Inner))
}

func P_method_value_in_loop_embedded() string {
	os := []Outer{{Inner: &Inner{1}}, {Inner: &Inner{2}}}
	var fs []func() int
	for _, o := range os {
		fs = append(fs, o.PtrGet)
	}
	os[0].Inner = &Inner{7}
	return fmt.Sprint(fs[0](), fs[1]())
}
