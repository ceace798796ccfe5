package policy

import (
	"container/heap"
	"fmt"
	"sort"
	"ssd"
	"strings"
)

func Policy(v *ssd.View, agent int) int { return 0 }

type T struct{ A, B int }

func (t T) Name() string { return fmt.Sprint("T", t.A) }

type S interface{ Name() string }
type U struct{ X int }

func (u U) Name() string { return "U" }

// refused: == compares values of interface type policy.S
func P_iface_eq() string {
	var a, b S = T{1, 2}, T{1, 2}
	var c S = T{1, 3}
	var d any = T{1, 2}
	return fmt.Sprint(a == b, a == c, d == any(T{1, 2}), a == d)
}

// refused: == compares values of interface type policy.S
func P_iface_eq_diff_types() string {
	var a S = T{1, 2}
	var b S = U{1}
	return fmt.Sprint(a == b, a != b)
}

// refused: == compares values of interface type any
func P_iface_eq_ptr() string {
	p := &U{1}
	var a, b any = p, p
	return fmt.Sprint(a == b)
}

// refused: a map keyed by interface type any
func P_iface_map_key() string {
	m := map[any]int{}
	m[T{1, 2}] = 1
	m[T{1, 2}] += 1
	m[U{1}] = 5
	return fmt.Sprint(len(m), m[T{1, 2}])
}
func P_anon_key() string {
	m := map[struct{ R, C int }]int{}
	m[struct{ R, C int }{1, 2}] = 3
	m[struct{ R, C int }{1, 2}]++
	return fmt.Sprint(m[struct{ R, C int }{1, 2}], len(m))
}
func P_arr_key() string {
	m := map[[2]int]bool{}
	m[[2]int{1, 2}] = true
	k := [2]int{1, 2}
	return fmt.Sprint(m[k], m[[2]int{2, 1}], len(m))
}
func P_struct_key_expr() string {
	m := map[ssd.Pos]int{{1, 2}: 5}
	r, c := 1, 2
	x := m[ssd.Pos{R: r, C: c}] + m[ssd.Pos{R: c, C: r}]*10
	_, ok := m[ssd.Pos{r, c}]
	return fmt.Sprint(x, ok)
}
func P_struct_key_expr2() string {
	seen := map[[2]int]bool{}
	for i := 0; i < 3; i++ {
		seen[[2]int{i, i * 2}] = true
	}
	n := 0
	if seen[[2]int{1, 2}] && !seen[[2]int{2, 1}] {
		n++
	}
	return fmt.Sprint(n, len(seen))
}
func P_range_slice_var() string {
	rows := [][3]int{{1, 2, 3}, {4, 5, 6}}
	out := ""
	for _, r := range rows {
		s := r[1:]
		out += fmt.Sprint(s)
	}
	return out
}
func P_range_arr_slice() string {
	var keep [][]int
	for _, r := range [][2]int{{1, 2}, {3, 4}} {
		keep = append(keep, r[:])
	}
	return fmt.Sprint(keep)
}
func P_switch_list() string {
	out := ""
	for i := 0; i < 6; i++ {
		switch {
		case i == 0, i == 3:
			out += "a"
		case i > 4:
			out += "b"
		default:
			out += "c"
		}
	}
	return out
}
func P_switch_fall() string {
	out := ""
	for i := 0; i < 4; i++ {
		switch i {
		case 0:
			out += "0"
			fallthrough
		case 1:
			out += "1"
		case 2:
			out += "2"
			fallthrough
		default:
			out += "d"
		}
	}
	return out
}

// refused: default is not the last clause of its
func P_switch_fall_default_mid() string {
	out := ""
	for i := 0; i < 4; i++ {
		switch i {
		case 0:
			out += "0"
		default:
			out += "d"
			fallthrough
		case 1:
			out += "1"
			fallthrough
		case 2:
			out += "2"
		}
	}
	return out
}
func P_switch_tagless_fall() string {
	out := ""
	for i := 0; i < 4; i++ {
		switch {
		case i < 1:
			out += "a"
			fallthrough
		case i < 2, i == 3:
			out += "b"
		default:
			out += "c"
		}
	}
	return out
}
func P_switch_init() string {
	out := ""
	for i := 0; i < 3; i++ {
		switch x := i * 2; x {
		case 0, 4:
			out += "z"
		default:
			out += "n"
		}
	}
	return out
}
func P_const_typed() string {
	const k = 7
	const big = 1 << 40
	var f float64 = k / 2
	var g float64 = 7.0 / 2
	var i int = k / 2
	var d = k / 2.0
	var b int64 = big >> 38
	var u uint8 = 255
	u += 1
	h := 3 / 2 * 2.0
	return fmt.Sprint(f, g, i, d, b, u, h)
}
func P_const_typed2() string {
	type dur int32
	const unit dur = 3
	x := unit * 2
	var y float32 = 1.0 / 3
	z := 1 << 3 >> 1
	return fmt.Sprint(x, y, z, 'a'+1, string(rune('a'+1)))
}

var (
	initA = initB + 1
	initB = initC * 2
	initC = initf()
	order []string
)

func initf() int { order = append(order, "f"); return 3 }

func P_init_order() string { return fmt.Sprint(initA, initB, initC, order) }

type box struct{ v T }

func P_struct_reassign_ptr() string {
	t := T{1, 2}
	p := &t
	t = T{5, 6}
	return fmt.Sprint(*p, p.A)
}
func P_struct_reassign_closure() string {
	t := T{1, 2}
	get := func() int { return t.A }
	t = T{5, 6}
	a := get()
	t = T{B: 1}
	return fmt.Sprint(a, get())
}
func P_struct_reassign_field_ptr() string {
	b := box{T{1, 2}}
	p := &b.v
	b.v = T{9, 9}
	b = box{T{7, 7}}
	return fmt.Sprint(*p)
}
func P_struct_reassign_slice_elem_ptr() string {
	s := []T{{1, 1}, {2, 2}}
	p := &s[1]
	s[1] = T{8, 8}
	return fmt.Sprint(*p)
}
func P_arr_reassign_ptr() string {
	a := [3]int{1, 2, 3}
	p := &a
	a = [3]int{7, 8, 9}
	q := &a[1]
	a = [3]int{4, 5, 6}
	return fmt.Sprint(*p, *q)
}
func P_copy_value() string {
	a := [2]T{{1, 1}, {2, 2}}
	b := a
	b[0].A = 9
	s := struct{ Arr [2]int }{[2]int{1, 2}}
	s2 := s
	s2.Arr[0] = 5
	return fmt.Sprint(a, b, s, s2)
}

type item struct {
	pos  ssd.Pos
	prio int
	idx  int
}
type pq []*item

func (q pq) Len() int { return len(q) }
func (q pq) Less(i, j int) bool {
	if q[i].prio != q[j].prio {
		return q[i].prio < q[j].prio
	}
	return q[i].pos.R*100+q[i].pos.C < q[j].pos.R*100+q[j].pos.C
}
func (q pq) Swap(i, j int) { q[i], q[j] = q[j], q[i]; q[i].idx = i; q[j].idx = j }
func (q *pq) Push(x any)   { it := x.(*item); it.idx = len(*q); *q = append(*q, it) }
func (q *pq) Pop() any     { old := *q; n := len(old); it := old[n-1]; *q = old[:n-1]; return it }
func P_heap() string {
	q := &pq{}
	heap.Init(q)
	for i, p := range []int{5, 3, 8, 1, 3} {
		heap.Push(q, &item{pos: ssd.Pos{i, p}, prio: p})
	}
	out := ""
	for q.Len() > 0 {
		it := heap.Pop(q).(*item)
		out += fmt.Sprint(it.prio, it.pos.R, " ")
	}
	return out
}

type ih []int

func (h ih) Len() int           { return len(h) }
func (h ih) Less(i, j int) bool { return h[i] < h[j] }
func (h ih) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *ih) Push(x any)        { *h = append(*h, x.(int)) }
func (h *ih) Pop() any          { o := *h; n := len(o); x := o[n-1]; *h = o[:n-1]; return x }
func P_heap_int() string {
	h := &ih{5, 2, 8}
	heap.Init(h)
	heap.Push(h, 3)
	(*h)[0] = 10
	heap.Fix(h, 0)
	out := ""
	for h.Len() > 0 {
		out += fmt.Sprint(heap.Pop(h))
	}
	return out
}

type byDist []ssd.Pos

func (b byDist) Len() int           { return len(b) }
func (b byDist) Less(i, j int) bool { return b[i].R+b[i].C < b[j].R+b[j].C }
func (b byDist) Swap(i, j int)      { b[i], b[j] = b[j], b[i] }
func P_sort_sort() string {
	s := byDist{{3, 3}, {1, 0}, {2, 2}, {0, 0}}
	sort.Sort(s)
	sort.Stable(sort.Reverse(s))
	return fmt.Sprint(s)
}
func P_sort_slice() string {
	type cand struct {
		p ssd.Pos
		d int
	}
	cs := []cand{{ssd.Pos{1, 1}, 3}, {ssd.Pos{0, 2}, 1}, {ssd.Pos{2, 0}, 3}, {ssd.Pos{4, 4}, 0}}
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].d != cs[j].d {
			return cs[i].d < cs[j].d
		}
		return cs[i].p.R < cs[j].p.R
	})
	idx := sort.Search(len(cs), func(i int) bool { return cs[i].d >= 3 })
	keys := []string{"b", "a", "c"}
	sort.Strings(keys)
	return fmt.Sprint(cs, idx, keys, strings.Join(keys, ","))
}
