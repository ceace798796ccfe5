package sandbox

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"strings"
)

// One meaning for what Go leaves to the implementation.
//
// The Go specification leaves a few results to the implementation, and
// the two backends, or the same backend on two architectures, then
// compute different things from the same policy:
//
//   - a conversion of a float to an integer type whose value is out of
//     range, or NaN: amd64 gives the most negative value of 64 bits then
//     truncates (int32(3e9) is -2147483648, int8(3e9+7) is 0), arm64
//     saturates, the interpreter wraps;
//   - the sign and payload of a NaN that an operation produces: amd64's
//     default NaN has the sign bit set, arm64's not, seen by
//     math.Float64bits, Float32bits, Signbit and Copysign;
//   - the math functions that have assembly versions on some
//     architectures and not on others (math.Exp, Log, Hypot and the
//     functions built on them), whose last bits differ;
//   - fused multiply-add: the compiler may fuse x*y+z into one rounding
//     on arm64 (not on amd64 with GOAMD64=v1, what native builds use):
//     native builds on other architectures turn fusion off for every
//     package (see policyGCFlags);
//
// and the interpreter gets some defined operations wrong:
//
//   - a shift by a negative count (a run-time panic in Go) gives 0;
//   - float32 of a 64-bit integer rounds twice (through float64).
//
// definedOps rewrites these, on both backends (the interpreter's own
// cases on the yaegi backend only), into calls of helpers with one
// defined result: a float converted to an integer type saturates (NaN
// gives 0, a value beyond the type's range its nearest bound, anything
// else truncates toward zero as Go does); NaN bits are the quiet
// positive NaN; a negative shift count panics with Go's message;
// float32 of a 64-bit integer rounds once. It refuses the math
// functions whose results depend on the architecture, on every backend.
// docs/yaegi.md, "One meaning on every machine", lists them.

// archMath are the math functions whose results differ between
// architectures: an assembly version on some (Exp on amd64 and arm64,
// Exp2 on arm64, Log on amd64, Hypot on amd64) and the portable Go one
// on others, or built on one of those. math.Pow is among them only
// with an exponent that is not a constant integer or ±0.5 (the others
// never reach Exp or Log).
var archMath = map[string]bool{
	"Exp": true, "Exp2": true, "Log": true, "Log10": true, "Log2": true, "Hypot": true,
	"Sinh": true, "Cosh": true, "Tanh": true, "Asinh": true, "Acosh": true,
	"Erf": true, "Erfc": true, "Erfinv": true, "Erfcinv": true, "Gamma": true, "Lgamma": true,
	"J0": true, "J1": true, "Jn": true, "Y0": true, "Y1": true, "Yn": true,
}

// nanObservers are the math functions that expose a NaN's sign or
// payload; their argument is made canonical first.
var nanObservers = map[string]string{
	"Float64bits": "f64", "Float32bits": "f32", "Signbit": "f64",
}

// definedOps adds the rewrites above to rw. forYaegi adds the
// interpreter's own cases (shifts, float32 of 64-bit integers). Without
// type information it does nothing: the yaegi backend then refuses
// what it cannot type (see allowList).
func (rw *rewriter) definedOps(forYaegi bool) {
	if rw.c.Info == nil {
		return
	}
	called := map[*ast.SelectorExpr]bool{}
	ast.Inspect(rw.c.File, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			if sel, ok := ast.Unparen(n.Fun).(*ast.SelectorExpr); ok {
				called[sel] = true
			}
			rw.definedCall(n, forYaegi)
		case *ast.SelectorExpr:
			rw.mathValue(n, called[n])
		case *ast.BinaryExpr:
			if forYaegi && (n.Op == token.SHL || n.Op == token.SHR) {
				rw.definedShift(n)
			}
		case *ast.AssignStmt:
			if forYaegi && (n.Tok == token.SHL_ASSIGN || n.Tok == token.SHR_ASSIGN) {
				rw.definedShiftAssign(n)
			}
		}
		return true
	})
}

// mathValue refuses an architecture-dependent math function, and a NaN
// observer used other than in a call (a function value would bypass the
// rewrite).
func (rw *rewriter) mathValue(sel *ast.SelectorExpr, called bool) {
	pkg, ok := sel.X.(*ast.Ident)
	if !ok || !rw.isPackage(pkg, "math") {
		return
	}
	name := sel.Sel.Name
	switch {
	case archMath[name]:
		rw.refuseRow(sel.Pos(), rowArchMath, "math.%s: its last bits differ between the machines policies run on (an assembly version on some architectures, portable Go on others), so no backend runs it; use +, -, *, / and math.Sqrt, which are exact everywhere", name)
	case name == "Pow" && !called:
		rw.refuseRow(sel.Pos(), rowArchMath, "math.Pow as a function value: call it with a constant integer exponent (or ±0.5)")
	case (nanObservers[name] != "" || name == "Copysign") && !called:
		rw.refuseRow(sel.Pos(), rowNaNBits, "math.%s as a function value: call it directly (the sandbox makes the sign of a NaN the same on every machine at its calls)", name)
	}
}

// definedCall rewrites the calls and conversions of the list above.
func (rw *rewriter) definedCall(call *ast.CallExpr, forYaegi bool) {
	info := rw.c.Info
	if tv := info.Types[call]; tv.Value != nil {
		return // a constant: exact
	}
	if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok {
		if pkg, ok := sel.X.(*ast.Ident); ok && rw.isPackage(pkg, "math") {
			rw.mathCall(call, sel.Sel.Name)
		}
		return
	}
	if !info.Types[call.Fun].IsType() || len(call.Args) != 1 {
		return
	}
	to, from := info.TypeOf(call.Fun), info.TypeOf(call.Args[0])
	if info.Types[call.Args[0]].Value != nil {
		return
	}
	if tpMixesFloatInt(from, to) {
		rw.refuseRow(call.Pos(), rowConvTypeParam, "conversion between %s and %s, one a type parameter: a float converted to an integer type needs the sandbox's defined conversion, which it cannot apply to a type parameter; convert with concrete types", from, to)
		return
	}
	tb, ok1 := to.Underlying().(*types.Basic)
	fb, ok2 := from.Underlying().(*types.Basic)
	if !ok1 || !ok2 {
		return
	}
	switch {
	case fb.Info()&types.IsFloat != 0 && tb.Info()&types.IsInteger != 0:
		h := rw.floatToIntHelper(tb.Kind())
		rw.wrap(call.Args[0], h+"(float64(", "))")
	case forYaegi && tb.Kind() == types.Float32 && is64BitInt(fb.Kind()):
		h := rw.int64ToFloat32Helper(fb.Info()&types.IsUnsigned != 0)
		cast := "int64("
		if fb.Info()&types.IsUnsigned != 0 {
			cast = "uint64("
		}
		rw.wrap(call.Args[0], h+"("+cast, "))")
	}
}

func is64BitInt(k types.BasicKind) bool {
	switch k {
	case types.Int, types.Int64, types.Uint, types.Uint64, types.Uintptr:
		return true
	}
	return false
}

// tpMixesFloatInt reports whether a conversion from one type to the
// other involves a type parameter and may convert a float to an integer.
func tpMixesFloatInt(from, to types.Type) bool {
	_, fp := from.(*types.TypeParam)
	_, tp := to.(*types.TypeParam)
	if !fp && !tp {
		return false
	}
	return mayBe(from, types.IsFloat) && mayBe(to, types.IsInteger)
}

// mayBe reports whether a value of t may have a basic type with info.
func mayBe(t types.Type, info types.BasicInfo) bool {
	if tp, ok := t.(*types.TypeParam); ok {
		found := false
		iface := tp.Constraint().Underlying().(*types.Interface)
		if iface.IsMethodSet() {
			return false
		}
		for i := 0; i < iface.NumEmbeddeds(); i++ {
			found = found || unionMayBe(iface.EmbeddedType(i), info)
		}
		return found
	}
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&info != 0
}

func unionMayBe(t types.Type, info types.BasicInfo) bool {
	switch u := t.(type) {
	case *types.Union:
		for i := 0; i < u.Len(); i++ {
			if unionMayBe(u.Term(i).Type(), info) {
				return true
			}
		}
		return false
	case *types.Interface:
		for i := 0; i < u.NumEmbeddeds(); i++ {
			if unionMayBe(u.EmbeddedType(i), info) {
				return true
			}
		}
		return false
	}
	if tp, ok := t.(*types.TypeParam); ok {
		return mayBe(tp, info)
	}
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&info != 0
}

// mathCall canonicalises the argument of a NaN observer, and refuses
// math.Pow with an exponent that would reach Exp and Log.
func (rw *rewriter) mathCall(call *ast.CallExpr, name string) {
	switch {
	case nanObservers[name] != "" && len(call.Args) == 1:
		rw.wrap(call.Args[0], rw.canonNaNHelper(nanObservers[name])+"(", ")")
	case name == "Copysign" && len(call.Args) == 2:
		// The sign of a NaN sign source: positive.
		rw.wrap(call.Args[1], rw.canonNaNHelper("f64")+"(", ")")
	case name == "Pow" && len(call.Args) == 2:
		tv := rw.c.Info.Types[call.Args[1]]
		if tv.Value != nil {
			if f, ok := constant.Float64Val(constant.ToFloat(tv.Value)); ok && (f == float64(int64(f)) || f == 0.5 || f == -0.5) {
				return
			}
		}
		rw.refuseRow(call.Pos(), rowArchMath, "math.Pow with an exponent that is not a constant integer (or ±0.5): its last bits differ between the machines policies run on (it uses math.Exp and math.Log, which have assembly versions on some architectures); multiply in a loop, or use math.Sqrt")
	}
}

// helper returns the name of a helper, adding its declaration (made by
// decl from the name) the first time.
func (rw *rewriter) helper(key string, decl func(name string) string) string {
	if h, ok := rw.helperIdx[key]; ok {
		return h
	}
	h := reservedPrefix + key
	rw.helperIdx[key] = h
	rw.helpers = append(rw.helpers, decl(h))
	return h
}

// floatToIntBounds gives, for an integer kind, the open interval of the
// floats that convert in range, and the kind's bounds.
func floatToIntBounds(k types.BasicKind) (lo, hi, min, max string, loIncl bool) {
	switch k {
	case types.Int8:
		return "-129.0", "128.0", "-128", "127", false
	case types.Int16:
		return "-32769.0", "32768.0", "-32768", "32767", false
	case types.Int32:
		return "-2147483649.0", "2147483648.0", "-2147483648", "2147483647", false
	case types.Int, types.Int64:
		// -2^63-1 is not a float64: the lower bound is included.
		// Bounds spelled so that yaegi, which types large constants
		// itself, reads them right.
		return "-9223372036854775808.0", "9223372036854775808.0", "-9223372036854775807 - 1", "9223372036854775807", true
	case types.Uint8:
		return "-1.0", "256.0", "0", "255", false
	case types.Uint16:
		return "-1.0", "65536.0", "0", "65535", false
	case types.Uint32:
		return "-1.0", "4294967296.0", "0", "4294967295", false
	}
	return "-1.0", "18446744073709551616.0", "0", "^" + types.Typ[k].Name() + "(0)", false
}

// floatToIntHelper returns the helper converting a float64 to the basic
// integer kind k with one defined result.
func (rw *rewriter) floatToIntHelper(k types.BasicKind) string {
	t := types.Typ[k].Name()
	return rw.helper("f2i_"+t, func(h string) string {
		lo, hi, min, max, incl := floatToIntBounds(k)
		below := "!(f > " + lo + ")"
		if incl {
			below = "!(f >= " + lo + ")"
		}
		return fmt.Sprintf("// %s converts f to %s as every backend and machine does: NaN gives 0, a\n"+
			"// value beyond the range its nearest bound, others truncate toward zero.\n"+
			"func %s(f float64) %s {\n\tif f != f {\n\t\treturn 0\n\t}\n\tif %s {\n\t\treturn %s\n\t}\n"+
			"\tif !(f < %s) {\n\t\treturn %s\n\t}\n\treturn %s(f)\n}", h, t, h, t, below, min, hi, max, t)
	})
}

// int64ToFloat32Helper returns the helper that gives the float64 whose
// conversion to float32 is the correctly rounded float32 of a 64-bit
// integer: rounded to odd at 53 bits, so that the one rounding to 24
// bits that follows is the only one that counts.
func (rw *rewriter) int64ToFloat32Helper(unsigned bool) string {
	odd := rw.helper("u2f32", func(h string) string {
		return fmt.Sprintf("// %s is u rounded to odd at 53 bits: float32 of it rounds as float32(u) must.\n"+
			"func %s(u uint64) float64 {\n\tif u < 1<<53 {\n\t\treturn float64(u)\n\t}\n\tsh := uint(0)\n"+
			"\tfor x := u; x >= 1<<53; x >>= 1 {\n\t\tsh++\n\t}\n\tlow := u & (uint64(1)<<sh - 1)\n\tu >>= sh\n"+
			"\tif low != 0 {\n\t\tu |= 1\n\t}\n\treturn float64(u) * float64(uint64(1)<<sh)\n}", h, h)
	})
	if unsigned {
		return odd
	}
	return rw.helper("i2f32", func(h string) string {
		return fmt.Sprintf("// %s is the float64 that float32 rounds as float32(x) must.\n"+
			"func %s(x int64) float64 {\n\tif x < 0 {\n\t\treturn -%s(-uint64(x))\n\t}\n\treturn %s(uint64(x))\n}", h, h, odd, odd)
	})
}

// canonNaNHelper returns the helper that replaces a NaN by the quiet
// positive NaN (of float64, or of float32 when kind is "f32"). Its NaN
// is made from bits by the math package's own functions, exact on every
// machine. It is a method (see negZeroSafe): a -0 argument keeps its
// sign in the interpreter.
func (rw *rewriter) canonNaNHelper(kind string) string {
	m, fns := rw.mathName(), rw.fnsType()
	t, bits, conv := "float64", "0x7ff8000000000000", "Float64frombits"
	if kind == "f32" {
		t, bits, conv = "float32", "0x7fc00000", "Float32frombits"
	}
	h := rw.helper("nan"+kind, func(h string) string {
		return fmt.Sprintf("// %s makes a NaN the quiet positive NaN, on every machine.\n"+
			"func (%s) %s(x %s) %s {\n\tif x != x {\n\t\treturn %s.%s(%s)\n\t}\n\treturn x\n}", h, fns, h, t, t, m, conv, bits)
	})
	return fns + "{}." + h
}

// mathName is the name this file imports math under (the NaN helpers
// are only needed where it does).
func (rw *rewriter) mathName() string {
	for _, im := range rw.c.File.Imports {
		if im.Path.Value == `"math"` {
			if im.Name != nil {
				return im.Name.Name
			}
			return "math"
		}
	}
	return "math"
}

// definedShift rewrites a shift by a non-constant count for the
// interpreter, which shifts by a negative count without the panic Go
// defines: x << s becomes T(shl(U(x), S(s))) with U the result's basic
// type and S int64 or uint64.
func (rw *rewriter) definedShift(b *ast.BinaryExpr) {
	info := rw.c.Info
	if info.Types[b].Value != nil || info.Types[b.Y].Value != nil {
		return
	}
	rt := info.TypeOf(b)
	rb, ok := rt.Underlying().(*types.Basic)
	if !ok || rb.Info()&types.IsInteger == 0 {
		rw.refuseRow(b.OpPos, rowShiftVar, "a shift whose result has type %s", rt)
		return
	}
	name, cast, ok := rw.shiftHelper(b.Op, rb.Kind(), info.TypeOf(b.Y))
	if !ok {
		rw.refuseRow(b.OpPos, rowShiftVar, "a shift by a count of type %s", info.TypeOf(b.Y))
		return
	}
	outer := ""
	if rb.Info()&types.IsUntyped == 0 && !types.Identical(rt, rb) {
		ts, ok := rw.typeString(rt, b.Pos())
		if !ok {
			return
		}
		outer = ts
	}
	ut := types.Typ[basicOf(rb.Kind())].Name()
	rw.edits = append(rw.edits,
		edit{start: rw.off(b.X.Pos()), end: rw.off(b.X.Pos()), text: outer + "(" + name + "(" + ut + "("},
		edit{start: rw.off(b.X.End()), end: rw.off(b.Y.Pos()), text: "), " + cast + "("},
		edit{start: rw.off(b.Y.End()), end: rw.off(b.Y.End()), text: ")))"})
}

// basicOf is the typed kind of an untyped integer kind.
func basicOf(k types.BasicKind) types.BasicKind {
	switch k {
	case types.UntypedInt, types.UntypedRune:
		return types.Int
	}
	return k
}

// shiftHelper returns the helper for a shift of a value of kind k by a
// count of type ct, and the conversion of the count to its parameter.
func (rw *rewriter) shiftHelper(op token.Token, k types.BasicKind, ct types.Type) (name, cast string, ok bool) {
	cb, isBasic := ct.Underlying().(*types.Basic)
	if !isBasic || cb.Info()&types.IsInteger == 0 {
		return "", "", false
	}
	cast, ctn := "int64", "int64"
	if cb.Info()&types.IsUnsigned != 0 {
		cast, ctn = "uint64", "uint64"
	}
	k = basicOf(k)
	t := types.Typ[k].Name()
	width := 64
	switch k {
	case types.Int8, types.Uint8:
		width = 8
	case types.Int16, types.Uint16:
		width = 16
	case types.Int32, types.Uint32:
		width = 32
	}
	signed := types.Typ[k].Info()&types.IsUnsigned == 0
	opName, opText := "shl", "<<"
	beyond := "0"
	if op == token.SHR {
		opName, opText = "shr", ">>"
		if signed {
			beyond = "x >> " + fmt.Sprint(width-1)
		}
	}
	name = rw.helper(opName+"_"+t+"_"+ctn, func(h string) string {
		neg := ""
		if ctn == "int64" {
			neg = "\tif s < 0 {\n\t\tpanic(" + reservedPrefix + "negShift{})\n\t}\n"
			rw.negShiftError()
		}
		return fmt.Sprintf("// %s is x %s s as Go defines it, for the yaegi interpreter.\n"+
			"func %s(x %s, s %s) %s {\n%s\tif s >= %d {\n\t\treturn %s\n\t}\n\treturn x %s s\n}",
			h, opText, h, t, ctn, t, neg, width, beyond, opText)
	})
	return name, cast, true
}

// negShiftError declares the panic value of a negative shift count: an
// error whose message is the Go run time's.
func (rw *rewriter) negShiftError() {
	rw.helper("negShiftDecl", func(string) string {
		return "// " + reservedPrefix + "negShift is the panic of a shift by a negative count.\n" +
			"type " + reservedPrefix + "negShift struct{}\n\n" +
			"func (" + reservedPrefix + "negShift) Error() string { return \"runtime error: negative shift amount\" }"
	})
}

// definedShiftAssign rewrites x <<= s, for a simple x (a variable, or
// fields of one), into x = x << s rewritten as above; refused otherwise.
func (rw *rewriter) definedShiftAssign(as *ast.AssignStmt) {
	info := rw.c.Info
	if len(as.Lhs) != 1 || len(as.Rhs) != 1 || info.Types[as.Rhs[0]].Value != nil {
		return
	}
	lhs := as.Lhs[0]
	if !simpleOperand(lhs) {
		rw.refuseRow(as.TokPos, rowShiftAssign, "%s by a variable count with a left side that calls or computes (%s); write x = x %s s", as.Tok, rw.text(lhs), strings.TrimSuffix(as.Tok.String(), "="))
		return
	}
	lt := info.TypeOf(lhs)
	lb, ok := lt.Underlying().(*types.Basic)
	if !ok {
		return
	}
	op := token.SHL
	if as.Tok == token.SHR_ASSIGN {
		op = token.SHR
	}
	name, cast, ok := rw.shiftHelper(op, lb.Kind(), info.TypeOf(as.Rhs[0]))
	if !ok {
		rw.refuseRow(as.TokPos, rowShiftVar, "a shift by a count of type %s", info.TypeOf(as.Rhs[0]))
		return
	}
	outer := ""
	if !types.Identical(lt, lb) {
		ts, ok := rw.typeString(lt, lhs.Pos())
		if !ok {
			return
		}
		outer = ts
	}
	ut := types.Typ[lb.Kind()].Name()
	l := rw.text(lhs)
	if strings.Contains(l, "\n") {
		rw.refuseRow(as.TokPos, rowShiftAssign, "%s by a variable count with a left side on several lines", as.Tok)
		return
	}
	rw.edits = append(rw.edits,
		edit{start: rw.off(as.TokPos), end: rw.off(as.Rhs[0].Pos()), text: "= " + outer + "(" + name + "(" + ut + "(" + l + "), " + cast + "("},
		edit{start: rw.off(as.Rhs[0].End()), end: rw.off(as.Rhs[0].End()), text: ")))"})
}

// simpleOperand reports whether e is a variable, or a field, element or
// pointee of one indexed by variables and constants: an operand that can
// be evaluated twice with the same result and no effect.
func simpleOperand(e ast.Expr) bool {
	switch x := ast.Unparen(e).(type) {
	case *ast.Ident:
		return true
	case *ast.SelectorExpr:
		return simpleOperand(x.X)
	case *ast.StarExpr:
		return simpleOperand(x.X)
	case *ast.IndexExpr:
		return simpleOperand(x.X) && (simpleOperand(x.Index) || isBasicLit(x.Index))
	}
	return false
}

func isBasicLit(e ast.Expr) bool {
	_, ok := ast.Unparen(e).(*ast.BasicLit)
	return ok
}
