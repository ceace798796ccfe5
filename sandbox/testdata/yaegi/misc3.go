package policy

import (
	"fmt"
	"math"
	"sort"
	"ssd"
	"strconv"
	"strings"
)

func Policy(v *ssd.View, agent int) int { return 0 }

type T struct{ A, B int }

func P_overflow() string {
	var a int8 = 127
	a++
	var b uint8 = 0
	b--
	var c int32 = math.MaxInt32
	c += 2
	var d int64 = math.MinInt64
	d = -d
	x := 1 << 62
	x *= 4
	var u uint = 3
	u -= 5
	return fmt.Sprint(a, b, c, d, x, u)
}
func P_conv() string {
	x := 300
	f := -3.7
	g := 1e20
	var u32 uint32 = 1 << 31
	return fmt.Sprint(int8(x), uint8(x), int(f), int64(f), uint8(int(f)), int32(u32), int(float32(0.1)*10), int64(g) == math.MinInt64, uint(x)>>1)
}
func P_divmod() string {
	a, b := -7, 2
	c, d := 7, -2
	var e int8 = -128
	e /= -1
	return fmt.Sprint(a/b, a%b, c/d, c%d, a/-b, -a%b, e, math.Mod(-7, 2), math.Remainder(7, 2))
}
func P_shift() string {
	x := 1
	n := 70
	var u8 uint8 = 200
	var i8 int8 = -100
	s := uint(3)
	return fmt.Sprint(x<<n, -8>>1, u8<<1, u8>>s, i8>>2, i8<<1, 1<<s, int64(x)<<63, x<<63>>63)
}
func P_float_int() string {
	vals := []float64{2.5, -2.5, 3.49999, -0.1, 1e10}
	out := ""
	for _, f := range vals {
		out += fmt.Sprint(int(f), int(math.Round(f)), int(math.Floor(f)), int(math.Ceil(f)), math.Trunc(f), " ")
	}
	return out
}
func P_math() string {
	return fmt.Sprint(math.Abs(-2), math.Max(3, math.NaN()), math.Min(-0.0, 0), math.Sqrt(2), math.Inf(1), math.MaxInt, math.Pow(2, 10), math.Atan2(1, 1), math.Signbit(math.Copysign(0, -1)))
}
func P_strconv() string {
	n, err := strconv.Atoi("12x")
	m, _ := strconv.Atoi("-42")
	f, _ := strconv.ParseFloat("2.5", 64)
	return fmt.Sprint(n, err != nil, m, f, strconv.Itoa(-5), strconv.FormatFloat(1.0/3, 'f', 3, 64), strconv.Quote("a\"b"), strconv.FormatInt(-255, 16))
}
func P_strings() string {
	var sb strings.Builder
	for i := 0; i < 3; i++ {
		sb.WriteString(strconv.Itoa(i))
		sb.WriteByte(',')
		sb.WriteRune('é')
	}
	s := sb.String()
	parts := strings.Split("a,b,,c", ",")
	return fmt.Sprint(s, len(s), parts, len(parts), strings.Repeat("ab", 3), strings.Fields(" x  y "), strings.Contains(s, "1,"), strings.Index(s, "é"), strings.ToUpper("abc"), strings.TrimSpace("  k "), strings.HasPrefix("abc", "ab"))
}
func P_runes() string {
	s := "héllo"
	out := ""
	for i, r := range s {
		out += fmt.Sprint(i, string(r))
	}
	b := []byte(s)
	rs := []rune(s)
	return fmt.Sprint(out, len(b), len(rs), s[1], string(s[0]), strings.Count(s, "l"))
}
func P_labels() string {
	out := 0
outer:
	for i := 0; i < 5; i++ {
		for j := 0; j < 5; j++ {
			if j == 3 {
				continue outer
			}
			if i == 3 {
				break outer
			}
			out += i*10 + j
		}
	}
	cnt := 0
loop:
	for _, x := range []int{1, 2, 3, 4} {
		switch {
		case x == 3:
			break loop
		case x == 1:
			continue loop
		}
		cnt += x
	}
	return fmt.Sprint(out, cnt)
}
func P_goto() string {
	i := 0
again:
	i++
	if i < 5 {
		goto again
	}
	return fmt.Sprint(i)
}
func P_append_alias() string {
	a := make([]int, 3, 10)
	b := append(a, 4)
	c := append(a, 5)
	d := a[:2:2]
	e := append(d, 9)
	f := []int{1, 2, 3}
	g := append(f[:1], 7)
	return fmt.Sprint(b, c, a, e, f, g, cap(d), len(e))
}
func P_append_grow() string {
	var s []int
	caps := ""
	for i := 0; i < 20; i++ {
		s = append(s, i)
		caps += strconv.Itoa(cap(s)) + ","
	}
	var ts []T
	for i := 0; i < 9; i++ {
		ts = append(ts, T{i, i})
	}
	var bs []byte
	bs = append(bs, "hello world"...)
	return fmt.Sprint(caps, cap(ts), cap(bs))
}
func P_copy() string {
	a := []int{1, 2, 3, 4}
	n := copy(a[1:], a)
	b := make([]int, 2)
	m := copy(b, a)
	bs := make([]byte, 3)
	k := copy(bs, "xyz!")
	return fmt.Sprint(a, n, b, m, string(bs), k)
}
func P_three_index() string {
	a := []int{0, 1, 2, 3, 4, 5}
	b := a[1:3:4]
	b = append(b, 10)
	b = append(b, 11)
	b[0] = 99
	return fmt.Sprint(a, b, len(b), cap(b))
}
func P_slice_of_slices() string {
	grid := make([][]int, 3)
	row := make([]int, 3)
	for i := range grid {
		grid[i] = row
	}
	grid[0][1] = 5
	g2 := make([][]int, 2)
	for i := range g2 {
		g2[i] = make([]int, 2)
	}
	g2[1][1] = 3
	return fmt.Sprint(grid, g2)
}
func P_map_struct_val() string {
	m := map[string]T{"a": {1, 2}}
	t := m["a"]
	t.A = 5
	m["b"] = t
	ms := map[int][]int{}
	ms[1] = append(ms[1], 3)
	ms[1] = append(ms[1], 4)
	keys := make([]string, 0)
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	cnt := map[ssd.Pos]int{}
	cnt[ssd.Pos{1, 1}]++
	cnt[ssd.Pos{1, 1}] += 2
	delete(cnt, ssd.Pos{2, 2})
	v, ok := cnt[ssd.Pos{3, 3}]
	return fmt.Sprint(m, ms, keys, cnt, v, ok, len(cnt))
}
func P_struct_cmp() string {
	a, b := T{1, 2}, T{1, 2}
	x, y := [2]T{{1, 1}}, [2]T{{1, 1}}
	p1, p2 := ssd.Pos{1, 2}, ssd.Pos{R: 1, C: 2}
	return fmt.Sprint(a == b, x == y, p1 == p2, a != T{1, 3})
}
func P_closure_loopvar() string {
	var fs []func() int
	for i := 0; i < 3; i++ {
		fs = append(fs, func() int { return i * i })
	}
	for _, p := range []ssd.Pos{{1, 2}, {3, 4}} {
		fs = append(fs, func() int { return p.R + p.C })
	}
	out := 0
	for _, f := range fs {
		out = out*10 + f()
	}
	return fmt.Sprint(out)
}
func P_closure_counter() string {
	mk := func() func() int {
		c := 0
		return func() int { c++; return c }
	}
	a, b := mk(), mk()
	a()
	a()
	return fmt.Sprint(a(), b())
}
func P_recursion() string {
	var fib func(int) int
	fib = func(n int) int {
		if n < 2 {
			return n
		}
		return fib(n-1) + fib(n-2)
	}
	return fmt.Sprint(fib(15))
}
func P_variadic() string {
	sum := func(xs ...int) int {
		s := 0
		for _, x := range xs {
			s += x
		}
		return s
	}
	ys := []int{1, 2, 3}
	return fmt.Sprint(sum(), sum(1, 2), sum(ys...))
}
func P_float_fmt() string {
	x := 0.1 + 0.2
	y := float32(0.1) + float32(0.2)
	return fmt.Sprint(x, y, x == 0.3, math.Floor(-0.5), 1/math.Inf(-1), strconv.FormatFloat(x, 'g', -1, 64))
}
func P_struct_method_val_recv() string {
	t := T{1, 2}
	t.inc()
	p := &t
	p.inc()
	ts := []T{{0, 0}}
	ts[0].inc()
	m := map[int]*T{1: {5, 5}}
	m[1].inc()
	return fmt.Sprint(t, ts, *m[1])
}
func (t *T) inc() { t.A++ }
