package sandbox

import (
	"go/ast"
	"go/token"
	"go/types"
)

// unspecifiedOrder refuses a composite literal whose elements read a
// variable that a call among the same elements assigns: Go specifies the
// order of calls but not when a variable operand is read relative to
// them, and there the two backends differ — the compiler makes the calls
// first, yaegi reads left to right: []ssd.Pos{{agent, o}, f()} with f a
// closure that changes o. Found by FuzzAgree (seed 6208). Operands of
// calls and operators are left alone: there the backends have agreed on
// every generated program so far, and refusing them would refuse half of
// what the generator writes. What a function assigns is judged on its own
// body (a closure: the variables it captures; a function: package
// variables), not through the calls it makes.
func (rw *rewriter) unspecifiedOrder() {
	if rw.c.Info == nil {
		return
	}
	writes := rw.functionWrites()
	if len(writes) == 0 {
		return
	}
	check := func(operands []ast.Expr) {
		if len(operands) < 2 {
			return
		}
		for i, op := range operands {
			changed := map[types.Object]bool{}
			rw.callsIn(op, func(f types.Object) {
				for v := range writes[f] {
					changed[v] = true
				}
			})
			if len(changed) == 0 {
				continue
			}
			for j, other := range operands {
				if j == i {
					continue
				}
				if id := rw.readOf(other, changed); id != nil {
					rw.refuseRow(id.Pos(), rowOrder, "%s is read in the same expression as a call that assigns it: Go leaves the order unspecified and the two backends differ; make the call in a statement of its own", id.Name)
					return
				}
			}
		}
	}
	ast.Inspect(rw.c.File, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CompositeLit:
			var ops []ast.Expr
			for _, e := range n.Elts {
				if kv, ok := e.(*ast.KeyValueExpr); ok {
					ops = append(ops, kv.Key, kv.Value)
				} else {
					ops = append(ops, e)
				}
			}
			check(ops)
		}
		return true
	})
}

// functionWrites maps each function the policy declares, and each
// variable bound to a function literal, to the variables its body
// assigns that live outside it.
func (rw *rewriter) functionWrites() map[types.Object]map[types.Object]bool {
	out := map[types.Object]map[types.Object]bool{}
	add := func(f types.Object, body *ast.BlockStmt, outside func(types.Object) bool) {
		if f == nil || body == nil {
			return
		}
		w := map[types.Object]bool{}
		assigned := func(e ast.Expr) {
			if id, ok := ast.Unparen(e).(*ast.Ident); ok {
				if v, ok := rw.c.Info.Uses[id].(*types.Var); ok && outside(v) {
					w[v] = true
				}
			}
		}
		ast.Inspect(body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.AssignStmt:
				if n.Tok != token.DEFINE {
					for _, l := range n.Lhs {
						assigned(l)
					}
				}
			case *ast.IncDecStmt:
				assigned(n.X)
			}
			return true
		})
		if len(w) > 0 {
			out[f] = w
		}
	}
	pkg := rw.c.Types
	for _, d := range rw.c.File.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil {
			add(rw.c.Info.Defs[fd.Name], fd.Body, func(v types.Object) bool { return pkg != nil && v.Parent() == pkg.Scope() })
		}
	}
	ast.Inspect(rw.c.File, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok || len(as.Lhs) != len(as.Rhs) {
			return true
		}
		for i, r := range as.Rhs {
			lit, ok := ast.Unparen(r).(*ast.FuncLit)
			id, isIdent := as.Lhs[i].(*ast.Ident)
			if !ok || !isIdent {
				continue
			}
			f := rw.c.Info.Defs[id]
			if f == nil {
				f = rw.c.Info.Uses[id]
			}
			add(f, lit.Body, func(v types.Object) bool { return v.Pos() < lit.Pos() || v.Pos() >= lit.End() })
		}
		return true
	})
	return out
}

// callsIn calls found with every function of the policy that e calls
// (outside function literals, which e does not run).
func (rw *rewriter) callsIn(e ast.Expr, found func(types.Object)) {
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			if id, ok := ast.Unparen(n.Fun).(*ast.Ident); ok {
				if obj := rw.c.Info.Uses[id]; obj != nil {
					found(obj)
				}
			}
		}
		return true
	})
}

// readOf returns an identifier of e that reads one of vars, outside
// calls and function literals; nil when there is none.
func (rw *rewriter) readOf(e ast.Expr, vars map[types.Object]bool) *ast.Ident {
	var hit *ast.Ident
	ast.Inspect(e, func(n ast.Node) bool {
		if hit != nil {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit, *ast.CallExpr:
			return false
		case *ast.Ident:
			if vars[rw.c.Info.Uses[n]] {
				hit = n
			}
		}
		return true
	})
	return hit
}
