package policy

import (
	"fmt"
	"sort"
	"ssd"
)

func Policy(v *ssd.View, agent int) int { return 0 }

type cell struct {
	pos  ssd.Pos
	dist int
}

var cache = map[int]int{}
var stepCount int

func manhattan(a, b ssd.Pos) int {
	d := 0
	if a.R > b.R {
		d += a.R - b.R
	} else {
		d += b.R - a.R
	}
	if a.C > b.C {
		d += a.C - b.C
	} else {
		d += b.C - a.C
	}
	return d
}

func P_bfs_grid() string {
	walls := map[ssd.Pos]bool{{1, 1}: true, {1, 2}: true, {2, 1}: true}
	start := ssd.Pos{0, 0}
	dist := map[ssd.Pos]int{start: 0}
	q := []ssd.Pos{start}
	for len(q) > 0 {
		p := q[0]
		q = q[1:]
		for _, d := range []ssd.Pos{{0, 1}, {1, 0}, {0, -1}, {-1, 0}} {
			n := ssd.Pos{p.R + d.R, p.C + d.C}
			if n.R < 0 || n.C < 0 || n.R > 3 || n.C > 3 || walls[n] {
				continue
			}
			if _, seen := dist[n]; !seen {
				dist[n] = dist[p] + 1
				q = append(q, n)
			}
		}
	}
	return fmt.Sprint(dist[ssd.Pos{3, 3}], dist[ssd.Pos{2, 2}], len(dist))
}
func P_candidates_sorted() string {
	me := ssd.Pos{2, 2}
	apples := []ssd.Pos{{0, 0}, {2, 4}, {3, 3}, {4, 0}, {2, 1}}
	var cs []cell
	for _, a := range apples {
		cs = append(cs, cell{a, manhattan(me, a)})
	}
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].dist != cs[j].dist {
			return cs[i].dist < cs[j].dist
		}
		if cs[i].pos.R != cs[j].pos.R {
			return cs[i].pos.R < cs[j].pos.R
		}
		return cs[i].pos.C < cs[j].pos.C
	})
	return fmt.Sprint(cs)
}
func P_memo_global() string {
	var fib func(n int) int
	fib = func(n int) int {
		if n < 2 {
			return n
		}
		if v, ok := cache[n]; ok {
			return v
		}
		r := fib(n-1) + fib(n-2)
		cache[n] = r
		return r
	}
	stepCount++
	return fmt.Sprint(fib(50), len(cache) > 0, stepCount)
}
func P_direction_choice() string {
	dirs := [4]string{"N", "E", "S", "W"}
	scores := [4]float64{0.5, 1.25, 1.25, -1}
	best := 0
	for i := 1; i < 4; i++ {
		if scores[i] > scores[best] {
			best = i
		}
	}
	return dirs[best]
}
func P_float_scoring() string {
	w := []float64{0.3, 0.7, 1.1}
	xs := []int{3, 5, 8}
	score := 0.0
	for i, x := range xs {
		score += w[i] * float64(x) / float64(i+1)
	}
	return fmt.Sprintf("%.10f", score)
}
func P_voronoi_like() string {
	agents := []ssd.Pos{{0, 0}, {4, 4}, {0, 4}}
	owner := [5][5]int{}
	for r := 0; r < 5; r++ {
		for c := 0; c < 5; c++ {
			best, bd := -1, 1<<30
			for i, a := range agents {
				d := manhattan(a, ssd.Pos{r, c})
				if d < bd {
					best, bd = i, d
				}
			}
			owner[r][c] = best
		}
	}
	return fmt.Sprint(owner)
}
func P_struct_method_chain() string {
	type vec struct{ x, y int }
	add := func(a, b vec) vec { return vec{a.x + b.x, a.y + b.y} }
	scale := func(a vec, k int) vec { return vec{a.x * k, a.y * k} }
	return fmt.Sprint(scale(add(vec{1, 2}, vec{3, 4}), 3))
}
func P_counting_with_map_sorted_keys() string {
	counts := map[string]int{}
	for _, w := range []string{"a", "b", "a", "c", "b", "a"} {
		counts[w]++
	}
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := ""
	for _, k := range keys {
		out += fmt.Sprint(k, counts[k])
	}
	return out
}
func P_multiple_return_swap() string {
	divmod := func(a, b int) (q, r int) {
		q = a / b
		r = a % b
		return
	}
	q, r := divmod(17, 5)
	q, r = r, q
	return fmt.Sprint(q, r)
}
func P_variadic_sum() string {
	sum := func(base int, xs ...int) int {
		for _, x := range xs {
			base += x
		}
		return base
	}
	parts := []int{1, 2, 3}
	return fmt.Sprint(sum(10), sum(0, 4, 5), sum(1, parts...))
}
