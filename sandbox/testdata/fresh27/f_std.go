package policy

import (
	"container/heap"
	"fmt"
	"math"
	"math/bits"
	"sort"
	"ssd"
	"strconv"
	"strings"
)

func Policy(v *ssd.View, agent int) int { return 0 }

type minHeap []ssd.Pos

func (h minHeap) Len() int           { return len(h) }
func (h minHeap) Less(i, j int) bool { return h[i].R*10+h[i].C < h[j].R*10+h[j].C }
func (h minHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *minHeap) Push(x any)        { *h = append(*h, x.(ssd.Pos)) }
func (h *minHeap) Pop() any          { o := *h; n := len(o); x := o[n-1]; *h = o[:n-1]; return x }

func P_heap_of_pos() string {
	h := &minHeap{{3, 1}, {1, 2}, {2, 2}}
	heap.Init(h)
	heap.Push(h, ssd.Pos{R: 0, C: 9})
	out := ""
	for h.Len() > 0 {
		p := heap.Pop(h).(ssd.Pos)
		out += fmt.Sprint(p.R, p.C, ";")
	}
	return out
}
func P_strings_builder() string {
	var b strings.Builder
	for i := 0; i < 3; i++ {
		b.WriteString(strconv.Itoa(i))
		b.WriteByte(',')
	}
	return b.String() + fmt.Sprint(b.Len())
}
func P_strings_funcs() string {
	s := " Hello, World "
	return fmt.Sprint(strings.TrimSpace(s), strings.Fields(s), strings.Split("a,b,,c", ","), strings.Repeat("ab", 3),
		strings.Index(s, "o"), strings.ToUpper(s), strings.Contains(s, "World"), strings.Join([]string{"x", "y"}, "-"))
}
func P_strconv_parse_errors() string {
	a, err := strconv.Atoi("12x")
	b, err2 := strconv.ParseInt("-0x1f", 0, 64)
	c := strconv.Quote("tab\there")
	return fmt.Sprint(a, err != nil, b, err2 == nil, c)
}
func P_strconv_format_float() string {
	return strconv.FormatFloat(1.0/3, 'f', 4, 64) + " " + strconv.FormatFloat(2.5e-10, 'g', -1, 64) + " " + strconv.FormatInt(-255, 16)
}
func P_math_bits() string {
	x := uint64(0xf0f0)
	return fmt.Sprint(bits.OnesCount64(x), bits.LeadingZeros64(x), bits.TrailingZeros32(uint32(x)), bits.Reverse8(0x12), bits.Len(255))
}
func P_math_rounding() string {
	xs := []float64{2.5, -2.5, 3.5, -0.4}
	out := ""
	for _, x := range xs {
		out += fmt.Sprint(math.Round(x), math.RoundToEven(x), math.Floor(x), math.Ceil(x), math.Trunc(x), " ")
	}
	return out
}
func P_math_minmax_nan_inf() string {
	return fmt.Sprint(math.Max(1, math.Inf(-1)), math.Min(-0.0, 0.0), math.IsInf(math.Inf(1), 0), math.MaxInt8, math.SmallestNonzeroFloat64 > 0)
}
func P_sort_strings_and_reverse() string {
	s := []string{"pear", "apple", "fig"}
	sort.Strings(s)
	t := []int{3, 1, 2}
	sort.Sort(sort.Reverse(sort.IntSlice(t)))
	return fmt.Sprint(s, t)
}
func P_strings_map_and_fields_func() string {
	up := strings.Map(func(r rune) rune {
		if r == 'a' {
			return 'A'
		}
		return r
	}, "banana")
	parts := strings.FieldsFunc("a1b2c3", func(r rune) bool { return r >= '0' && r <= '9' })
	return fmt.Sprint(up, parts)
}
func P_math_sqrt_pow_int() string {
	return fmt.Sprint(math.Sqrt(2), math.Pow(3, 4), math.Pow(2, -2), math.Abs(-7.5), math.Mod(7, 3))
}
func P_strings_replacer() string {
	r := strings.NewReplacer("a", "1", "b", "2")
	return r.Replace("abcab")
}
