package difftest

// The six classes of issue 48, generated: values converted to an
// interface with methods (in a loop, into array elements, map values,
// arguments, results), range variables assigned in the body, tagged
// switches whose case lists call functions, method values promoted
// through embedded pointers, method expressions through pointer types
// called at once, value-receiver Error methods stored in an error — all
// inside the yaegi subset once rewritten, so they must agree; and an
// assertion to a type of the program shaped like a compiled one
// (sort.IntSlice), outside it, which yaegi must refuse.

// classDecls are the package-level declarations the constructs below
// need, added to fixedDecls.
var classDecls = []struct{ name, text string }{
	{"getter", "// getter has methods: a value converted to it is a copy.\ntype getter interface{ get() int }\n"},
	{"cnum", "type cnum uint16\n\nfunc (c cnum) get() int { return int(c) }\n"},
	{"gpair", "type gpair struct{ a, b int }\n\nfunc (p gpair) get() int { return p.a*31 + p.b }\n"},
	{"gtwo", "type gtwo [2]int\n\nfunc (t gtwo) get() int { return t[0]*7 + t[1] }\n"},
	{"innerP", "type innerP struct{ n int }\n\nfunc (i *innerP) pget() int { return i.n }\n\nfunc (i innerP) vget() int { return i.n * 3 }\n"},
	{"outerP", "// outerP embeds a pointer: its promoted methods bind the pointer when evaluated.\ntype outerP struct {\n\t*innerP\n\ttag int\n}\n"},
	{"verr", "// verr has a value-receiver Error.\ntype verr struct{ code int }\n\nfunc (e verr) Error() string { return strconv.Itoa(e.code) }\n"},
	{"shapedInts", "// shapedInts has sort.IntSlice's shape: yaegi cannot tell them apart in an interface.\ntype shapedInts []int\n"},
}

// classIdioms are the classes inside the subset.
func (g *gen) classIdioms() []func(*w, int) {
	return []func(*w, int){g.ifaceCopies, g.rangeAssigned, g.taggedCaseCalls, g.embeddedMethodValues, g.methodExprCalled, g.valueErrors}
}

// ifaceCopies converts values to an interface with methods in the places
// it happens implicitly, then changes the originals.
func (g *gen) ifaceCopies(out *w, d int) {
	gs, t, k := g.fresh("gs"), g.fresh("t"), g.fresh("k")
	x := g.runtimeValue(tInt).s
	switch g.intn(5) {
	case 0: // the loop idiom
		out.line("var %s []getter", gs)
		out.line("for _, %s := range []cnum{cnum(%s), 2, 3} {", t, x)
		out.line("\t%s = append(%s, %s)", gs, gs, t)
		out.line("}")
		out.line("for _, %s := range []gpair{{%s, 1}, {2, 3}} {", t, x)
		out.line("\t%s = append(%s, %s)", gs, gs, t)
		out.line("}")
	case 1: // array elements
		a := g.fresh("arr")
		out.line("%s := [3]gtwo{{%s, 1}, {2, 3}, {4, 5}}", a, x)
		out.line("var %s [3]getter", gs+"a")
		out.line("for %s := range %s {", k, a)
		out.line("\t%s[%s] = %s[%s]", gs+"a", k, a, k)
		out.line("}")
		out.line("%s[0][0], %s[1] = 9, gtwo{7, 7}", a, a)
		out.line("%s := %s[:]", gs, gs+"a")
	case 2: // assignment, then the original changes
		c := g.fresh("c")
		out.line("%s := cnum(%s)", c, x)
		out.line("var %s0 getter = %s", gs, c)
		out.line("%s++", c)
		out.line("%s := []getter{%s0, %s}", gs, gs, c)
		out.line("%s = 40", c)
	case 3: // arguments and results
		p, f := g.fresh("p"), g.fresh("keep")
		out.line("var %s []getter", gs)
		out.line("%s := func(x getter) getter { %s = append(%s, x); return x }", f, gs, gs)
		out.line("%s := gpair{%s, 2}", p, x)
		out.line("%s(%s)", f, p)
		out.line("%s.a = 5", p)
		out.line("%s = append(%s, func() getter { return %s }())", gs, gs, p)
		out.line("%s.b = 6", p)
	default: // map values and composite literals
		c, m := g.fresh("c"), g.fresh("m")
		out.line("%s := cnum(%s)", c, x)
		out.line("%s := map[int]getter{0: %s}", m, c)
		out.line("%s[1] = %s", m, c)
		out.line("%s := []getter{%s, %s[0], %s[1]}", gs, c, m, m)
		out.line("%s = 11", c)
	}
	out.line("for _, %s := range %s {", t+"g", gs)
	out.line("\t%s = mixI(%s, int64(%s.get()))", g.fn.acc, g.fn.acc, t+"g")
	out.line("}")
}

// rangeAssigned assigns the range key or value inside the body.
func (g *gen) rangeAssigned(out *w, d int) {
	i, x, n := g.fresh("i"), g.fresh("x"), g.fresh("n")
	out.line("%s := 0", n)
	src := pick(g, []string{"[]int{3, 1, 4, 1, 5, 9}", "[5]int{2, 7, 1, 8, 2}", "[]int{%s, 2, 3, 4}"})
	if src == "[]int{%s, 2, 3, 4}" {
		src = "[]int{" + g.runtimeValue(tInt).s + ", 2, 3, 4}"
	}
	out.line("for %s, %s := range %s {", i, x, src)
	out.line("\tif %s == %d {", i, 1+g.intn(2))
	out.line("\t\t%s = %d", i, 3+g.intn(3))
	out.line("\t}")
	out.line("\t%s *= 2", x)
	out.line("\t%s += %s*10 + %s", n, i, x)
	out.line("}")
	out.line("%s = mixI(%s, int64(%s))", g.fn.acc, g.fn.acc, n)
}

// taggedCaseCalls switches on a tag with case lists that call functions.
func (g *gen) taggedCaseCalls(out *w, d int) {
	calls, f, r := g.fresh("calls"), g.fresh("cf"), g.fresh("r")
	out.line("%s := 0", calls)
	out.line("%s := func(k int) int { %s = %s*10 + k; return k }", f, calls, calls)
	out.line("%s := 0", r)
	tag := g.runtimeValue(tInt).s + " % 6"
	if g.chance(1, 2) {
		tg := g.fresh("tg")
		out.line("switch %s := %s; %s + 1 {", tg, tag, tg)
	} else {
		out.line("switch %s {", tag)
	}
	out.line("case %s(0), %s(1):", f, f)
	out.line("\t%s = 1", r)
	out.line("case 2, %s(3), %s(4):", f, f)
	out.line("\t%s = 2", r)
	if g.chance(1, 2) {
		out.line("\tfallthrough")
		out.line("case %s(5):", f)
		out.line("\t%s += 5", r)
	}
	out.line("default:")
	out.line("\t%s = 9", r)
	out.line("}")
	out.line("%s = mixI(%s, int64(%s*1000+%s))", g.fn.acc, g.fn.acc, r, calls)
}

// embeddedMethodValues takes method values promoted through an embedded
// pointer, then replaces or changes what it points to.
func (g *gen) embeddedMethodValues(out *w, d int) {
	o, f, h := g.fresh("o"), g.fresh("f"), g.fresh("h")
	out.line("%s := outerP{innerP: &innerP{%s}}", o, g.runtimeValue(tInt).s)
	out.line("%s, %s := %s.pget, %s.vget", f, h, o, o)
	if g.chance(1, 2) {
		out.line("%s.innerP = &innerP{5}", o)
	} else {
		out.line("%s.n = 7", o)
	}
	out.line("%s = mixI(%s, int64(%s()*100+%s()))", g.fn.acc, g.fn.acc, f, h)
}

// methodExprCalled calls method expressions at once, through a pointer
// type for a value method too.
func (g *gen) methodExprCalled(out *w, d int) {
	x := g.fresh("ip")
	out.line("%s := innerP{%s}", x, g.runtimeValue(tInt).s)
	out.line("%s = mixI(%s, int64((*innerP).vget(&%s)+innerP.vget(%s)+(*innerP).pget(&%s)))", g.fn.acc, g.fn.acc, x, x, x)
}

// valueErrors stores a struct with a value-receiver Error in an error.
func (g *gen) valueErrors(out *w, d int) {
	e, es := g.fresh("e"), g.fresh("es")
	out.line("var %s error = verr{%s}", e, g.runtimeValue(tInt).s)
	out.line("var %s []error", es)
	out.line("for _, %s := range []verr{{1}, {2}} {", e+"v")
	out.line("\t%s = append(%s, %s)", es, es, e+"v")
	out.line("}")
	out.line("%s = mixS(%s, %s.Error()+%s[0].Error()+%s[1].Error())", g.fn.acc, g.fn.acc, e, es, es)
}

// shapedAssert asserts to a type of the program shaped like
// sort.IntSlice (outside the subset).
func (g *gen) shapedAssert(out *w, d int) {
	x := g.fresh("sp")
	out.line("var %s any = sort.IntSlice{%s, 2}", x, g.runtimeValue(tInt).s)
	out.line("if p, ok := %s.(shapedInts); ok {", x)
	out.line("\t%s = mixI(%s, int64(p[0]))", g.fn.acc, g.fn.acc)
	out.line("}")
}
