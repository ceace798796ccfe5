package sandbox

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strings"
)

// The assignments yaegi v0.16.1 gets wrong, silently.
//
// In an assignment or definition of several variables, yaegi writes a
// composite literal or the result of a call straight into its
// destination and then skips the statement's own assignment: the other
// variables keep their old values (q, n = T{A: 1}, 1 leaves n unchanged),
// and the direct write happens before the other right-hand sides are
// evaluated. A single assignment x = T{…} replaces x's storage instead of
// writing into it, so pointers to x and closures that captured x keep
// seeing the old value. In both cases a parenthesized right-hand side
// takes yaegi's ordinary path, which evaluates every right-hand side into
// a temporary before assigning any: the rewrite adds the parentheses.

// assignStmt rewrites and checks one assignment statement.
func (rw *rewriter) assignStmt(as *ast.AssignStmt) {
	if as.Tok != token.ASSIGN && as.Tok != token.DEFINE {
		return
	}
	multi := len(as.Lhs) > 1 && len(as.Rhs) == len(as.Lhs)
	if as.Tok == token.ASSIGN && len(as.Lhs) == 1 && len(as.Rhs) == 1 {
		// One value: in a multiple assignment the conversion itself
		// fails (see interfaceTarget).
		rw.boxed(rw.typeOf(as.Lhs[0]), as.Rhs[0])
	}
	for i, r := range as.Rhs {
		switch r.(type) {
		case *ast.ParenExpr, *ast.BasicLit, *ast.Ident:
		case *ast.CompositeLit:
			if multi || as.Tok == token.ASSIGN {
				rw.parenthesize(r)
			}
		default:
			// Calls, and expressions the rewrite may turn into calls
			// (method values).
			if multi {
				rw.parenthesize(r)
			}
		}
		if multi {
			rw.interfaceTarget(as, as.Lhs[i], r)
			if as.Tok == token.ASSIGN {
				rw.typedNil(r, as.Lhs[i])
			}
		}
	}
	if multi && as.Tok == token.ASSIGN {
		rw.mapTargetsInOrder(as.Lhs)
	}
	if len(as.Lhs) == 2 && len(as.Rhs) == 1 {
		rw.commaOK(as.Rhs[0])
	}
	if as.Tok == token.DEFINE {
		rw.redeclaration(as)
	}
}

// typedNil turns a nil among the values of a parallel assignment into a
// conversion to its target's type: yaegi fails on an untyped nil among
// several values (k.a, k.b = nil, nil panics: reflect: New(nil)).
func (rw *rewriter) typedNil(r, target ast.Expr) {
	if !isNilIdent(r) {
		return
	}
	var t types.Type
	if rw.c.Info != nil {
		t = rw.c.Info.TypeOf(target)
	}
	rw.nilOf(r, t)
}

// nilOf spells the nil r as a nil of type t.
func (rw *rewriter) nilOf(r ast.Expr, t types.Type) {
	if t == nil {
		rw.refuseRow(r.Pos(), rowNoTypes, "nil among several values assigned at once: yaegi fails on it, and without type information (no Go toolchain) it cannot be given its type; assign nil in a statement of its own")
		return
	}
	ts, ok := rw.qualified(t, r.Pos())
	if !ok {
		return
	}
	id := ast.Unparen(r)
	rw.edits = append(rw.edits, edit{start: rw.off(id.Pos()), end: rw.off(id.End()), text: "(" + ts + ")(nil)"})
}

// boxed converts a value of a concrete type that goes into a variable or
// a result of empty interface type to interface{} explicitly: yaegi
// stored some of them through the interface's own storage — x = !b, or
// return !b from a function returning any, panicked (reflect: call of
// reflect.Value.SetBool on interface Value). Found by FuzzAgree (seed
// 6183).
func (rw *rewriter) boxed(dst types.Type, e ast.Expr) {
	if dst == nil || !isEmptyInterface(dst) || isNilIdent(e) {
		return
	}
	if et := rw.typeOf(e); et == nil || types.IsInterface(et) {
		return
	}
	rw.wrap(e, "interface{}(", ")")
}

// boxedResults is boxed for the result of a return statement of one
// value (returns of several may be rewritten whole: see namedReturn).
func (rw *rewriter) boxedResults(r *ast.ReturnStmt) {
	if len(r.Results) != 1 {
		return
	}
	var sig *types.Signature
	switch f := rw.enclosingFunc(r).(type) {
	case *ast.FuncLit:
		sig, _ = rw.typeOf(f).(*types.Signature)
	case *ast.FuncDecl:
		if rw.c.Info != nil {
			if obj := rw.c.Info.Defs[f.Name]; obj != nil {
				sig, _ = obj.Type().(*types.Signature)
			}
		}
	}
	if sig == nil || sig.Results().Len() != len(r.Results) {
		return
	}
	for i, e := range r.Results {
		rw.boxed(sig.Results().At(i).Type(), e)
	}
}

// enclosingFunc is the function literal or declaration n is in, or nil.
func (rw *rewriter) enclosingFunc(n ast.Node) ast.Node {
	for p := rw.parent(n); p != nil; p = rw.parent(p) {
		switch p.(type) {
		case *ast.FuncLit, *ast.FuncDecl:
			return p
		}
	}
	return nil
}

// interfaceTarget refuses, in a multiple assignment, a value of a type
// declared in the policy assigned to a variable of interface type, and a
// value of type any (nil included) assigned to an existing one of type
// any: yaegi fails on them (reflect.Set: value of type interface {} is
// not assignable to type interp.valueInterface).
func (rw *rewriter) interfaceTarget(as *ast.AssignStmt, l, r ast.Expr) {
	if rw.c.Info == nil {
		return
	}
	// Look through conversions: any(T{…}) fails as T{…} does.
	for {
		call, ok := ast.Unparen(r).(*ast.CallExpr)
		if !ok || len(call.Args) != 1 || !rw.c.Info.Types[call.Fun].IsType() {
			break
		}
		r = call.Args[0]
	}
	lt, rt := rw.c.Info.TypeOf(l), rw.c.Info.TypeOf(r)
	if lt == nil || rt == nil || !types.IsInterface(lt) {
		return
	}
	id, isIdent := l.(*ast.Ident)
	assigned := as.Tok == token.ASSIGN || isIdent && !rw.isNewVar(id, as)
	if assigned && isEmptyInterface(lt) && (isEmptyInterface(rt) || isNilIdent(r)) {
		rw.refuseRow(r.Pos(), rowAssignForm, "a value of type any assigned to %s of type any in a multiple assignment: yaegi fails on it; assign it in a statement of its own",
			rw.text(l))
		return
	}
	if types.IsInterface(rt) || !rw.declaredHere(rt) {
		return
	}
	rw.refuseRow(r.Pos(), rowAssignForm, "a value of type %s assigned to %s of interface type %s in a multiple assignment: yaegi fails on it; assign it in a statement of its own",
		rt, rw.text(l), lt)
}

func isEmptyInterface(t types.Type) bool {
	it, ok := t.Underlying().(*types.Interface)
	return ok && it.Empty()
}

// commaOK rewrites the value of a comma-ok lookup, m[k] or x.(T)
// assigned to two targets: when the key is missing or the assertion
// fails, yaegi leaves the first target as it was where Go sets it to
// the zero value (in a loop, v, ok := m[k] keeps the value of the
// iteration before). The lookup is made by a function literal called at
// once, whose variables start at zero:
//
//	v, ok := m[k]   becomes   v, ok := func() (V, bool) { v, ok := m[k]; return v, ok }()
func (rw *rewriter) commaOK(e ast.Expr) {
	switch x := ast.Unparen(e).(type) {
	case *ast.IndexExpr: // with two targets, a map lookup
	case *ast.TypeAssertExpr:
		if x.Type == nil {
			return
		}
	default:
		return
	}
	t := rw.typeOf(ast.Unparen(e))
	if tu, ok := t.(*types.Tuple); ok && tu.Len() == 2 {
		t = tu.At(0).Type()
	}
	if t == nil {
		rw.refuseRow(e.Pos(), rowNoTypes, "a lookup with two results (v, ok := m[k] or x.(T)) needs type information, which needs a Go toolchain: yaegi keeps v's old value when the lookup fails; use the one-result form and a separate check")
		return
	}
	ts, ok := rw.qualified(t, e.Pos())
	if !ok {
		return
	}
	v, found := reservedPrefix+"v", reservedPrefix+"ok"
	rw.wrap(e, "func() ("+ts+", bool) { "+v+", "+found+" := ", "; return "+v+", "+found+" }()")
}

// interfaceVar converts the values of var x I = v, with I an interface
// type and v of another type, to I explicitly: yaegi gave x the storage
// of v's type when that is a compiled type (var x any = ssd.Pos{}), and
// a later x = true panicked (reflect.Set: value of type bool is not
// assignable to type ssd.Pos).
func (rw *rewriter) interfaceVar(vs *ast.ValueSpec) {
	if vs.Type == nil || len(vs.Values) != len(vs.Names) {
		return
	}
	t := rw.typeOf(vs.Type)
	if t == nil || !types.IsInterface(t) {
		return
	}
	for _, v := range vs.Values {
		if vt := rw.typeOf(v); vt == nil || types.IsInterface(vt) || isNilIdent(v) {
			continue
		}
		rw.wrap(v, "("+rw.text(vs.Type)+")(", ")")
	}
}

// valueSpec rewrites var a, b = x, y like the assignment it is.
func (rw *rewriter) valueSpec(vs *ast.ValueSpec) {
	if len(vs.Names) == 2 && len(vs.Values) == 1 {
		rw.commaOK(vs.Values[0])
	}
	rw.interfaceVar(vs)
	if len(vs.Names) < 2 || len(vs.Values) != len(vs.Names) {
		return
	}
	for _, r := range vs.Values {
		switch r.(type) {
		case *ast.ParenExpr, *ast.BasicLit, *ast.Ident:
		default:
			rw.parenthesize(r)
		}
	}
}

func (rw *rewriter) parenthesize(e ast.Expr) { rw.wrap(e, "(", ")") }

// mapTargetsInOrder refuses a map element on the left of a parallel
// assignment whose map or key uses a variable assigned before it in the
// same statement: Go evaluates the index first, yaegi after the earlier
// assignments.
func (rw *rewriter) mapTargetsInOrder(lhs []ast.Expr) {
	for i, l := range lhs {
		ix, ok := ast.Unparen(l).(*ast.IndexExpr)
		if !ok || i == 0 {
			continue
		}
		if rw.c.Info != nil {
			if _, isMap := rw.c.Info.TypeOf(ix.X).Underlying().(*types.Map); !isMap {
				continue
			}
		}
		for _, earlier := range lhs[:i] {
			root := rootIdent(earlier)
			if root == nil || root.Name == "_" {
				continue
			}
			obj := rw.object(root)
			if rw.mentions(ix, obj) {
				rw.refuseRow(l.Pos(), rowAssignForm, "%s on the left of this assignment is evaluated after %s is assigned (Go evaluates it before); split the assignment in two",
					rw.text(l), root.Name)
				return
			}
		}
	}
}

// mentions reports whether n refers to obj anywhere.
func (rw *rewriter) mentions(n ast.Node, obj any) bool {
	found := false
	ast.Inspect(n, func(m ast.Node) bool {
		if id, ok := m.(*ast.Ident); ok && rw.refersTo(id, obj) {
			found = true
		}
		return !found
	})
	return found
}

// redeclaration handles a := that assigns to a variable declared before
// in the same scope: yaegi gives the variable new storage, so closures
// that captured it, and pointers to it, keep seeing the old value. When
// such a variable is captured or has its address taken in the function,
// the statement becomes var declarations of the new variables and a
// plain assignment.
func (rw *rewriter) redeclaration(as *ast.AssignStmt) {
	var old, fresh []*ast.Ident
	for _, l := range as.Lhs {
		id, ok := l.(*ast.Ident)
		if !ok || id.Name == "_" {
			continue
		}
		if rw.isNewVar(id, as) {
			fresh = append(fresh, id)
		} else {
			old = append(old, id)
		}
	}
	if len(old) == 0 {
		return
	}
	body := rw.enclosingBody(as)
	var captured *ast.Ident
	for _, id := range old {
		if body != nil && rw.capturedIn(body, rw.object(id)) {
			captured = id
			break
		}
	}
	if captured == nil {
		return
	}
	refuse := func(why string) {
		rw.refuseRow(as.Pos(), rowAssignForm, "%s := assigns to %s, which a closure captured (or whose address is taken), and yaegi would make it a new variable; %s",
			listNames(as.Lhs), captured.Name, why)
	}
	if !rw.inStatementList(as) {
		refuse("declare the new variables before the statement and use =")
		return
	}
	if rw.c.Info == nil {
		refuse("declare the new variables first (var x T) and use =")
		return
	}
	var decls []string
	for _, id := range fresh {
		for _, r := range as.Rhs {
			if rw.mentionsName(r, id.Name) {
				refuse("declare " + id.Name + " first (var " + id.Name + " T) and use =")
				return
			}
		}
		obj := rw.c.Info.Defs[id]
		if obj == nil {
			return
		}
		ts, ok := rw.typeString(obj.Type(), id.Pos())
		if !ok {
			return
		}
		decls = append(decls, fmt.Sprintf("var %s %s; ", id.Name, ts))
	}
	rw.edits = append(rw.edits,
		edit{start: rw.off(as.Pos()), end: rw.off(as.Pos()), text: strings.Join(decls, "")},
		edit{start: rw.off(as.TokPos), end: rw.off(as.TokPos) + 2, text: "= "})
}

func listNames(es []ast.Expr) string {
	var names []string
	for _, e := range es {
		if id, ok := e.(*ast.Ident); ok {
			names = append(names, id.Name)
		}
	}
	return strings.Join(names, ", ")
}

func (rw *rewriter) mentionsName(n ast.Node, name string) bool {
	found := false
	ast.Inspect(n, func(m ast.Node) bool {
		if id, ok := m.(*ast.Ident); ok && id.Name == name {
			found = true
		}
		return !found
	})
	return found
}

// isNewVar reports whether id is declared (not reassigned) by the short
// variable declaration as.
func (rw *rewriter) isNewVar(id *ast.Ident, as *ast.AssignStmt) bool {
	if rw.c.Info != nil {
		return rw.c.Info.Defs[id] != nil
	}
	return id.Obj != nil && id.Obj.Decl == as
}

// enclosingBody is the body of the function (declaration or literal) that
// contains n.
func (rw *rewriter) enclosingBody(n ast.Node) *ast.BlockStmt {
	for p := rw.parent(n); p != nil; p = rw.parent(p) {
		switch f := p.(type) {
		case *ast.FuncLit:
			return f.Body
		case *ast.FuncDecl:
			return f.Body
		}
	}
	return nil
}

// inStatementList reports whether s is a statement of a block or a case
// clause (not the init statement of an if, for or switch).
func (rw *rewriter) inStatementList(s ast.Stmt) bool {
	switch p := rw.parent(s).(type) {
	case *ast.BlockStmt:
		return true
	case *ast.CaseClause:
		for _, b := range p.Body {
			if b == s {
				return true
			}
		}
	case *ast.LabeledStmt:
		return false
	}
	return false
}

// parent returns the node that contains n, from a map built once.
func (rw *rewriter) parent(n ast.Node) ast.Node {
	if rw.parents == nil {
		rw.parents = map[ast.Node]ast.Node{}
		var stack []ast.Node
		ast.Inspect(rw.c.File, func(m ast.Node) bool {
			if m == nil {
				stack = stack[:len(stack)-1]
				return false
			}
			if len(stack) > 0 {
				rw.parents[m] = stack[len(stack)-1]
			}
			stack = append(stack, m)
			return true
		})
	}
	return rw.parents[n]
}

// returnStmt handles a return of several values from a function with
// named results: yaegi assigns the results one after the other, each
// value evaluated after the results before it are assigned (return y, x
// with named results x, y returns y, y). The values are assigned to the
// named results in one assignment first, which evaluates them all before
// assigning any:
//
//	return a, b   becomes   { x, y = (a), (b); return }
//
// And in a return of several values from any function, yaegi writes the
// result of a call of a builtin (len, cap, append, make, new, copy) into
// the first result, not its own: return 1, len(s) returns 1, 1, and
// return 1, append(s, x) panics. A parenthesized call takes the ordinary
// path: calls in such returns are parenthesized.
func (rw *rewriter) returnStmt(r *ast.ReturnStmt) {
	rw.boxedResults(r)
	if len(r.Results) < 2 {
		return
	}
	if !rw.namedReturn(r) {
		for _, e := range r.Results {
			if _, call := e.(*ast.CallExpr); call {
				rw.parenthesize(e)
			}
		}
	}
}

// namedReturn rewrites a return of several values from a function with
// named results (see returnStmt); it reports whether it did.
func (rw *rewriter) namedReturn(r *ast.ReturnStmt) bool {
	var ft *ast.FuncType
	switch f := rw.enclosingFunc(r).(type) {
	case *ast.FuncLit:
		ft = f.Type
	case *ast.FuncDecl:
		ft = f.Type
	}
	if ft == nil || ft.Results == nil || len(ft.Results.List) == 0 || len(ft.Results.List[0].Names) == 0 {
		return false
	}
	var names []string
	var results []*ast.Ident
	for _, f := range ft.Results.List {
		for _, n := range f.Names {
			names = append(names, n.Name)
			results = append(results, n)
		}
	}
	if len(names) != len(r.Results) {
		return false
	}
	for _, n := range names {
		if n == "_" {
			rw.refuseRow(r.Pos(), rowAssignForm, "a return of several values from a function with a result named _: yaegi assigns results one after the other; name every result, or none")
			return true
		}
	}
	rw.edits = append(rw.edits, edit{start: rw.off(r.Pos()), end: rw.off(r.Pos()) + len("return"),
		text: "{ " + strings.Join(names, ", ") + " ="})
	for i, e := range r.Results {
		if _, paren := e.(*ast.ParenExpr); !paren {
			rw.parenthesize(e)
		}
		if isNilIdent(e) {
			var t types.Type
			if rw.c.Info != nil {
				t = rw.c.Info.TypeOf(results[i])
			}
			rw.nilOf(e, t)
		}
	}
	last := r.Results[len(r.Results)-1]
	rw.edits = append(rw.edits, edit{start: rw.off(last.End()), end: rw.off(last.End()), text: "; return }", wrap: wrapClose, span: 1 << 30})
	return true
}

// Results of calls. When a call's single result is assigned to a
// variable, field or element that exists (x = f()), yaegi lets f write
// its result straight into x: f's named results start with x's value,
// not zero, and f sees x change before it returns. A parenthesized call
// is not optimised so. And a call returned at once (return f()) also
// starts f's named results with the caller's: namedResults zeroes them
// at the start of every function.

// callTarget parenthesizes the call of x = f(…) unless f is a builtin or
// a conversion.
func (rw *rewriter) callTarget(as *ast.AssignStmt) {
	if as.Tok != token.ASSIGN || len(as.Lhs) != 1 || len(as.Rhs) != 1 {
		return
	}
	call, ok := as.Rhs[0].(*ast.CallExpr)
	if !ok {
		return
	}
	if rw.c.Info != nil {
		if tv := rw.c.Info.Types[call.Fun]; tv.IsType() || tv.IsBuiltin() {
			return
		}
	}
	rw.parenthesize(call)
}

// namedResults sets the named results of a function to their zero value
// when it starts, as Go does and yaegi may not.
func (rw *rewriter) namedResults(ft *ast.FuncType, body *ast.BlockStmt) {
	if body == nil || ft.Results == nil {
		return
	}
	var b strings.Builder
	for _, f := range ft.Results.List {
		for _, n := range f.Names {
			if n.Name == "_" {
				continue
			}
			fmt.Fprintf(&b, " %s = *new(%s);", n.Name, rw.text(f.Type))
		}
	}
	if b.Len() == 0 || strings.Contains(b.String(), "\n") {
		return
	}
	at := rw.off(body.Lbrace) + 1
	rw.edits = append(rw.edits, edit{start: at, end: at, text: b.String()})
}
