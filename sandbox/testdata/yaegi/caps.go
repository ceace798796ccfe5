package policy

import (
	"fmt"
	"ssd"
	"strings"
)

func Policy(v *ssd.View, agent int) int { return 0 }

type T struct{ A, B int }

func P_caps() string {
	var s []int
	caps := ""
	for i := 0; i < 6; i++ {
		s = append(s, i)
		caps += fmt.Sprint(cap(s), ",")
	}
	str := "abc"
	b := []byte(str)
	r := []rune(str)
	var bs []byte
	bs = append(bs, str...)
	var ts []T
	ts = append(ts, T{})
	var ps []*int
	ps = append(ps, nil)
	m := make([]int, 0)
	m = append(m, 1, 2, 3)
	x := append([]int(nil), 1, 2, 3)
	y := append(s[:0:0], s...)
	bb := []byte("hello, world, 123456")
	return caps + fmt.Sprint(cap(b), cap(r), cap(bs), cap(ts), cap(ps), cap(m), cap(x), cap(y), cap(bb))
}
func P_caps2() string {
	out := ""
	for _, n := range []int{1, 3, 5, 9, 17} {
		var s []ssd.Pos
		for i := 0; i < n; i++ {
			s = append(s, ssd.Pos{i, i})
		}
		var f []float64
		for i := 0; i < n; i++ {
			f = append(f, 1)
		}
		var st []string
		for i := 0; i < n; i++ {
			st = append(st, "x")
		}
		var by []bool
		for i := 0; i < n; i++ {
			by = append(by, true)
		}
		out += fmt.Sprint(cap(s), cap(f), cap(st), cap(by), " ")
	}
	f := strings.Fields("a b c")
	sp := strings.Split("a,b", ",")
	return out + fmt.Sprint(cap(f), cap(sp))
}
func P_alias_path() string {
	var path []int
	var paths [][]int
	for i := 0; i < 4; i++ {
		path = append(path, i)
		p1 := append(path, 100)
		p2 := append(path, 200)
		paths = append(paths, p1, p2)
	}
	return fmt.Sprint(paths)
}
func P_alias_rune() string {
	r := []rune("ab")
	r2 := append(r, 'c')
	r3 := append(r, 'd')
	return string(r2) + string(r3)
}
func P_alias_bytes() string {
	b := []byte("ab")
	b2 := append(b, 'c')
	b3 := append(b, 'd')
	return string(b2) + string(b3)
}
