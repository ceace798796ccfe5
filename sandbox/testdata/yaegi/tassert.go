package policy

import (
	"container/heap"
	"fmt"
	"ssd"
)

func Policy(v *ssd.View, agent int) int { return 0 }

type T struct{ A, B int }

func (t T) Sum() int { return t.A + t.B }

type U struct{ X int }

func P_slice_T() string {
	xs := []any{1, T{1, 2}, &T{3, 4}, U{5}, &U{6}}
	out := ""
	for _, x := range xs {
		if t, ok := x.(T); ok {
			out += fmt.Sprint("T", t.A)
		}
		if t, ok := x.(*T); ok {
			out += fmt.Sprint("PT", t.A)
		}
		if u, ok := x.(U); ok {
			out += fmt.Sprint("U", u.X)
		}
		if u, ok := x.(*U); ok {
			out += fmt.Sprint("PU", u.X)
		}
	}
	return out
}
func P_map_T() string {
	m := map[string]any{"a": T{1, 2}, "b": U{3}}
	t, ok := m["a"].(T)
	u, ok2 := m["b"].(U)
	return fmt.Sprint(t, ok, u, ok2)
}

// refused: type switch case T
func P_switch_slice_bind() string {
	xs := []any{T{1, 2}, &T{3, 4}, U{5}, &U{6}, 7}
	out := ""
	for _, x := range xs {
		switch y := x.(type) {
		case T:
			out += fmt.Sprint("T", y.A)
		case *T:
			out += fmt.Sprint("PT", y.A)
		case U:
			out += fmt.Sprint("U", y.X)
		case *U:
			out += fmt.Sprint("PU", y.X)
		case int:
			out += "i"
		}
	}
	return out
}
func P_direct_assert_panic() string {
	var x any = U{1}
	defer func() { recover() }()
	u := x.(U)
	return fmt.Sprint(u)
}

type ih []int

func (h ih) Len() int           { return len(h) }
func (h ih) Less(i, j int) bool { return h[i] < h[j] }
func (h ih) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *ih) Push(x any)        { *h = append(*h, x.(int)) }
func (h *ih) Pop() any          { o := *h; n := len(o); x := o[n-1]; *h = o[:n-1]; return x }

type th []T

func (h th) Len() int           { return len(h) }
func (h th) Less(i, j int) bool { return h[i].A < h[j].A }
func (h th) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *th) Push(x any)        { *h = append(*h, x.(T)) }
func (h *th) Pop() any          { o := *h; n := len(o); x := o[n-1]; *h = o[:n-1]; return x }
func P_heap_T() string {
	h := &th{}
	heap.Push(h, T{3, 0})
	heap.Push(h, T{1, 0})
	a := heap.Pop(h).(T)
	return fmt.Sprint(a)
}
