package difftest

import (
	"fmt"
	"go/constant"
	"go/token"
	"math"
	"strconv"
	"strings"
)

// ex is a generated expression.
type ex struct {
	s string
	c bool // a constant expression
}

func nc(format string, args ...any) ex { return ex{s: fmt.Sprintf(format, args...)} }

// expr returns an expression of type t; d bounds its depth. It never
// panics at run time and is never a constant that overflows t.
func (g *gen) expr(t *typ, d int) ex {
	if d <= 0 || g.chance(1, 4) {
		return g.leaf(t)
	}
	switch {
	case t.isInt():
		return g.intExpr(t, d)
	case t.isFloat():
		return g.floatExpr(t, d)
	case t.k == kString:
		return g.stringExpr(d)
	case t.k == kBool:
		return g.boolExpr(d)
	case t.k == kStruct:
		return g.structExpr(t, d)
	case t.k == kArray:
		return g.arrayExpr(t, d)
	case t.k == kSlice:
		return g.sliceExpr(t, d)
	case t.k == kMap:
		return g.mapExpr(t, d)
	case t.k == kPtr:
		return g.ptrExpr(t, d)
	case t.k == kFunc:
		return g.funcLit(t, d)
	case t.k == kAny:
		return g.anyExpr(d)
	}
	panic("difftest: no expression for " + t.String())
}

// nonConst returns an expression of t that is not a constant.
func (g *gen) nonConst(t *typ, d int) ex {
	for i := 0; i < 3; i++ {
		if e := g.expr(t, d); !e.c {
			return e
		}
	}
	return g.runtimeValue(t)
}

// runtimeValue is a simple non-constant expression of a basic type.
func (g *gen) runtimeValue(t *typ) ex {
	if vs := g.varsOf(t, false); len(vs) > 0 {
		return nc("%s", pick(g, vs).name)
	}
	base := pick(g, []string{"agent", "v.Step()", "v.NumAlive()", "v.AgentPos(agent).R", "v.AgentPos(agent).C", "v.Orientation(agent)"})
	switch {
	case t.k == kInt:
		return nc("%s", base)
	case t.isInt(), t.isFloat():
		return nc("%s(%s)", t, base)
	case t.k == kString:
		return nc("strconv.Itoa(%s)", base)
	case t.k == kBool:
		return nc("(%s%%2 == 0)", base)
	}
	return g.leaf(t)
}

// leaf is a variable, a literal or a simple value of t.
func (g *gen) leaf(t *typ) ex {
	if vs := g.varsOf(t, false); len(vs) > 0 && g.chance(3, 4) {
		return nc("%s", pick(g, vs).name)
	}
	if p := g.path(t); p != "" && g.chance(1, 2) {
		return nc("%s", p)
	}
	switch {
	case t.isInt(), t.isFloat(), t.k == kString, t.k == kBool:
		if g.chance(1, 3) {
			return g.runtimeValue(t)
		}
		return g.literal(t)
	case t.k == kStruct:
		return g.compositeStruct(t, 0)
	case t.k == kArray:
		return g.compositeArray(t, 0)
	case t.k == kSlice:
		return g.compositeSlice(t, 0)
	case t.k == kMap:
		return g.compositeMap(t, 0)
	case t.k == kPtr:
		return nc("&%s", g.compositeStruct(t.elem, 0).s)
	case t.k == kFunc:
		return g.funcLit(t, 0)
	case t.k == kAny:
		return g.anyExpr(0)
	}
	panic("difftest: no leaf for " + t.String())
}

// literal is a constant of t, representable in t.
func (g *gen) literal(t *typ) ex {
	switch {
	case t.isInt():
		return ex{s: g.intLiteral(t), c: true}
	case t.isFloat():
		return ex{s: pick(g, []string{"0.5", "1.5", "2.0", "-3.25", "0.1", "1e3", "1e-9", "100.0", "3", "0", "-1", "2.5e10", "0.3", "7.0"}), c: true}
	case t.k == kString:
		return ex{s: strconv.Quote(pick(g, []string{"", "a", "ab", "abc", "x y", "é", "日本", "a-b", "A", "zz", "0", "-1"})), c: true}
	case t.k == kBool:
		return ex{s: pick(g, []string{"true", "false"}), c: true}
	}
	return g.leaf(t)
}

func (g *gen) intLiteral(t *typ) string {
	vals := []int64{0, 1, 2, 3, 4, 5, 7, 8, 9, 10, 16, 31, 100, 127, -1, -2, -7, -100, -128}
	if t.bits() >= 16 {
		vals = append(vals, 255, 1000, 32767, -32768, 0x7ff)
	}
	if t.bits() >= 32 {
		vals = append(vals, 1<<20, 1<<31-1, -1<<31, 123456789)
	}
	if t.bits() == 64 {
		vals = append(vals, 1<<40, math.MaxInt64, math.MinInt64, 1<<62)
	}
	for {
		v := pick(g, vals)
		if t.isUnsigned() && v < 0 {
			continue
		}
		if !fits(t, v) {
			continue
		}
		switch {
		case v >= 0 && v < 128 && g.chance(1, 10):
			return strconv.QuoteRune(rune(v))
		case v > 0 && g.chance(1, 8):
			return "0x" + strconv.FormatInt(v, 16)
		case v == math.MinInt64:
			return "-9223372036854775808"
		}
		return strconv.FormatInt(v, 10)
	}
}

func fits(t *typ, v int64) bool {
	b := t.bits()
	if t.isUnsigned() {
		return v >= 0 && (b == 64 || v < 1<<b)
	}
	return b == 64 || (v >= -(1<<(b-1)) && v < 1<<(b-1))
}

// constExpr is an untyped constant expression representable in t: the
// arithmetic of untyped constants (integer division of integer constants
// included) in a typed context.
func (g *gen) constExpr(t *typ) (ex, bool) {
	type cv struct {
		s string
		v constant.Value
	}
	atom := func() cv {
		if len(progConsts) > 0 && g.chance(1, 3) {
			c := pick(g, progConsts)
			return cv{c.name, constant.MakeFromLiteral(c.lit, c.tok, 0)}
		}
		if t.isFloat() && g.chance(1, 3) {
			l := pick(g, []string{"0.5", "2.5", "1.0", "3.0", "0.1"})
			return cv{l, constant.MakeFromLiteral(l, token.FLOAT, 0)}
		}
		n := pick(g, []int64{1, 2, 3, 4, 5, 7, 9, 10, 16, 100})
		return cv{strconv.FormatInt(n, 10), constant.MakeInt64(n)}
	}
	x := atom()
	for i := 0; i < 1+g.intn(3); i++ {
		y := atom()
		ops := []token.Token{token.ADD, token.SUB, token.MUL, token.QUO}
		intOps := x.v.Kind() == constant.Int && y.v.Kind() == constant.Int
		if intOps {
			ops = append(ops, token.REM, token.SHL)
		}
		op := pick(g, ops)
		var v constant.Value
		switch op {
		case token.QUO, token.REM:
			if constant.Sign(y.v) == 0 {
				continue
			}
			if intOps {
				if op == token.QUO {
					op = token.QUO_ASSIGN // integer division
				}
			}
			v = constant.BinaryOp(x.v, op, y.v)
			if op == token.QUO_ASSIGN {
				op = token.QUO
			}
		case token.SHL:
			s, ok := constant.Int64Val(y.v)
			if !ok || s > 8 || s < 0 {
				continue
			}
			v = constant.Shift(x.v, token.SHL, uint(s))
		default:
			v = constant.BinaryOp(x.v, op, y.v)
		}
		x = cv{"(" + x.s + " " + op.String() + " " + y.s + ")", v}
	}
	if !representable(x.v, t) {
		return ex{}, false
	}
	return ex{s: x.s, c: true}, true
}

func representable(v constant.Value, t *typ) bool {
	if t.isFloat() {
		f, _ := constant.Float64Val(v)
		return !math.IsInf(f, 0) && math.Abs(f) < 1e30
	}
	if !t.isInt() {
		return false
	}
	i := constant.ToInt(v)
	if i.Kind() != constant.Int {
		return false
	}
	n, exact := constant.Int64Val(i)
	return exact && fits(t, n)
}

// progConsts are the program's named untyped constants (package level).
var progConsts = []struct {
	name, lit string
	tok       token.Token
}{
	{"kSeven", "7", token.INT}, {"kTwo", "2", token.INT}, {"kHalf", "0.5", token.FLOAT},
	{"kBig", "1000", token.INT}, {"kThird", "3", token.INT},
}

const constDecls = "const (\n\tkSeven = 7\n\tkTwo   = 2\n\tkHalf  = 0.5\n\tkBig   = 1000\n\tkThird = 3\n)\n"

// binary builds x op y with x, y of type t, not both constants.
func (g *gen) binary(t *typ, d int, op string) ex {
	x := g.expr(t, d-1)
	var y ex
	if x.c {
		y = g.nonConst(t, d-1)
	} else {
		y = g.expr(t, d-1)
	}
	if g.chance(1, 2) {
		x, y = y, x
	}
	return nc("(%s %s %s)", x.s, op, y.s)
}

func (g *gen) intExpr(t *typ, d int) ex {
	var ws []int
	ws = append(ws, 3, 3, 2, 2, 1, 1, 2, 2, 2, 2)
	if t.k == kInt {
		ws = append(ws, 6)
	} else {
		ws = append(ws, 0)
	}
	switch g.weighted(ws...) {
	case 0:
		return g.leaf(t)
	case 1:
		return g.binary(t, d, pick(g, []string{"+", "-", "*"}))
	case 2: // division and remainder never by zero
		x := g.expr(t, d-1)
		y := g.nonConst(t, d-1)
		return nc("(%s %s (%s | 1))", x.s, pick(g, []string{"/", "%"}), y.s)
	case 3:
		return g.binary(t, d, pick(g, []string{"&", "|", "^", "&^"}))
	case 4: // shifts by a masked count
		x := g.nonConst(t, d-1)
		s := g.expr(pick(g, intKinds), d-1)
		if s.c {
			return nc("(%s %s %d)", x.s, pick(g, []string{"<<", ">>"}), g.intn(t.bits()+4))
		}
		return nc("(%s %s (uint(%s) & 63))", x.s, pick(g, []string{"<<", ">>"}), s.s)
	case 5:
		x := g.nonConst(t, d-1)
		if t.isUnsigned() {
			return nc("(^%s)", x.s)
		}
		return nc("(%s%s)", pick(g, []string{"-", "^"}), x.s)
	case 6: // conversion
		from := pick(g, append(append([]*typ{}, intKinds...), tFloat64, tFloat32))
		return nc("%s(%s)", t, g.nonConst(from, d-1).s)
	case 7:
		if c, ok := g.constExpr(t); ok {
			return nc("(%s + %s)", g.nonConst(t, d-1).s, c.s)
		}
		return g.leaf(t)
	case 8:
		if e, ok := g.callOf(t, d); ok {
			return e
		}
		return g.leaf(t)
	case 9:
		if p := g.path(t); p != "" {
			return nc("%s", p)
		}
		return g.leaf(t)
	case 10:
		return g.intOnly(d)
	}
	return g.leaf(t)
}

// intOnly: expressions of type int from the policy API, the standard
// library and builtins.
func (g *gen) intOnly(d int) ex {
	switch g.intn(14) {
	case 0:
		if s := g.someOf(kSlice, kMap, kString); s != nil {
			return nc("len(%s)", s.name)
		}
		return nc("len(%s)", g.expr(tString, d-1).s)
	case 1:
		return nc("abs(%s)", g.expr(tInt, d-1).s)
	case 2:
		return nc("int(math.Round(%s))", g.expr(tFloat64, d-1).s)
	case 3:
		return nc("strings.Index(%s, %s)", g.expr(tString, d-1).s, g.literal(tString).s)
	case 4:
		return nc("%s(%s, %s)", pick(g, []string{"min", "max"}), g.expr(tInt, d-1).s, g.expr(tInt, d-1).s)
	case 5:
		return nc("ssd.DirectionToAction(%s, %s, v.Orientation(agent))", g.expr(tInt, d-1).s, g.expr(tInt, d-1).s)
	case 6:
		return nc("v.Distance(%s, %s)", g.expr(tPos, d-1).s, g.expr(sliceOf(tPos), d-1).s)
	case 7:
		return nc("len(v.AgentsAt(%s, %s))", g.expr(tInt, d-1).s, g.expr(tInt, d-1).s)
	case 8:
		return nc("strings.Count(%s, %s)", g.expr(tString, d-1).s, g.literal(tString).s)
	case 9:
		return nc("int(math.Floor(%s / 2))", g.expr(tFloat64, d-1).s)
	case 10:
		return nc("v.Orientation(ix(%s, v.NumAgents()))", g.expr(tInt, d-1).s)
	case 11:
		return nc("ssd.RotationDistance(ix(%s, 4), ix(%s, 4))", g.expr(tInt, d-1).s, g.expr(tInt, d-1).s)
	case 12:
		return nc("v.AppleIndex(%s, %s)", g.expr(tInt, d-1).s, g.expr(tInt, d-1).s)
	}
	return nc("(%s / (%s | 1))", g.expr(tInt, d-1).s, g.nonConst(tInt, d-1).s)
}

// someOf picks a visible variable of one of the kinds.
func (g *gen) someOf(ks ...kind) *variable {
	var out []*variable
	for _, v := range g.visible() {
		for _, k := range ks {
			if v.t.k == k {
				out = append(out, v)
			}
		}
	}
	if len(out) == 0 {
		return nil
	}
	return pick(g, out)
}

func (g *gen) floatExpr(t *typ, d int) ex {
	switch g.weighted(3, 3, 2, 2, 2, 2, 1) {
	case 0:
		return g.leaf(t)
	case 1:
		return g.binary(t, d, pick(g, []string{"+", "-", "*"}))
	case 2:
		x := g.expr(t, d-1)
		y := g.nonConst(t, d-1)
		return nc("(%s / %s)", x.s, y.s)
	case 3:
		from := pick(g, append(append([]*typ{}, intKinds...), tFloat64, tFloat32))
		return nc("%s(%s)", t, g.nonConst(from, d-1).s)
	case 4:
		if c, ok := g.constExpr(t); ok {
			return nc("(%s * %s)", g.nonConst(t, d-1).s, c.s)
		}
		return g.leaf(t)
	case 5:
		if t.k == kFloat32 {
			return nc("float32(%s)", g.mathCall(d).s)
		}
		return g.mathCall(d)
	}
	if e, ok := g.callOf(t, d); ok {
		return e
	}
	if p := g.path(t); p != "" {
		return nc("%s", p)
	}
	return g.leaf(t)
}

func (g *gen) mathCall(d int) ex {
	f := func() string { return g.expr(tFloat64, d-1).s }
	switch g.intn(12) {
	case 0:
		return nc("math.Abs(%s)", f())
	case 1:
		return nc("math.Max(%s, %s)", f(), f())
	case 2:
		return nc("math.Min(%s, %s)", f(), f())
	case 3:
		return nc("math.Sqrt(math.Abs(%s))", f())
	case 4:
		return nc("math.Floor(%s)", f())
	case 5:
		return nc("math.Ceil(%s)", f())
	case 6:
		return nc("math.Round(%s)", f())
	case 7:
		return nc("math.Copysign(%s, %s)", f(), f())
	case 8:
		return nc("math.Trunc(%s)", f())
	case 9:
		return nc("math.Pow(%s, %d)", f(), g.intn(4))
	case 10:
		return nc("math.Mod(%s, %s)", f(), f())
	}
	return nc("math.Inf(%d)", pick(g, []int{1, -1}))
}

func (g *gen) stringExpr(d int) ex {
	i := func() string { return g.expr(tInt, d-1).s }
	s := func() string { return g.expr(tString, d-1).s }
	switch g.intn(14) {
	case 0, 1:
		return g.leaf(tString)
	case 2, 3:
		return nc("(%s + %s)", s(), s())
	case 4:
		return nc("strconv.Itoa(%s)", i())
	case 5:
		return nc("strconv.FormatFloat(%s, 'f', %d, 64)", g.expr(tFloat64, d-1).s, g.intn(4))
	case 6:
		return nc("strings.Repeat(%s, ix(%s, 3))", s(), i())
	case 7:
		return nc("strings.%s(%s)", pick(g, []string{"ToUpper", "ToLower", "TrimSpace"}), s())
	case 8:
		return nc("string(rune(%d + ix(%s, 26)))", 'a', i())
	case 9:
		return nc("strings.Join(%s, %s)", g.expr(sliceOf(tString), d-1).s, g.literal(tString).s)
	case 10:
		return nc("strings.ReplaceAll(%s, %s, %s)", s(), g.literal(tString).s, g.literal(tString).s)
	case 11:
		return nc("sub(%s, %s, %s)", s(), i(), i())
	case 12:
		return nc("strconv.FormatInt(int64(%s), %d)", i(), 2+g.intn(35))
	}
	if e, ok := g.callOf(tString, d); ok {
		return e
	}
	return nc("strconv.Quote(%s)", s())
}

func (g *gen) boolExpr(d int) ex {
	switch g.intn(11) {
	case 0:
		return g.leaf(tBool)
	case 1, 2: // comparison of ordered values
		t := pick(g, []*typ{tInt, tInt, tFloat64, tString, tUint8, tInt64})
		x := g.expr(t, d-1)
		var y ex
		if x.c {
			y = g.nonConst(t, d-1)
		} else {
			y = g.expr(t, d-1)
		}
		return nc("(%s %s %s)", x.s, pick(g, []string{"==", "!=", "<", "<=", ">", ">="}), y.s)
	case 3: // equality of comparable composites
		t := g.someComparable()
		return nc("(%s %s %s)", g.nonConst(t, d-1).s, pick(g, []string{"==", "!="}), g.expr(t, d-1).s)
	case 4:
		return nc("(%s %s %s)", g.expr(tBool, d-1).s, pick(g, []string{"&&", "||"}), g.expr(tBool, d-1).s)
	case 5:
		return nc("!%s", g.nonConst(tBool, d-1).s)
	case 6:
		return nc("v.%s(%s, %s)", pick(g, []string{"Wall", "AppleAt", "InBounds", "WasteAt", "IsRiver"}), g.expr(tInt, d-1).s, g.expr(tInt, d-1).s)
	case 7:
		return nc("strings.%s(%s, %s)", pick(g, []string{"Contains", "HasPrefix", "HasSuffix"}), g.expr(tString, d-1).s, g.literal(tString).s)
	case 8:
		// The sign of a NaN is left to the compiler (x * -1 may be
		// compiled as -x): Signbit only of numbers.
		return nc("math.%s", pick(g, []string{"IsNaN(" + g.expr(tFloat64, d-1).s + ")", "Signbit(nonNaN(" + g.expr(tFloat64, d-1).s + "))", "IsInf(" + g.expr(tFloat64, d-1).s + ", 0)"}))
	case 9:
		return nc("v.Active(ix(%s, v.NumAgents()))", g.expr(tInt, d-1).s)
	}
	if e, ok := g.callOf(tBool, d); ok {
		return e
	}
	if p := g.path(tBool); p != "" {
		return nc("%s", p)
	}
	return g.leaf(tBool)
}

// someComparable picks a comparable type with values in scope.
func (g *gen) someComparable() *typ {
	var ts []*typ
	for _, v := range g.visible() {
		if v.t.comparable() && v.t.k != kAny && v.t.k != kPtr {
			ts = append(ts, v.t)
		}
	}
	if len(ts) == 0 {
		return tPos
	}
	return pick(g, ts)
}

func (g *gen) structExpr(t *typ, d int) ex {
	switch g.intn(6) {
	case 0, 1:
		return g.compositeStruct(t, d)
	case 2:
		if e, ok := g.callOf(t, d); ok {
			return e
		}
	case 3:
		if p := g.path(t); p != "" {
			return nc("%s", p)
		}
	case 4:
		if t == tPos {
			return pick(g, []ex{
				nc("v.AgentPos(ix(%s, v.NumAgents()))", g.expr(tInt, d-1).s),
				nc("v.ApplePos(ix(%s, v.NumApples()))", g.expr(tInt, d-1).s),
				nc("ssd.Pos{R: %s.R + %s, C: %s.C}", g.leaf(tPos).s, g.expr(tInt, d-1).s, g.leaf(tPos).s),
			})
		}
		if vs := g.varsOf(ptrTo(t), false); len(vs) > 0 {
			return nc("*%s", pick(g, vs).name)
		}
	}
	return g.leaf(t)
}

// compositeStruct is a literal of a named struct: keyed with some fields,
// or positional with all.
func (g *gen) compositeStruct(t *typ, d int) ex {
	var parts []string
	keyed := g.chance(2, 3) || t.ext && t != tPos
	for _, f := range t.fields {
		if keyed && g.chance(1, 3) {
			continue
		}
		val := g.expr(f.t, d-1).s
		if keyed {
			parts = append(parts, f.name+": "+val)
		} else {
			parts = append(parts, val)
		}
	}
	return nc("%s{%s}", t, strings.Join(parts, ", "))
}

func (g *gen) arrayExpr(t *typ, d int) ex {
	switch g.intn(4) {
	case 0, 1:
		return g.compositeArray(t, d)
	case 2:
		if p := g.path(t); p != "" {
			return nc("%s", p)
		}
	}
	return g.leaf(t)
}

func (g *gen) compositeArray(t *typ, d int) ex {
	var parts []string
	switch g.intn(3) {
	case 0: // positional, all
		for i := 0; i < t.n; i++ {
			parts = append(parts, g.expr(t.elem, d-1).s)
		}
	case 1: // a prefix
		for i := 0; i < g.intn(t.n+1); i++ {
			parts = append(parts, g.expr(t.elem, d-1).s)
		}
	default: // keyed
		for i := 0; i < t.n; i++ {
			if g.chance(1, 2) {
				parts = append(parts, fmt.Sprintf("%d: %s", i, g.expr(t.elem, d-1).s))
			}
		}
	}
	return nc("%s{%s}", t, strings.Join(parts, ", "))
}

func (g *gen) sliceExpr(t *typ, d int) ex {
	switch g.intn(9) {
	case 0, 1:
		return g.compositeSlice(t, d)
	case 2:
		if vs := g.varsOf(t, false); len(vs) > 0 {
			s := pick(g, vs).name
			return pick(g, []ex{
				nc("%s[:len(%s)/2]", s, s), nc("%s[len(%s)/2:]", s, s),
				nc("%s[:len(%s)/2:len(%s)/2]", s, s, s), nc("%s[:0]", s),
			})
		}
	case 3:
		if vs := g.varsOf(t, false); len(vs) > 0 {
			return nc("append(%s, %s)", pick(g, vs).name, g.expr(t.elem, d-1).s)
		}
	case 4:
		return nc("make(%s, ix(%s, 4), 4)", t, g.expr(tInt, d-1).s)
	case 5:
		switch {
		case t.elem == tPos:
			return pick(g, []ex{nc("v.Apples()"), nc("v.AppleSpawns()"), nc("v.WasteCells()")})
		case t.elem.k == kInt:
			return pick(g, []ex{nc("v.AgentsAt(%s, %s)", g.expr(tInt, d-1).s, g.expr(tInt, d-1).s),
				nc("v.BeamHitsFrom(agent)")})
		case t.elem.k == kString:
			return pick(g, []ex{nc("strings.Fields(%s)", g.expr(tString, d-1).s),
				nc("strings.Split(%s, %s)", g.expr(tString, d-1).s, g.literal(tString).s)})
		case t.elem == tAgent:
			return nc("v.Agents()")
		}
	case 6:
		if e, ok := g.callOf(t, d); ok {
			return e
		}
	case 7:
		if p := g.path(t); p != "" {
			return nc("%s", p)
		}
	case 8:
		for _, v := range g.visible() {
			if v.t.k == kArray && v.t.elem.same(t.elem) && !v.fixed {
				return nc("%s[:]", v.name)
			}
		}
	}
	return g.leaf(t)
}

func (g *gen) compositeSlice(t *typ, d int) ex {
	n := g.intn(4)
	if g.chance(1, 6) {
		return nc("%s(nil)", t)
	}
	var parts []string
	for i := 0; i < n; i++ {
		parts = append(parts, g.expr(t.elem, d-1).s)
	}
	return nc("%s{%s}", t, strings.Join(parts, ", "))
}

func (g *gen) mapExpr(t *typ, d int) ex {
	switch g.intn(4) {
	case 0, 1:
		return g.compositeMap(t, d)
	case 2:
		return nc("make(%s)", t)
	}
	return g.leaf(t)
}

func (g *gen) compositeMap(t *typ, d int) ex {
	n := g.intn(4)
	var parts []string
	seen := map[string]bool{}
	for i := 0; i < n; i++ {
		k := g.literalKey(t.key)
		if seen[k] {
			continue
		}
		seen[k] = true
		parts = append(parts, k+": "+g.expr(t.elem, d-1).s)
	}
	return nc("%s{%s}", t, strings.Join(parts, ", "))
}

// literalKey is a map key made of constants only (distinct texts are
// distinct keys).
func (g *gen) literalKey(t *typ) string {
	switch {
	case t.isInt():
		return g.caseLiteral(t)
	case t.isFloat(), t.k == kString, t.k == kBool:
		return g.literal(t).s
	case t.k == kStruct:
		var parts []string
		for _, f := range t.fields {
			parts = append(parts, g.literalKey(f.t))
		}
		return t.String() + "{" + strings.Join(parts, ", ") + "}"
	case t.k == kArray:
		var parts []string
		for i := 0; i < t.n; i++ {
			parts = append(parts, g.literalKey(t.elem))
		}
		return t.String() + "{" + strings.Join(parts, ", ") + "}"
	}
	panic("difftest: no literal key of " + t.String())
}

func (g *gen) ptrExpr(t *typ, d int) ex {
	switch g.intn(4) {
	case 0:
		return nc("&%s", g.compositeStruct(t.elem, d).s)
	case 1:
		if vs := g.varsOf(t.elem, true); len(vs) > 0 {
			return nc("&%s", pick(g, vs).name)
		}
	case 2:
		return nc("new(%s)", t.elem)
	}
	return g.leaf(t)
}

func (g *gen) anyExpr(d int) ex {
	t := pick(g, []*typ{tInt, tString, tFloat64, tBool, tPos, tInt8})
	e := g.expr(t, d-1)
	if e.c && !t.defaultKind() {
		return nc("%s(%s)", t, e.s)
	}
	return nc("%s", e.s)
}

// path is an expression that reads a value of t out of a variable in
// scope (a field, an array or slice element, a map value, a pointee), or
// "".
func (g *gen) path(t *typ) string {
	var found []string
	var walk func(e string, u *typ, depth int)
	walk = func(e string, u *typ, depth int) {
		if depth > 0 && u.same(t) {
			found = append(found, e)
		}
		if depth >= 3 {
			return
		}
		switch u.k {
		case kStruct:
			for _, f := range u.fields {
				walk(e+"."+f.name, f.t, depth+1)
				if f.embedded && f.t.ext {
					for _, pf := range f.t.fields { // promoted: x.R for x.Pos.R
						walk(e+"."+pf.name, pf.t, depth+2)
					}
				}
			}
		case kPtr:
			walk("(*"+e+")", u.elem, depth+1)
		case kArray:
			walk(fmt.Sprintf("%s[%d]", e, g.intn(u.n)), u.elem, depth+1)
		case kSlice:
			if depth == 0 {
				g.register(u)
				walk(fmt.Sprintf("at%s(%s, %s)", u.elem.ident(), e, g.runtimeValue(tInt).s), u.elem, depth+1)
			}
		case kMap:
			if depth == 0 && u.key.comparable() {
				walk(fmt.Sprintf("%s[%s]", e, g.literalKey(u.key)), u.elem, depth+1)
			}
		}
	}
	for _, v := range g.visible() {
		walk(v.name, v.t, 0)
	}
	if len(found) == 0 {
		return ""
	}
	return pick(g, found)
}
