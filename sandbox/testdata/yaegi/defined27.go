package policy

// What Go leaves to the machine, given one meaning on every backend
// (defined.go), and what the interpreter gets wrong with defined
// operations: conversions of floats to every integer type in and out of
// range, NaN and infinities; NaN bits; shifts by variable counts of
// every sign, size and type; float32 of 64-bit integers near rounding
// boundaries. And init functions, rerun before every episode.

import (
	"fmt"
	"math"
	"ssd"
)

func Policy(v *ssd.View, agent int) int { return 0 }

type Meters int16

var inits []int

func init() { inits = append(inits, 1) }

func init() { inits = append(inits, len(inits)+1) }

func P_init() string { return fmt.Sprint(inits) }

var floats = []float64{0, -0.5, 0.99, -1, 127.9, 128, -128.7, -129, 255.5, 256, 32767.5, 32768, -32769,
	2147483647.9, 2147483648, -2147483649, 4294967295.5, 4294967296, 9.2e18, 9.3e18, -9.3e18,
	1.8e19, 1.9e19, -1e300, 1e300, math.Inf(1), math.Inf(-1), math.NaN()}

func P_float_to_ints() string {
	out := ""
	for _, f := range floats {
		out += fmt.Sprint(int(f), int8(f), int16(f), int32(f), int64(f), uint(f), uint8(f), uint16(f), uint32(f), uint64(f), uintptr(f), Meters(f), " ")
	}
	return out
}

func P_float32_to_ints() string {
	out := ""
	for _, f := range floats {
		g := float32(f)
		out += fmt.Sprint(int(g), int8(g), int32(g), uint8(g), uint64(g), " ")
	}
	return out
}

func P_nan_bits() string {
	zero := 0.0
	n := zero / zero
	inf := math.Inf(1)
	m := inf - inf
	var f32 float32 = float32(n)
	return fmt.Sprint(math.Float64bits(n), math.Float64bits(m), math.Float64bits(-n), math.Signbit(n), math.Signbit(-m),
		math.Float32bits(f32), math.Float32bits(-f32), math.Copysign(1, n), math.Copysign(1, -n), math.Signbit(math.Copysign(0, -1)))
}

func P_shifts() string {
	out := ""
	for _, s := range []int{0, 1, 7, 8, 15, 16, 31, 32, 63, 64, 65, 200} {
		x, y := int8(-3), uint8(200)
		var z int64 = -5
		var u uint32 = 0xdeadbeef
		out += fmt.Sprint(x<<s, x>>s, y<<s, y>>s, z<<s, z>>s, u<<s, u>>s, 1<<s, Meters(7)<<s, " ")
	}
	var us uint16 = 40
	out += fmt.Sprint(int32(-9)>>us, 3<<us)
	return out
}

func P_shift_assign() string {
	x, s := int32(-77), 3
	x <<= s
	y := uint8(0x81)
	y >>= s
	type pair struct{ a int }
	p := pair{5}
	p.a <<= s
	return fmt.Sprint(x, y, p.a)
}

func P_shift_negative() string {
	s := -1
	defer func() { recover() }()
	return fmt.Sprint(1 << s)
}

func P_shift_negative_assign() string {
	s, x := -2, 5
	defer func() { recover() }()
	x >>= s
	return fmt.Sprint(x)
}

func P_float32_of_int64() string {
	out := ""
	for _, x := range []int64{1<<53 + 1<<29 + 1, 1<<53 + 1<<29, 1<<62 + 1<<38 + 1, -(1<<53 + 1<<29 + 1), 16777217, -16777217, 1<<63 - 1, -1 << 63, 3} {
		u := uint64(x)
		out += fmt.Sprint(float32(x), float32(u), float32(int(x)), float32(uint(u)), " ")
	}
	return out
}
