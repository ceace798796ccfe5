package policy

import (
	"fmt"
	"math"
	"ssd"
)

func Policy(v *ssd.View, agent int) int { return 0 }

func P_int_overflow_wrap() string {
	var a int8 = 127
	a++
	var b uint16 = 0
	b--
	c := math.MaxInt64
	c += 1
	return fmt.Sprint(a, b, c)
}
func P_div_mod_negative() string {
	out := ""
	for _, a := range []int{7, -7} {
		for _, b := range []int{2, -2} {
			out += fmt.Sprint(a/b, a%b, " ")
		}
	}
	return out
}
func P_min_int_div_minus_one() string {
	x := math.MinInt64
	y := -1
	return fmt.Sprint(x/y, x%y)
}
func P_div_by_zero_panics() string {
	z := 0
	defer func() {
		if recover() != nil {
		}
	}()
	return fmt.Sprint(10 / z)
}
func P_float_div_by_zero() string {
	z := 0.0
	return fmt.Sprint(1/z, -1/z, math.IsNaN(z/z))
}
func P_bit_clear_xor() string {
	a, b := uint8(0b11001100), uint8(0b10101010)
	return fmt.Sprint(a&^b, a^b, ^a, a|b, a&b)
}
func P_shift_by_uint_count() string {
	var s uint = 3
	x := int16(-100)
	return fmt.Sprint(x<<s, x>>s, uint16(x)>>s)
}
func P_shift_by_large_count() string {
	s := 70
	x := int32(-5)
	y := uint64(12345)
	return fmt.Sprint(x<<s, x>>s, y<<s, y>>s)
}
func P_float_to_int_truncation() string {
	fs := []float64{2.9, -2.9, 0.5, -0.5, 1e10}
	out := ""
	for _, f := range fs {
		out += fmt.Sprint(int(f), int32(f), " ")
	}
	return out
}
func P_float_to_uint_negative() string {
	f := -3.7
	g := -0.2
	return fmt.Sprint(uint8(f), uint(g), uint32(f))
}
func P_string_concat_loop() string {
	s := ""
	for i := 0; i < 5; i++ {
		s += string(rune('a'+i)) + "-"
	}
	return s
}
func P_comparison_chain() string {
	a, b, c := 3, 3.5, "x"
	return fmt.Sprint(float64(a) < b, c >= "w", !(a != 3) && c == "x")
}
