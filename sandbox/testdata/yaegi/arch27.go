package policy

// Floats where architectures may differ: sums of products (arm64 fuses
// x*y+z into one rounding unless fusion is off), the math functions the
// native backend admits (portable Go, or exact instructions, on every
// architecture), and float formatting.

import (
	"fmt"
	"math"
	"ssd"
	"strconv"
)

func Policy(v *ssd.View, agent int) int { return 0 }

var xs = []float64{0.1, 1.0 / 3, 2.0 / 3, 1e-8 + 1, 10.000000000000002, -7.25, 3.141592653589793, 1e300, 5e-324}

func P_fused() string {
	out := ""
	for i := range xs {
		for j := range xs {
			x, y, z := xs[i], xs[j], -xs[(i+j)%len(xs)]
			r := x*y + z
			t := x * y
			s := t - z*y
			acc := 0.0
			acc += x * y
			out += fmt.Sprint(math.Float64bits(r), math.Float64bits(s), math.Float64bits(acc-z), " ")
		}
	}
	return out
}

func P_math_allowed() string {
	out := ""
	for _, x := range xs {
		out += fmt.Sprint(math.Float64bits(math.Sin(x)), math.Float64bits(math.Cos(x)), math.Float64bits(math.Tan(x)),
			math.Float64bits(math.Atan(x)), math.Float64bits(math.Atan2(x, 0.7)), math.Float64bits(math.Sqrt(math.Abs(x))),
			math.Float64bits(math.Pow(x, 3)), math.Float64bits(math.Pow(x, 0.5)), math.Float64bits(math.Cbrt(x)),
			math.Float64bits(math.Expm1(x/100)), math.Float64bits(math.Log1p(math.Abs(x))), math.Float64bits(math.Asin(x/1e300)),
			math.Float64bits(math.Floor(x)), math.Float64bits(math.Round(x)), math.Float64bits(math.Mod(x, 0.3)), " ")
	}
	return out
}

func P_format() string {
	out := ""
	for _, x := range xs {
		f, _ := strconv.ParseFloat(strconv.FormatFloat(x*1.1, 'g', -1, 64), 64)
		out += strconv.FormatFloat(x/7, 'e', 17, 64) + strconv.FormatFloat(f, 'f', -1, 32) + " "
	}
	return out
}
