package sandbox

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// rewriteForYaegi returns the source the yaegi backend interprets: the
// policy with the constructs yaegi v0.16.1 mishandles replaced by code
// with the same meaning, or a ValidationError naming the ones it cannot
// replace. Edits never add or remove a newline before the end of the
// original text, so every line number stays true; helpers are appended.
//
// Rewritten: the min, max and clear builtins (yaegi has none) become calls
// to generated functions; `for i := range n` over an integer (a compile
// panic in yaegi) becomes a three-clause loop; loop variables captured by a
// closure or whose address is taken get an explicit per-iteration copy
// (yaegi shares one variable across iterations, as Go did before 1.22).
// Refused: range over functions, clear on maps whose keys may be NaN,
// three-clause loop variables that are captured and also modified in the
// body, and min/max/clear when there is no type information (no toolchain).
func rewriteForYaegi(c *Checked) ([]byte, error) {
	rw := &rewriter{c: c, helperIdx: map[string]string{}}
	rw.collect()
	if len(rw.issues) > 0 {
		sort.SliceStable(rw.issues, func(i, j int) bool {
			a, b := rw.issues[i], rw.issues[j]
			return a.Line < b.Line || a.Line == b.Line && a.Col < b.Col
		})
		return nil, &ValidationError{File: PolicyFileName, Issues: rw.issues}
	}
	code, err := rw.apply()
	if err == nil && rewriteHook != nil {
		code = rewriteHook(code)
	}
	return code, err
}

// rewriteHook, when set (by a test, never during a compilation), edits
// every source rewritten for yaegi: a stand-in for an interpreter bug
// that no rewrite knows, to test the cross-check.
var rewriteHook func([]byte) []byte

// refusalPrefix starts every refusal of the yaegi backend, at load or
// at run time.
const refusalPrefix = "the yaegi backend cannot run this"

type edit struct {
	start, end int // byte offsets in the source
	text       string
	// A wrap's two insertions (see wrap): nested wraps that start or end
	// at the same offset must close in the reverse order they open.
	wrap      wrapKind
	span, seq int // the wrapped range's length; the wrap's number
}

type wrapKind uint8

const (
	plainEdit wrapKind = iota
	wrapOpen
	wrapClose
)

type rewriter struct {
	c         *Checked
	edits     []edit
	issues    []Issue
	helpers   []string          // generated declarations, appended to the file
	helperIdx map[string]string // helper key -> name
	loops     int               // counter for fresh loop variable names
	wraps     int               // counter of wraps
	parents   map[ast.Node]ast.Node
	// constSkips are constant expressions left as written (see constSkip).
	constSkips map[ast.Expr]bool
	// note says what the helpers are for, after "Added by policyevolve".
	note string
	// hidden are the policy's declarations that hide a predeclared name
	// the added code needs (see checkAdded).
	hidden []Issue
	// rowsUsed, when not nil, counts the subset rows the policy uses
	// (see allowList); for the evidence test.
	rowsUsed map[rowID]int
	allow    *allowCheck // the subset check, once allowList ran
}

// wrap puts pre before n and post after it.
func (rw *rewriter) wrap(n ast.Node, pre, post string) {
	rw.wraps++
	s, e := rw.off(n.Pos()), rw.off(n.End())
	rw.edits = append(rw.edits,
		edit{start: s, end: s, text: pre, wrap: wrapOpen, span: e - s, seq: rw.wraps},
		edit{start: e, end: e, text: post, wrap: wrapClose, span: e - s, seq: rw.wraps})
}

// wrapOuter is wrap around every other wrap of n, whenever made.
func (rw *rewriter) wrapOuter(n ast.Node, pre, post string) {
	rw.wraps++
	s, e := rw.off(n.Pos()), rw.off(n.End())
	rw.edits = append(rw.edits,
		edit{start: s, end: s, text: pre, wrap: wrapOpen, span: e - s + 1, seq: rw.wraps},
		edit{start: e, end: e, text: post, wrap: wrapClose, span: e - s + 1, seq: rw.wraps})
}

func (rw *rewriter) off(p token.Pos) int { return rw.c.Fset.Position(p).Offset }

func (rw *rewriter) text(n ast.Node) string {
	return string(rw.c.Source[rw.off(n.Pos()):rw.off(n.End())])
}

// object returns what an identifier refers to: from type information when
// available, else from the parser's own resolution (nil for names declared
// outside the file, such as builtins).
func (rw *rewriter) object(id *ast.Ident) any {
	if rw.c.Info != nil {
		if o := rw.c.Info.Uses[id]; o != nil {
			return o
		}
		if o := rw.c.Info.Defs[id]; o != nil {
			return o
		}
		return nil
	}
	if id.Obj != nil {
		return id.Obj
	}
	return nil
}

// isBuiltin reports whether id refers to the builtin of that name.
func (rw *rewriter) isBuiltin(id *ast.Ident, name string) bool {
	if id.Name != name {
		return false
	}
	if rw.c.Info != nil {
		_, ok := rw.c.Info.Uses[id].(*types.Builtin)
		return ok
	}
	return id.Obj == nil // not declared in the file: the universe's
}

func (rw *rewriter) collect() {
	called := map[*ast.SelectorExpr]bool{}
	ast.Inspect(rw.c.File, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok {
			if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok {
				called[sel] = true
			}
		}
		return true
	})
	rw.allowList()
	if rw.c.Info == nil {
		return
	}
	rw.definedOps(true)
	rw.constSkips = rw.constSkip()
	rw.unspecifiedOrder()
	ast.Inspect(rw.c.File, func(n ast.Node) bool {
		if e, ok := n.(ast.Expr); ok && rw.foldConst(e) {
			return false
		}
		switch n := n.(type) {
		case *ast.SelectorExpr:
			// A method expression is rewritten even when called at once:
			// (*T).Add(&t, 1), with Add a value method, failed in yaegi
			// (reflect.Set; issue 48, class 6).
			if !called[n] || rw.isMethodExpr(n) {
				rw.methodValue(n)
			}
			rw.errorsCall(n)
			rw.derefSelector(n)
		case *ast.CallExpr:
			rw.recoverCall(n)
			rw.deleteCall(n)
			rw.parenCall(n)
			return rw.builtinCall(n)
		case *ast.RangeStmt:
			rw.rangeStmt(n)
		case *ast.ForStmt:
			rw.forStmt(n)
			rw.condition(n.Cond)
		case *ast.IfStmt:
			rw.condition(n.Cond)
		case *ast.AssignStmt:
			rw.assignStmt(n)
			rw.callTarget(n)
		case *ast.FuncDecl:
			rw.namedResults(n.Type, n.Body)
		case *ast.FuncLit:
			rw.namedResults(n.Type, n.Body)
		case *ast.ValueSpec:
			rw.valueSpec(n)
		case *ast.SwitchStmt:
			rw.switchStmt(n)
		case *ast.TypeSwitchStmt:
			rw.typeSwitch(n)
		case *ast.DeferStmt:
			rw.deferStmt(n)
		case *ast.LabeledStmt:
			rw.labeled(n)
		case *ast.BinaryExpr:
			rw.binaryExpr(n)
			rw.logicalOperand(n)
		case *ast.MapType:
			rw.mapType(n)
		case *ast.CompositeLit:
			rw.positionalElements(n)
		case *ast.ReturnStmt:
			rw.returnStmt(n)
		}
		return true
	})
	rw.packageInit()
	rw.nilGuards()
	rw.negZeroSafe()
}

// builtinCall rewrites min, max and clear; it returns false when the call
// was replaced whole (its arguments need no further edits).
func (rw *rewriter) builtinCall(call *ast.CallExpr) bool {
	id, ok := ast.Unparen(call.Fun).(*ast.Ident)
	if !ok {
		return true
	}
	name := id.Name
	if !(rw.isBuiltin(id, "min") || rw.isBuiltin(id, "max") || rw.isBuiltin(id, "clear")) {
		return true
	}
	if rw.c.Info == nil {
		rw.refuseRow(call.Pos(), rowNoTypes, "builtin %s needs type information, which needs a Go toolchain; write it out (an if, or a loop)", name)
		return true
	}
	if tv := rw.c.Info.Types[call]; tv.Value != nil {
		// A constant: replace the call by its value.
		lit := constLiteral(tv.Value, tv.Type)
		if b, ok := tv.Type.(*types.Basic); !ok || b.Info()&types.IsUntyped == 0 {
			t, ok := rw.typeString(tv.Type, call.Pos())
			if !ok {
				return false
			}
			lit = t + "(" + lit + ")"
		}
		rw.edits = append(rw.edits, edit{start: rw.off(call.Pos()), end: rw.off(call.End()), text: "(" + lit + ")"})
		return false
	}
	var helper string
	if name == "clear" {
		helper = rw.clearHelper(call)
	} else {
		helper = rw.minMaxHelper(name, call)
	}
	if helper != "" {
		rw.edits = append(rw.edits, edit{start: rw.off(id.Pos()), end: rw.off(id.End()), text: helper})
	}
	return true
}

// constLiteral spells a constant so that it keeps its exact value and its
// kind: floats as a quotient of float literals ("1/10" alone would be the
// integer 0), untyped runes as runes.
func constLiteral(v constant.Value, t types.Type) string {
	switch v.Kind() {
	case constant.String:
		return strconv.Quote(constant.StringVal(v))
	case constant.Float:
		exact := v.ExactString()
		if num, den, ok := strings.Cut(exact, "/"); ok {
			return "(" + num + ".0/" + den + ".0)"
		}
		if !strings.ContainsAny(exact, ".eE") {
			exact += ".0"
		}
		return exact
	case constant.Int:
		if b, ok := t.(*types.Basic); ok && b.Kind() == types.UntypedRune {
			return "rune(" + v.ExactString() + ")"
		}
	}
	return v.ExactString()
}

func (rw *rewriter) minMaxHelper(name string, call *ast.CallExpr) string {
	t := rw.c.Info.TypeOf(call)
	ts, ok := rw.typeString(t, call.Pos())
	if !ok {
		return ""
	}
	key := name + ":" + ts
	if h, ok := rw.helperIdx[key]; ok {
		return h
	}
	h := fmt.Sprintf("%s%s%d", reservedPrefix, name, len(rw.helpers))
	rw.helperIdx[key] = h
	var better string
	b, _ := t.Underlying().(*types.Basic)
	switch {
	case b != nil && b.Info()&types.IsFloat != 0:
		// NaN wins; min prefers -0 to +0, max +0 to -0 (the spec's rules).
		if name == "min" {
			better = "y != y || y < x || (y == 0 && x == 0 && 1/y < 0)"
		} else {
			better = "y != y || y > x || (y == 0 && x == 0 && 1/x < 0)"
		}
		// A method (see negZeroSafe): a -0 argument keeps its sign.
		rw.helpers = append(rw.helpers, fmt.Sprintf(
			"func (%s) %s(x %s, ys ...%s) %s {\n\tfor _, y := range ys {\n\t\tif x != x {\n\t\t\treturn x\n\t\t}\n\t\tif %s {\n\t\t\tx = y\n\t\t}\n\t}\n\treturn x\n}",
			rw.fnsType(), h, ts, ts, ts, better))
		h = rw.fnsType() + "{}." + h
		rw.helperIdx[key] = h
		return h
	case name == "min":
		better = "y < x"
	default:
		better = "y > x"
	}
	rw.helpers = append(rw.helpers, fmt.Sprintf(
		"func %s(x %s, ys ...%s) %s {\n\tfor _, y := range ys {\n\t\tif %s {\n\t\t\tx = y\n\t\t}\n\t}\n\treturn x\n}",
		h, ts, ts, ts, better))
	return h
}

func (rw *rewriter) clearHelper(call *ast.CallExpr) string {
	if len(call.Args) != 1 {
		return ""
	}
	t := rw.c.Info.TypeOf(call.Args[0])
	ts, ok := rw.typeString(t, call.Pos())
	if !ok {
		return ""
	}
	key := "clear:" + ts
	if h, ok := rw.helperIdx[key]; ok {
		return h
	}
	h := fmt.Sprintf("%sclear%d", reservedPrefix, len(rw.helpers))
	switch u := t.Underlying().(type) {
	case *types.Map:
		if mayBeNaN(u.Key()) {
			rw.refuseRow(call.Pos(), rowClearNaN, "clear on a map whose keys may be NaN; delete the keys in a loop")
			return ""
		}
		rw.helpers = append(rw.helpers, fmt.Sprintf(
			"func %s(m %s) {\n\tfor k := range m {\n\t\tdelete(m, k)\n\t}\n}", h, ts))
	case *types.Slice:
		es, ok := rw.typeString(u.Elem(), call.Pos())
		if !ok {
			return ""
		}
		rw.helpers = append(rw.helpers, fmt.Sprintf(
			"func %s(s %s) {\n\tvar zero %s\n\tfor i := range s {\n\t\ts[i] = zero\n\t}\n}", h, ts, es))
	default:
		rw.refuseRow(call.Pos(), rowOther, "clear on %s", ts)
		return ""
	}
	rw.helperIdx[key] = h
	return h
}

// mayBeNaN reports whether a map key of type t can hold a NaN, which
// delete cannot remove but clear does.
func mayBeNaN(t types.Type) bool {
	switch u := t.Underlying().(type) {
	case *types.Basic:
		return u.Info()&(types.IsFloat|types.IsComplex) != 0
	case *types.Interface:
		return true
	case *types.Array:
		return mayBeNaN(u.Elem())
	case *types.Struct:
		for i := 0; i < u.NumFields(); i++ {
			if mayBeNaN(u.Field(i).Type()) {
				return true
			}
		}
	}
	return false
}

// typeString spells t for a helper declared at package level: packages by
// the names this file imports them under. Types declared inside a function
// cannot be named there: refused.
func (rw *rewriter) typeString(t types.Type, at token.Pos) (string, bool) {
	s, ok := rw.qualified(t, at)
	if !ok {
		return "", false
	}
	if rw.localType(t) {
		rw.refuseRow(at, rowLocalType, "type %s is declared inside a function (or is a type parameter); declare it at package level", s)
		return "", false
	}
	return s, true
}

// qualified spells t for code at a place where the types it names are in
// scope: packages by the names this file imports them under.
func (rw *rewriter) qualified(t types.Type, at token.Pos) (string, bool) {
	names := map[*types.Package]string{}
	for _, im := range rw.c.File.Imports {
		p, _ := strconv.Unquote(im.Path.Value)
		for _, ip := range rw.c.Types.Imports() {
			if ip.Path() == p {
				n := ip.Name()
				if im.Name != nil {
					n = im.Name.Name
				}
				names[ip] = n
			}
		}
	}
	ok := true
	s := types.TypeString(t, func(p *types.Package) string {
		if p == rw.c.Types {
			return ""
		}
		n, found := names[p]
		if !found || n == "_" {
			ok = false
		}
		return n
	})
	if !ok {
		rw.refuseRow(at, rowOther, "a helper for type %s would need a package this file does not import", s)
		return "", false
	}
	return s, true
}

// localType reports whether t names a type declared inside a function,
// or a type parameter.
func (rw *rewriter) localType(t types.Type) bool {
	local := false
	var walk func(types.Type)
	seen := map[types.Type]bool{}
	walk = func(t types.Type) {
		if seen[t] {
			return
		}
		seen[t] = true
		switch t := t.(type) {
		case *types.Named:
			if o := t.Obj(); o.Pkg() == rw.c.Types && o.Parent() != rw.c.Types.Scope() {
				local = true
			}
			if args := t.TypeArgs(); args != nil {
				for i := 0; i < args.Len(); i++ {
					walk(args.At(i))
				}
			}
		case *types.Pointer:
			walk(t.Elem())
		case *types.Slice:
			walk(t.Elem())
		case *types.Array:
			walk(t.Elem())
		case *types.Map:
			walk(t.Key())
			walk(t.Elem())
		case *types.Struct:
			for i := 0; i < t.NumFields(); i++ {
				walk(t.Field(i).Type())
			}
		case *types.TypeParam:
			local = true
		}
	}
	walk(t)
	return local
}

func (rw *rewriter) isMethodExpr(sel *ast.SelectorExpr) bool {
	s := rw.c.Info.Selections[sel]
	return s != nil && s.Kind() == types.MethodExpr
}

// methodValue rewrites a method value or method expression whose method
// belongs to a compiled (non-interpreted) type, such as v.AppleAt passed as
// a func(int, int) bool: yaegi v0.16.1 gives it the method expression's
// type. The replacement is a function literal that binds the receiver
// when the expression is evaluated, as a method value does.
func (rw *rewriter) methodValue(sel *ast.SelectorExpr) {
	if rw.c.Info == nil {
		return
	}
	s := rw.c.Info.Selections[sel]
	if s == nil || (s.Kind() != types.MethodVal && s.Kind() != types.MethodExpr) {
		return
	}
	fn, ok := s.Obj().(*types.Func)
	if !ok || fn.Pkg() == nil {
		return
	}
	sig := fn.Type().(*types.Signature)
	var params, args []string
	for i := 0; i < sig.Params().Len(); i++ {
		t := sig.Params().At(i).Type()
		if sig.Variadic() && i == sig.Params().Len()-1 {
			t = t.(*types.Slice).Elem()
			ts, ok := rw.typeString(t, sel.Pos())
			if !ok {
				return
			}
			params = append(params, fmt.Sprintf("%sa%d ...%s", reservedPrefix, i, ts))
			args = append(args, fmt.Sprintf("%sa%d...", reservedPrefix, i))
			continue
		}
		ts, ok := rw.typeString(t, sel.Pos())
		if !ok {
			return
		}
		params = append(params, fmt.Sprintf("%sa%d %s", reservedPrefix, i, ts))
		args = append(args, fmt.Sprintf("%sa%d", reservedPrefix, i))
	}
	var results []string
	for i := 0; i < sig.Results().Len(); i++ {
		ts, ok := rw.typeString(sig.Results().At(i).Type(), sel.Pos())
		if !ok {
			return
		}
		results = append(results, ts)
	}
	res := strings.Join(results, ", ")
	if len(results) > 1 {
		res = "(" + res + ")"
	}
	ret := "return "
	if len(results) == 0 {
		ret = ""
	}
	// A method value binds its receiver when it is evaluated: the address
	// of an addressable value for a pointer method, a copy of the pointee
	// for a value method reached through a pointer.
	recv := s.Recv()
	bind := ""
	_, methodPtr := sig.Recv().Type().(*types.Pointer)
	// A method promoted through embedded fields binds the embedded field
	// that has it, as Go evaluates it: x.Inner, not x (binding x read
	// x.Inner when called, where Go had taken it already; issue 48,
	// class 4).
	path := ""
	if s.Kind() == types.MethodVal {
		for _, k := range s.Index()[:len(s.Index())-1] {
			st, ok := derefType(recv).Underlying().(*types.Struct)
			if !ok {
				return
			}
			f := st.Field(k)
			path += "." + f.Name()
			recv = f.Type()
		}
	}
	if p, xPtr := recv.Underlying().(*types.Pointer); s.Kind() == types.MethodVal {
		switch {
		case methodPtr && !xPtr && !types.IsInterface(recv):
			recv, bind = types.NewPointer(recv), "&"
		case !methodPtr && xPtr:
			recv, bind = p.Elem(), "*"
		}
	}
	recvT, ok := rw.typeString(recv, sel.Pos())
	if !ok {
		return
	}
	r := reservedPrefix + "r"
	inner := fmt.Sprintf("func(%s) %s { %s%s.%s(%s) }", strings.Join(params, ", "), res, ret, r, fn.Name(), strings.Join(args, ", "))
	if s.Kind() == types.MethodExpr {
		// T.M: a function taking the receiver first.
		all := append([]string{r + " " + recvT}, params...)
		text := fmt.Sprintf("(func(%s) %s { %s%s.%s(%s) })", strings.Join(all, ", "), res, ret, r, fn.Name(), strings.Join(args, ", "))
		rw.edits = append(rw.edits, edit{start: rw.off(sel.Pos()), end: rw.off(sel.End()), text: text})
		return
	}
	valT := inner[:strings.Index(inner, " {")] // the method value's func type
	// x.M: evaluate x now, call M on it later.
	prefix := fmt.Sprintf("(func(%s %s) %s { return %s })(%s", r, recvT, valT, inner, bind)
	rw.edits = append(rw.edits,
		edit{start: rw.off(sel.Pos()), end: rw.off(sel.Pos()), text: prefix},
		edit{start: rw.off(sel.X.End()), end: rw.off(sel.End()), text: path + ")"})
}

// derefType is the type t points to, or t.
func derefType(t types.Type) types.Type {
	if p, ok := t.Underlying().(*types.Pointer); ok {
		return p.Elem()
	}
	return t
}

func (rw *rewriter) rangeStmt(r *ast.RangeStmt) {
	var xt types.Type
	if rw.c.Info != nil {
		xt = rw.c.Info.TypeOf(r.X)
		if xt != nil {
			if _, ok := xt.Underlying().(*types.Signature); ok {
				rw.refuseRow(r.For, rowRangeFunc, "range over a function (an iterator)")
				return
			}
		}
	}
	if rw.rangeOverInt(r, xt) || rw.rangeOverString(r, xt) {
		return
	}
	if r.Tok == token.ASSIGN {
		rw.rangeAssign(r)
		return
	}
	if r.Tok != token.DEFINE {
		return
	}
	var captured []string
	for _, e := range []ast.Expr{r.Key, r.Value} {
		// A range variable the body assigns gets the copy too: yaegi
		// iterates with the variable itself, so i = 4 in the body moved
		// the iteration on (issue 48, class 2).
		if id, ok := e.(*ast.Ident); ok && id.Name != "_" && (rw.capturedIn(r.Body, rw.object(id)) || rw.modifiedIn(r.Body, rw.object(id))) {
			captured = append(captured, id.Name)
		}
	}
	if len(captured) > 0 {
		// Range variables are never affected by the body: a copy at the top
		// of each iteration gives exactly Go 1.22's per-iteration variables,
		// and leaves the iteration's own untouched.
		list := strings.Join(captured, ", ")
		rw.wrapBody(r.Body, list+" := "+list+";")
	}
}

// wrapBody puts decl at the top of a loop body and the body itself in a
// block of its own, so that the body may still declare the same names.
func (rw *rewriter) wrapBody(body *ast.BlockStmt, decl string) {
	rw.edits = append(rw.edits,
		edit{start: rw.off(body.Lbrace) + 1, end: rw.off(body.Lbrace) + 1, text: " " + decl + " {"},
		edit{start: rw.off(body.Rbrace), end: rw.off(body.Rbrace), text: "}"})
}

// rangeOverInt rewrites `for k := range n` over an integer into a
// three-clause loop that evaluates n once, gives k n's type and a fresh
// variable per iteration, and ignores changes the body makes to k.
func (rw *rewriter) rangeOverInt(r *ast.RangeStmt, xt types.Type) bool {
	isInt := false
	if xt != nil {
		b, ok := xt.Underlying().(*types.Basic)
		isInt = ok && b.Info()&types.IsInteger != 0
	} else if lit, ok := r.X.(*ast.BasicLit); ok && lit.Kind == token.INT {
		isInt = true
	} else if rw.c.Info == nil {
		// Without types, only the literal case is certain; a name could be
		// a slice. yaegi itself reports a range over an integer variable.
		return false
	}
	if !isInt {
		return false
	}
	rw.loops++
	i := fmt.Sprintf("%si%d", reservedPrefix, rw.loops)
	n := fmt.Sprintf("%sn%d", reservedPrefix, rw.loops)
	zero := "0"
	if xt != nil {
		if b, ok := xt.(*types.Basic); !ok || b.Info()&types.IsUntyped == 0 {
			ts, ok := rw.typeString(xt, r.X.Pos())
			if !ok {
				return true
			}
			zero = ts + "(0)"
		}
	}
	start := r.Range
	if r.Key != nil {
		start = r.Key.Pos()
	}
	rw.edits = append(rw.edits, edit{start: rw.off(start), end: rw.off(r.X.Pos()), text: fmt.Sprintf("%s, %s := %s, ", i, n, zero)})
	header := fmt.Sprintf("; %s < %s; %s++ {", i, n, i)
	if r.Key != nil && !isBlank(r.Key) {
		op := " := "
		if r.Tok == token.ASSIGN {
			op = " = "
		}
		// The key gets its value at the top of every iteration, in a block
		// of its own so the body may declare the same name again.
		header += " " + rw.text(r.Key) + op + i + "; {"
		rw.edits = append(rw.edits, edit{start: rw.off(r.Body.Rbrace), end: rw.off(r.Body.Rbrace), text: "}"})
	}
	rw.edits = append(rw.edits, edit{start: rw.off(r.X.End()), end: rw.off(r.Body.Lbrace) + 1, text: header})
	return true
}

func isBlank(e ast.Expr) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == "_"
}

func (rw *rewriter) forStmt(f *ast.ForStmt) {
	as, ok := f.Init.(*ast.AssignStmt)
	if !ok || as.Tok != token.DEFINE {
		return
	}
	var captured []string
	for _, e := range as.Lhs {
		id, ok := e.(*ast.Ident)
		if !ok || id.Name == "_" {
			continue
		}
		obj := rw.object(id)
		if !rw.capturedIn(f.Body, obj) {
			continue
		}
		if rw.modifiedIn(f.Body, obj) {
			rw.refuseRow(id.Pos(), rowLoopVarChange, "loop variable %s is captured by a closure (or its address is taken) and also changed in the loop body; "+
				"yaegi shares one variable across iterations. Copy it first (%s := %s) and change the copy", id.Name, id.Name, id.Name)
			continue
		}
		captured = append(captured, id.Name)
	}
	if len(captured) > 0 {
		list := strings.Join(captured, ", ")
		rw.wrapBody(f.Body, list+" := "+list+";")
	}
}

// refersTo reports whether id denotes obj.
func (rw *rewriter) refersTo(id *ast.Ident, obj any) bool {
	return obj != nil && rw.object(id) == obj
}

// capturedIn reports whether obj is used inside a function literal in body,
// or has its address taken there (explicitly, or by a method value with a
// pointer receiver).
func (rw *rewriter) capturedIn(body ast.Node, obj any) bool {
	if obj == nil {
		return false
	}
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		if found {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			ast.Inspect(n.Body, func(m ast.Node) bool {
				if id, ok := m.(*ast.Ident); ok && rw.refersTo(id, obj) {
					found = true
				}
				return !found
			})
			return false
		case *ast.UnaryExpr:
			if n.Op == token.AND && rw.addressOf(n.X, obj) {
				found = true
			}
		case *ast.SliceExpr:
			// Slicing an array takes its address.
			if rw.c.Info != nil {
				if _, isArr := rw.c.Info.TypeOf(n.X).Underlying().(*types.Array); isArr && rw.addressOf(n.X, obj) {
					found = true
				}
			}
		case *ast.SelectorExpr:
			if rw.c.Info == nil {
				break
			}
			id, ok := ast.Unparen(n.X).(*ast.Ident)
			if !ok || !rw.refersTo(id, obj) {
				break
			}
			if sel := rw.c.Info.Selections[n]; sel != nil && sel.Kind() == types.MethodVal {
				if sig, ok := sel.Obj().Type().(*types.Signature); ok && sig.Recv() != nil {
					if _, ptr := sig.Recv().Type().(*types.Pointer); ptr {
						found = true
					}
				}
			}
		}
		return true
	})
	return found
}

// addressOf reports whether taking the address of x takes the address
// of obj or of a part of it (a field, an array element), not of memory
// it points to.
func (rw *rewriter) addressOf(x ast.Expr, obj any) bool {
	for {
		switch e := x.(type) {
		case *ast.Ident:
			return rw.refersTo(e, obj)
		case *ast.ParenExpr:
			x = e.X
		case *ast.SelectorExpr:
			if rw.c.Info != nil {
				if _, ptr := rw.c.Info.TypeOf(e.X).Underlying().(*types.Pointer); ptr {
					return false
				}
			}
			x = e.X
		case *ast.IndexExpr:
			if rw.c.Info != nil {
				if _, arr := rw.c.Info.TypeOf(e.X).Underlying().(*types.Array); !arr {
					return false
				}
			}
			x = e.X
		default:
			return false
		}
	}
}

// modifiedIn reports whether body may change obj (closures included): an
// assignment, increment or range assignment to it or to any part of it
// (x.f, x[i]), its address taken, or a pointer-receiver method called on
// it. It errs on the side of yes.
func (rw *rewriter) modifiedIn(body ast.Node, obj any) bool {
	rooted := func(e ast.Expr) bool {
		id := rootIdent(e)
		return id != nil && rw.refersTo(id, obj)
	}
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for _, l := range n.Lhs {
				found = found || rooted(l)
			}
		case *ast.IncDecStmt:
			found = found || rooted(n.X)
		case *ast.RangeStmt:
			if n.Tok == token.ASSIGN {
				found = found || (n.Key != nil && rooted(n.Key)) || (n.Value != nil && rooted(n.Value))
			}
		case *ast.UnaryExpr:
			found = found || n.Op == token.AND && rooted(n.X)
		case *ast.SelectorExpr:
			if rw.c.Info == nil || !rooted(n.X) {
				break
			}
			if sel := rw.c.Info.Selections[n]; sel != nil && sel.Kind() == types.MethodVal {
				if sig, ok := sel.Obj().Type().(*types.Signature); ok && sig.Recv() != nil {
					_, ptr := sig.Recv().Type().(*types.Pointer)
					found = found || ptr
				}
			}
		}
		return !found
	})
	return found
}

// rootIdent returns the variable an lvalue expression starts from
// (x for x, x.f, x[i], (x), *x), or nil.
func rootIdent(e ast.Expr) *ast.Ident {
	id, _ := lvalueBase(e, func(e ast.Expr) bool { _, ok := e.(*ast.Ident); return ok }).(*ast.Ident)
	return id
}

// lvalueBase walks an lvalue expression from the outside in (x.f[i] →
// x.f → x), through parentheses, selectors, indexing and indirection, and
// returns the first expression that "is" accepts, or nil.
func lvalueBase(e ast.Expr, is func(ast.Expr) bool) ast.Expr {
	for {
		e = ast.Unparen(e)
		if is(e) {
			return e
		}
		switch x := e.(type) {
		case *ast.SelectorExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.StarExpr:
			e = x.X
		default:
			return nil
		}
	}
}

func (rw *rewriter) apply() ([]byte, error) {
	if rw.checkAdded(); len(rw.hidden) > 0 {
		sort.SliceStable(rw.hidden, func(i, j int) bool { return rw.hidden[i].Line < rw.hidden[j].Line })
		return nil, &ValidationError{File: PolicyFileName, Issues: slices.Compact(rw.hidden)}
	}
	sort.SliceStable(rw.edits, func(i, j int) bool {
		a, b := rw.edits[i], rw.edits[j]
		if a.start != b.start {
			return a.start < b.start
		}
		if a.end != b.end {
			return a.end < b.end
		}
		// Insertions at one offset: closes (inner first), then opens
		// (outer first), then plain edits (which open what they edit).
		if a.wrap != b.wrap {
			return a.wrap == wrapClose || (a.wrap == wrapOpen && b.wrap == plainEdit)
		}
		switch a.wrap {
		case wrapClose:
			if a.span != b.span {
				return a.span < b.span
			}
			return a.seq > b.seq
		case wrapOpen:
			if a.span != b.span {
				return a.span > b.span
			}
			return a.seq < b.seq
		}
		return false
	})
	var b strings.Builder
	src := rw.c.Source
	at := 0
	for _, e := range rw.edits {
		if e.start < at {
			return nil, fmt.Errorf("rewrite for yaegi: overlapping edits at offset %d", e.start)
		}
		b.Write(src[at:e.start])
		b.WriteString(e.text)
		at = e.end
	}
	b.Write(src[at:])
	if len(rw.helpers) > 0 {
		note := rw.note
		if note == "" {
			note = "for the yaegi interpreter"
		}
		b.WriteString("\n\n// Added by policyevolve " + note + ".\n")
		for _, h := range rw.helpers {
			b.WriteString("\n" + h + "\n")
		}
	}
	return []byte(b.String()), nil
}
