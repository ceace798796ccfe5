package sandbox

import (
	"fmt"
	"go/ast"
	"go/types"
	"strings"
)

// Conversions to non-empty interface types (error, heap.Interface,
// sort.Interface, the policy's own). A nil pointer or slice so converted
// is a non-nil interface in Go; yaegi v0.16.1 makes it a nil interface,
// silently (func f() error { var p *E; return p } gives f() == nil), and
// it fails to pass some values to compiled code (see guardConversion).

// nilGuards finds the conversions, implicit and explicit, to non-empty
// interface types.
func (rw *rewriter) nilGuards() {
	if rw.c.Info == nil {
		return
	}
	info := rw.c.Info
	var sigs []*types.Signature
	ast.Inspect(rw.c.File, func(n ast.Node) bool {
		switch n := n.(type) {
		case nil:
			return false
		case *ast.FuncDecl:
			if fn, ok := info.Defs[n.Name].(*types.Func); ok && n.Body != nil {
				sigs = append(sigs, fn.Type().(*types.Signature))
				ast.Inspect(n.Body, func(m ast.Node) bool { return rw.nilGuardNode(m, &sigs) })
				sigs = sigs[:len(sigs)-1]
			}
			return false
		case *ast.ValueSpec:
			rw.nilGuardSpec(n)
		}
		return true
	})
}

// nilGuardNode handles one node inside a function body; sigs is the stack
// of the signatures of the functions around it.
func (rw *rewriter) nilGuardNode(n ast.Node, sigs *[]*types.Signature) bool {
	info := rw.c.Info
	switch n := n.(type) {
	case *ast.FuncLit:
		sig, ok := info.TypeOf(n).(*types.Signature)
		if !ok {
			return false
		}
		*sigs = append(*sigs, sig)
		ast.Inspect(n.Body, func(m ast.Node) bool { return rw.nilGuardNode(m, sigs) })
		*sigs = (*sigs)[:len(*sigs)-1]
		return false
	case *ast.AssignStmt:
		if len(n.Lhs) == len(n.Rhs) {
			for i, l := range n.Lhs {
				rw.guardConversion(n.Rhs[i], info.TypeOf(l))
			}
		} else if len(n.Rhs) == 1 {
			var ts []types.Type
			for _, l := range n.Lhs {
				ts = append(ts, info.TypeOf(l))
			}
			rw.multiValueConversion(n.Rhs[0], ts)
		}
	case *ast.ValueSpec:
		rw.nilGuardSpec(n)
	case *ast.ReturnStmt:
		if len(*sigs) == 0 {
			break
		}
		res := (*sigs)[len(*sigs)-1].Results()
		if res.Len() == len(n.Results) {
			for i, r := range n.Results {
				rw.guardConversion(r, res.At(i).Type())
			}
		}
	case *ast.CallExpr:
		rw.nilGuardCall(n)
	case *ast.CompositeLit:
		rw.nilGuardComposite(n)
	}
	return true
}

func (rw *rewriter) nilGuardSpec(vs *ast.ValueSpec) {
	if vs.Type == nil || len(vs.Values) != len(vs.Names) {
		return
	}
	t := rw.c.Info.TypeOf(vs.Type)
	for _, v := range vs.Values {
		rw.guardConversion(v, t)
	}
}

func (rw *rewriter) nilGuardCall(call *ast.CallExpr) {
	info := rw.c.Info
	ft := info.Types[call.Fun]
	switch {
	case ft.IsType():
		if len(call.Args) == 1 {
			rw.guardConversion(call.Args[0], ft.Type)
		}
		return
	case ft.IsBuiltin():
		if id, ok := ast.Unparen(call.Fun).(*ast.Ident); ok && id.Name == "append" && !call.Ellipsis.IsValid() && len(call.Args) > 1 {
			if s, ok := info.TypeOf(call.Args[0]).Underlying().(*types.Slice); ok {
				for _, a := range call.Args[1:] {
					rw.guardConversion(a, s.Elem())
				}
			}
		}
		return
	}
	sig, ok := ft.Type.Underlying().(*types.Signature)
	if !ok {
		return
	}
	n := sig.Params().Len()
	if len(call.Args) == 1 && n > 1 {
		return // f(g()) with several results
	}
	for i, a := range call.Args {
		var t types.Type
		switch {
		case sig.Variadic() && i >= n-1:
			if call.Ellipsis.IsValid() {
				continue
			}
			t = sig.Params().At(n - 1).Type().(*types.Slice).Elem()
		case i < n:
			t = sig.Params().At(i).Type()
		default:
			continue
		}
		rw.guardConversion(a, t)
	}
}

func (rw *rewriter) nilGuardComposite(lit *ast.CompositeLit) {
	t := rw.c.Info.TypeOf(lit)
	if t == nil {
		return
	}
	switch u := t.Underlying().(type) {
	case *types.Struct:
		for i, e := range lit.Elts {
			if kv, ok := e.(*ast.KeyValueExpr); ok {
				if id, ok := kv.Key.(*ast.Ident); ok {
					for j := 0; j < u.NumFields(); j++ {
						if u.Field(j).Name() == id.Name {
							rw.guardConversion(kv.Value, u.Field(j).Type())
						}
					}
				}
			} else if i < u.NumFields() {
				rw.guardConversion(e, u.Field(i).Type())
			}
		}
	case *types.Slice:
		rw.guardElements(lit.Elts, nil, u.Elem())
	case *types.Array:
		rw.guardElements(lit.Elts, nil, u.Elem())
	case *types.Map:
		rw.guardElements(lit.Elts, u.Key(), u.Elem())
	}
}

func (rw *rewriter) guardElements(elts []ast.Expr, key, elem types.Type) {
	for _, e := range elts {
		if kv, ok := e.(*ast.KeyValueExpr); ok {
			if key != nil {
				rw.guardConversion(kv.Key, key)
			}
			rw.guardConversion(kv.Value, elem)
			continue
		}
		rw.guardConversion(e, elem)
	}
}

// guardConversion handles e converted to type to. When to is a
// non-empty interface:
//   - a slice or map of a type declared in the policy that may be nil is
//     replaced by an empty one when nil (yaegi makes a nil slice of a
//     type with methods a nil interface; sort.Sort(nilByDist) fails);
//   - a pointer that may be nil is checked, and the policy stopped with a
//     precise message when it is nil, for error and the policy's own
//     interfaces (Go makes it a non-nil interface, yaegi a nil one);
//   - every other value is copied (see copyConversion).
func (rw *rewriter) guardConversion(e ast.Expr, to types.Type) {
	if to == nil || !isNonEmptyInterface(to) {
		return
	}
	from := rw.c.Info.TypeOf(e)
	if from == nil || types.IsInterface(from) {
		return
	}
	n, named := to.(*types.Named)
	native := named && n.Obj().Pkg() != nil && n.Obj().Pkg() != rw.c.Types
	x := ast.Unparen(e)
	switch from.Underlying().(type) {
	case *types.Slice, *types.Map:
		fresh := false
		switch x := x.(type) {
		case *ast.CompositeLit:
			fresh = true
		case *ast.CallExpr:
			if id, ok := ast.Unparen(x.Fun).(*ast.Ident); ok && rw.isBuiltin(id, "make") {
				fresh = true
			}
		}
		if fresh || !rw.declaredHere(from) {
			break
		}
		it, ok1 := rw.typeString(to, e.Pos())
		ft, ok2 := rw.typeString(from, e.Pos())
		if !ok1 || !ok2 {
			return
		}
		// A copy too (see copyConversion).
		v := reservedPrefix + "v"
		rw.wrap(e, fmt.Sprintf("func() %s { %s := ", it, v),
			fmt.Sprintf("; if %s == nil { return %s{} }; return %s }()", v, ft, v))
		return
	case *types.Pointer:
		if native {
			break
		}
		switch x := x.(type) {
		case *ast.UnaryExpr:
			rw.copyConversion(e, to) // &x, &T{…}
			return
		case *ast.CallExpr:
			if id, ok := ast.Unparen(x.Fun).(*ast.Ident); ok && rw.isBuiltin(id, "new") {
				rw.copyConversion(e, to)
				return
			}
		case *ast.Ident:
			if x.Name == "nil" {
				return
			}
		}
		// The copy outside, the check inside (the first wrap is the outer).
		rw.copyConversion(e, to)
		rw.nilCheck(e, from)
		return
	}
	rw.copyConversion(e, to)
}

// multiValueConversion rewrites w, k = f() where a result of f of a
// concrete type goes into a target of an interface type with methods:
// yaegi v0.16.1 fails on it (reflect.Set: value of type int is not
// assignable to type interp.valueInterface). The results are received
// by a function literal that returns them as the targets' types, which
// converts them as a return statement does:
//
//	w, k = f()   becomes   w, k = func() (I, int) { a0, a1 := f(); return a0, a1 }()
//
// targets holds the targets' types (nil for _).
func (rw *rewriter) multiValueConversion(e ast.Expr, targets []types.Type) {
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok {
		return
	}
	tuple, ok := rw.c.Info.TypeOf(call).(*types.Tuple)
	if !ok || tuple.Len() != len(targets) {
		return
	}
	need := false
	for i, t := range targets {
		if t != nil && isNonEmptyInterface(t) && !types.IsInterface(tuple.At(i).Type()) {
			need = true
		}
	}
	if !need {
		return
	}
	var res, names []string
	for i, t := range targets {
		if t == nil {
			t = tuple.At(i).Type()
		}
		ts, ok := rw.qualified(t, e.Pos())
		if !ok {
			return
		}
		res = append(res, ts)
		names = append(names, fmt.Sprintf("%sm%d", reservedPrefix, i))
	}
	list := strings.Join(names, ", ")
	rw.wrap(e, fmt.Sprintf("func() (%s) { %s := ", strings.Join(res, ", "), list), fmt.Sprintf("; return %s }()", list))
}

// copyConversion makes a value converted to an interface with methods a
// copy: yaegi v0.16.1 keeps a reference to the variable converted (c :=
// C(1); var i I = c; c = 5 gave i.V() == 5; the loop idiom
// for _, t := range ts { gs = append(gs, t) } made every element the
// last one), where the interface holds a copy in Go. The value is first
// copied into a variable of a function literal called at once, whose
// frame no later assignment reaches (issue 48, class 1):
//
//	var i I = c   becomes   var i I = func() I { v := c; return v }()
//
// The same literal passes the result of a call of a type declared in the
// policy to compiled code (sort.Sort(makeByDist()) failed; x :=
// makeByDist(); sort.Sort(x) works). Literals, conversions of constants
// and other expressions that yield a fresh value are copied alike: one
// rule, no reasoning about which expressions yaegi stores in place.
func (rw *rewriter) copyConversion(e ast.Expr, to types.Type) {
	if isNilIdent(e) {
		return
	}
	it, ok := rw.qualified(to, e.Pos())
	if !ok {
		return
	}
	v := reservedPrefix + "v"
	rw.wrap(e, fmt.Sprintf("func() %s { %s := ", it, v), fmt.Sprintf("; return %s }()", v))
}

// nilCheck stops the policy with a precise message when pointer e, of
// type t, is nil.
func (rw *rewriter) nilCheck(e ast.Expr, t types.Type) {
	ts, ok := rw.typeString(t, e.Pos())
	if !ok {
		return
	}
	key := "nonnil:" + ts
	h, ok := rw.helperIdx[key]
	if !ok {
		h = fmt.Sprintf("%snonnil%d", reservedPrefix, len(rw.helpers))
		rw.helperIdx[key] = h
		rw.helpers = append(rw.helpers, fmt.Sprintf(
			"func %s(p %s, line int) %s {\n\tif p == nil {\n\t\tpanic(\"the yaegi backend cannot run this: at line \" + %sitoa(line) + \" a nil %s becomes an interface, which yaegi makes a nil interface (Go does not); check for nil first (subset row E25); or run it on the native backend\")\n\t}\n\treturn p\n}",
			h, ts, ts, reservedPrefix, ts))
		rw.needItoa()
	}
	rw.wrap(e, h+"(", fmt.Sprintf(", %d)", rw.c.Fset.Position(e.Pos()).Line))
}

// needItoa adds a helper that spells an int, for messages.
func (rw *rewriter) needItoa() {
	if _, ok := rw.helperIdx["itoa"]; ok {
		return
	}
	rw.helperIdx["itoa"] = reservedPrefix + "itoa"
	rw.helpers = append(rw.helpers, "func "+reservedPrefix+"itoa(n int) string {\n\ts := \"\"\n\tfor {\n\t\ts = string(rune('0'+n%10)) + s\n\t\tn /= 10\n\t\tif n == 0 {\n\t\t\treturn s\n\t\t}\n\t}\n}")
}
