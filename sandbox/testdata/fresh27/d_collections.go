package policy

import (
	"fmt"
	"sort"
	"ssd"
)

func Policy(v *ssd.View, agent int) int { return 0 }

func P_append_aliasing() string {
	a := make([]int, 3, 10)
	b := append(a, 1)
	c := append(a, 2)
	return fmt.Sprint(b[3], c[3], len(a), cap(b))
}
func P_copy_overlap() string {
	s := []int{1, 2, 3, 4, 5}
	n := copy(s[1:], s)
	return fmt.Sprint(n, s)
}
func P_three_index_slice() string {
	s := []int{1, 2, 3, 4, 5}
	t := s[1:3:3]
	t = append(t, 99)
	return fmt.Sprint(s, t, cap(t) >= 3)
}
func P_map_delete_during_range_count() string {
	m := map[int]int{1: 1, 2: 2, 3: 3, 4: 4}
	for k := range m {
		if k%2 == 0 {
			delete(m, k)
		}
	}
	keys := []int{}
	for k := range m {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	return fmt.Sprint(keys)
}
func P_map_struct_value_update() string {
	type st struct{ n int }
	m := map[string]st{"a": {1}}
	v := m["a"]
	v.n++
	m["a"] = v
	p := map[string]*st{"b": {5}}
	p["b"].n *= 2
	return fmt.Sprint(m["a"].n, p["b"].n)
}
func P_map_pos_keys() string {
	m := map[ssd.Pos]int{}
	m[ssd.Pos{R: 1, C: 2}] = 3
	m[ssd.Pos{1, 2}] += 4
	_, ok := m[ssd.Pos{2, 1}]
	return fmt.Sprint(m[ssd.Pos{R: 1, C: 2}], ok, len(m))
}
func P_array_map_key() string {
	m := map[[2]int]string{{1, 2}: "a"}
	k := [2]int{1, 2}
	m[[2]int{2, 1}] = "b"
	return fmt.Sprint(m[k], len(m))
}
func P_nil_slice_append_len() string {
	var s []string
	fmt.Sprint(s == nil)
	s = append(s, "a")
	var m map[string]int
	return fmt.Sprint(len(s), len(m), m["x"], s != nil)
}
func P_slice_of_slices_grid() string {
	g := make([][]int, 3)
	for i := range g {
		g[i] = make([]int, 3)
		for j := range g[i] {
			g[i][j] = i * j
		}
	}
	row := g[2]
	row[0] = 42
	return fmt.Sprint(g)
}
func P_sort_slice_stable() string {
	type it struct {
		k, v int
	}
	xs := []it{{3, 1}, {1, 2}, {3, 3}, {2, 4}, {1, 5}}
	sort.SliceStable(xs, func(i, j int) bool { return xs[i].k < xs[j].k })
	return fmt.Sprint(xs)
}
func P_sort_search() string {
	xs := []int{1, 3, 5, 7, 9}
	i := sort.Search(len(xs), func(i int) bool { return xs[i] >= 6 })
	return fmt.Sprint(i, sort.SearchInts(xs, 9))
}
func P_make_with_cap_then_reslice() string {
	s := make([]byte, 0, 4)
	s = append(s, 'a', 'b')
	t := s[:4]
	t[3] = 'z'
	return fmt.Sprint(len(t), string(t[:2]), t[3])
}
