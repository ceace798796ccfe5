package policy

import (
	"fmt"
	"math"
	"ssd"
	"strings"
)

func Policy(v *ssd.View, agent int) int { return 0 }

type Dist uint8
type Pair [2]int
type Vec struct{ X, Y float64 }

func (v Vec) Len() float64 { return math.Sqrt(v.X*v.X + v.Y*v.Y) }

const (
	A = iota * 10
	B
	C
	_
	E
)

type Mode int

const (
	Idle Mode = iota
	Hunt
	Flee
)

func P_iota_consts() string { return fmt.Sprint(A, B, C, E, Hunt, Flee) }
func P_named_uint8_overflow() string {
	var d Dist = 250
	d += 10
	return fmt.Sprint(d, uint8(d)*2)
}
func P_array_type_named_eq() string {
	a, b := Pair{1, 2}, Pair{1, 2}
	return fmt.Sprint(a == b, a != Pair{2, 1})
}
func P_float_vec_len() string {
	v := Vec{3, 4}
	return fmt.Sprint(v.Len(), Vec{1, 1}.Len())
}
func P_rune_iteration_unicode() string {
	s := "héllo, 世界"
	out := ""
	for i, r := range s {
		out += fmt.Sprint(i, ":", string(r), " ")
	}
	return out + fmt.Sprint(len(s), len([]rune(s)))
}
func P_byte_slice_string_roundtrip() string {
	b := []byte("abc")
	b[0] = 'z'
	s := string(b)
	b[1] = 'y'
	return s + string(b) + fmt.Sprint(strings.Count("cheese", "e"))
}
func P_string_index_bytes() string {
	s := "héllo"
	return fmt.Sprint(s[1], s[2], len(s[1:3]), s[4:])
}
func P_invalid_utf8_range() string {
	s := string([]byte{'a', 0xff, 'b'})
	out := ""
	for i, r := range s {
		out += fmt.Sprint(i, r, ";")
	}
	return out
}
func P_switch_on_mode() string {
	out := ""
	for _, m := range []Mode{Flee, Idle, Hunt, 7} {
		switch m {
		case Idle:
			out += "i"
		case Hunt, Flee:
			out += "h"
		default:
			out += "?"
		}
	}
	return out
}
func P_int_conversion_truncation() string {
	x := 0x12345678
	return fmt.Sprint(int8(x), uint8(x), int16(x), uint16(x), int32(x), int64(int32(-x)), uint32(int8(-x)))
}
func P_float32_precision() string {
	var f float32 = 16777216
	f++
	g := float32(0.1) + float32(0.2)
	return fmt.Sprint(f, g, float64(g) == 0.30000001192092896)
}
func P_negative_zero() string {
	z := 0.0
	n := -z
	return fmt.Sprint(math.Signbit(n), 1/n, n == 0)
}
func P_const_typed_arith() string {
	const big = 1 << 40
	var x int64 = big >> 30
	const f = 1.0 / 3
	var y float32 = f
	return fmt.Sprint(x, y, big/1e12)
}
