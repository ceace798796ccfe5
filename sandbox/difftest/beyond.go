package difftest

// Constructs at the edges of the yaegi backend's subset: those it runs
// only after a rewrite that gives them one meaning (shifts by variable
// counts, float-to-integer conversions out of range, float32 of 64-bit
// integers, NaN bits, maps keyed by anonymous structs in logical
// operands, local types, assertions it can decide), which must agree;
// and those outside it (generics, assertions and type switches it cannot
// decide, interface values compared inside structs or used in map keys,
// complex numbers, aliases, slice-to-array conversions, pointers to
// zero-size values compared), which it must refuse. The Go compiler
// accepts all of them: the generator writes the language the native
// backend admits, and the differential test shows which side of the
// subset each falls on.

// beyondDecls are the package-level declarations the constructs below
// need, added to fixedDecls.
var beyondDecls = []struct{ name, text string }{
	{"gpick", "// gpick is generic (outside the yaegi subset).\nfunc gpick[T int | float64](a, b T, first bool) T {\n\tif first {\n\t\treturn a\n\t}\n\treturn b\n}\n"},
	{"meters", "// meters shares int16's underlying type: yaegi cannot tell them apart in an interface.\ntype meters int16\n"},
	{"ibox", "// ibox holds an interface value.\ntype ibox struct {\n\tv any\n\tn int\n}\n"},
	{"aint", "// aint is an alias (outside the yaegi subset).\ntype aint = int\n"},
	{"wrapped", "// sizer is embedded in a struct (outside the yaegi subset).\ntype sizer interface{ size() int }\n\ntype fixedSize struct{ n, m int8 }\n\nfunc (f fixedSize) size() int { return int(f.n) + int(f.m) }\n\ntype wrapped struct {\n\tsizer\n\textra int\n}\n"},
}

// inside are the constructs the subset admits after a rewrite.
func (g *gen) insideIdioms() []func(*w, int) {
	return append([]func(*w, int){g.varShifts, g.floatToInts, g.float32OfInt64, g.nanBits, g.anonKeys, g.localType}, g.classIdioms()...)
}

// outside are the constructs the subset refuses.
func (g *gen) outsideIdioms() []func(*w, int) {
	return []func(*w, int){g.genericCall, g.ambiguousAssert, g.ambiguousSwitch, g.ifaceFieldEq, g.ifaceFieldKey,
		g.complexMath, g.aliasUse, g.sliceToArray, g.zeroSizePtrs, g.embeddedIface, g.rangePtrArray, g.rangeFunc,
		g.shapedAssert}
}

// outsideNames name the constructs of outsideIdioms, in order.
var outsideNames = []string{"generic function", "ambiguous type assertion", "ambiguous type switch",
	"== on a struct holding an interface", "map keyed by a struct holding an interface", "complex numbers",
	"type alias", "slice to array conversion", "== on pointers to zero-size values", "struct embedding an interface",
	"range over a pointer to an array", "range over a function", "type assertion to a type shaped like sort.IntSlice"}

// varShifts shifts by counts of every sign and size, a negative one
// panicking (recovered, as Go defines it).
func (g *gen) varShifts(out *w, d int) {
	s, t := g.fresh("sh"), pick(g, []string{"int8", "uint8", "int16", "uint32", "int64", "uint64", "int"})
	x := g.runtimeValue(tInt).s
	out.line("for %s := -2; %s < 70; %s += %d {", s, s, s, 7+g.intn(9))
	out.line("\tfunc() {")
	out.line("\t\tdefer func() {")
	out.line("\t\t\tif recover() != nil {")
	out.line("\t\t\t\t%s = mix(%s, 77)", g.fn.acc, g.fn.acc)
	out.line("\t\t\t}")
	out.line("\t\t}()")
	out.line("\t\ty := %s(%s)", t, x)
	out.line("\t\t%s = mixI(%s, int64(y<<%s)^int64(y>>%s))", g.fn.acc, g.fn.acc, s, s)
	if g.chance(1, 2) {
		out.line("\t\ty >>= %s", s)
		out.line("\t\t%s = mixI(%s, int64(y))", g.fn.acc, g.fn.acc)
	}
	out.line("\t}()")
	out.line("}")
}

// floatToInts converts floats in and out of every integer type's range.
func (g *gen) floatToInts(out *w, d int) {
	f := g.fresh("fl")
	out.line("for _, %s := range []float64{%s, %s * 1e9, %s * -3e18, 1e20, -1e20, math.Inf(1), math.NaN(), 255.9, -0.7} {",
		f, g.runtimeValue(tFloat64).s, g.runtimeValue(tFloat64).s, g.runtimeValue(tFloat64).s)
	t := pick(g, []string{"int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64"})
	out.line("\t%s = mixI(%s, int64(%s(%s)))", g.fn.acc, g.fn.acc, t, f)
	out.line("\t%s = mixI(%s, int64(%s(float32(%s))))", g.fn.acc, g.fn.acc, pick(g, []string{"int32", "uint8", "int64"}), f)
	out.line("}")
}

// float32OfInt64 rounds 64-bit integers to float32 near halfway points.
func (g *gen) float32OfInt64(out *w, d int) {
	x := g.fresh("big")
	out.line("%s := int64(%s)<<%d + 1<<%d + 1", x, g.runtimeValue(tInt).s, 30+g.intn(30), 5+g.intn(20))
	out.line("%s = mixF(%s, float64(float32(%s)))", g.fn.acc, g.fn.acc, x)
	out.line("%s = mixF(%s, float64(float32(uint64(%s))))", g.fn.acc, g.fn.acc, x)
}

// nanBits looks at the bits of NaNs made by operations.
func (g *gen) nanBits(out *w, d int) {
	z := g.fresh("z")
	out.line("%s := %s * 0", z, g.runtimeValue(tFloat64).s)
	out.line("%s = mix(%s, math.Float64bits(%s/%s))", g.fn.acc, g.fn.acc, z, z)
	out.line("%s = mixB(%s, math.Signbit(math.Inf(1)-math.Inf(1)+%s))", g.fn.acc, g.fn.acc, z)
	out.line("%s = mixF(%s, math.Copysign(2, %s/%s))", g.fn.acc, g.fn.acc, z, z)
}

// anonKeys reads a map keyed by an anonymous struct in logical operands.
func (g *gen) anonKeys(out *w, d int) {
	m, r := g.fresh("seen"), g.fresh("r")
	out.line("%s := map[struct{ r, c int }]int{}", m)
	out.line("for %s := 0; %s < 4; %s++ {", r, r, r)
	out.line("\t%s[struct{ r, c int }{%s, %s %% 3}] += %s", m, r, r, g.runtimeValue(tInt).s)
	out.line("\tif %s[struct{ r, c int }{%s, 1}] > 0 && %s[struct{ r, c int }{%s - 1, 2}] >= 0 {", m, r, m, r)
	out.line("\t\t%s = mixI(%s, int64(%s))", g.fn.acc, g.fn.acc, r)
	out.line("\t}")
	out.line("}")
}

// localType declares a type inside the function.
func (g *gen) localType(out *w, d int) {
	t, x := g.fresh("lt"), g.fresh("lv")
	out.line("type %s struct{ a, b int }", t)
	out.line("%s := []%s{{%s, 1}, {2, %s}}", x, t, g.runtimeValue(tInt).s, g.runtimeValue(tInt).s)
	out.line("%s[0], %s[1] = %s[1], %s[0]", x, x, x, x)
	out.line("%s = mixI(%s, int64(%s[0].a*3+%s[1].b))", g.fn.acc, g.fn.acc, x, x)
}

func (g *gen) genericCall(out *w, d int) {
	out.line("%s = mixI(%s, int64(gpick(%s, %s, %s)))", g.fn.acc, g.fn.acc, g.runtimeValue(tInt).s, g.runtimeValue(tInt).s, g.runtimeValue(tBool).s)
	out.line("%s = mixF(%s, gpick[float64](1.5, %s, false))", g.fn.acc, g.fn.acc, g.runtimeValue(tFloat64).s)
}

func (g *gen) ambiguousAssert(out *w, d int) {
	x := g.fresh("ax")
	out.line("var %s any = meters(%s)", x, g.runtimeValue(tInt).s)
	out.line("if n, ok := %s.(int16); ok {", x)
	out.line("\t%s = mixI(%s, int64(n))", g.fn.acc, g.fn.acc)
	out.line("}")
}

func (g *gen) ambiguousSwitch(out *w, d int) {
	x := g.fresh("sx")
	out.line("var %s any = meters(%s)", x, g.runtimeValue(tInt).s)
	out.line("switch %s.(type) {", x)
	out.line("case int16:")
	out.line("\t%s = mix(%s, 1)", g.fn.acc, g.fn.acc)
	out.line("default:")
	out.line("\t%s = mix(%s, 2)", g.fn.acc, g.fn.acc)
	out.line("}")
}

func (g *gen) ifaceFieldEq(out *w, d int) {
	out.line("%s = mixB(%s, ibox{v: int32(%s)} == ibox{v: int64(%s)})", g.fn.acc, g.fn.acc, g.runtimeValue(tInt).s, g.runtimeValue(tInt).s)
}

func (g *gen) ifaceFieldKey(out *w, d int) {
	m := g.fresh("bm")
	out.line("%s := map[ibox]int{}", m)
	out.line("%s[ibox{v: int32(1)}]++", m)
	out.line("%s[ibox{v: int64(1), n: %s %% 2}]++", m, g.runtimeValue(tInt).s)
	out.line("%s = mixI(%s, int64(len(%s)))", g.fn.acc, g.fn.acc, m)
}

func (g *gen) complexMath(out *w, d int) {
	c := g.fresh("cx")
	out.line("%s := complex(%s, 1)", c, g.runtimeValue(tFloat64).s)
	out.line("%s = mixF(%s, real(%s*%s)+imag(%s))", g.fn.acc, g.fn.acc, c, c, c)
}

func (g *gen) aliasUse(out *w, d int) {
	out.line("%s = mixI(%s, int64(aint(%s)+1))", g.fn.acc, g.fn.acc, g.runtimeValue(tInt).s)
}

func (g *gen) sliceToArray(out *w, d int) {
	s := g.fresh("sa")
	out.line("%s := []int{%s, 2, 3}", s, g.runtimeValue(tInt).s)
	out.line("%s = mixI(%s, int64([2]int(%s[1:])[0]))", g.fn.acc, g.fn.acc, s)
}

func (g *gen) zeroSizePtrs(out *w, d int) {
	p := g.fresh("zp")
	out.line("%s, %sb := &struct{}{}, &struct{}{}", p, p)
	out.line("%s = mixB(%s, %s == %sb)", g.fn.acc, g.fn.acc, p, p)
}

func (g *gen) embeddedIface(out *w, d int) {
	out.line("%s = mixI(%s, int64(wrapped{fixedSize{int8(%s), 2}, 1}.size()))", g.fn.acc, g.fn.acc, g.runtimeValue(tInt).s)
}

func (g *gen) rangePtrArray(out *w, d int) {
	a, i, x := g.fresh("pa"), g.fresh("i"), g.fresh("x")
	out.line("%s := [3]int{%s, 2, 3}", a, g.runtimeValue(tInt).s)
	out.line("for %s, %s := range &%s {", i, x, a)
	out.line("\t%s = mixI(%s, int64(%s*%s))", g.fn.acc, g.fn.acc, i, x)
	out.line("}")
}

func (g *gen) rangeFunc(out *w, d int) {
	x := g.fresh("it")
	out.line("for %s := range func(yield func(int) bool) {", x)
	out.line("\tfor k := 0; k < 3 && yield(k); k++ {")
	out.line("\t}")
	out.line("} {")
	out.line("\t%s = mixI(%s, int64(%s))", g.fn.acc, g.fn.acc, x)
	out.line("}")
}
