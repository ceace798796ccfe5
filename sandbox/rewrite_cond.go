package sandbox

import (
	"go/ast"
	"go/types"
)

// condition helps yaegi with a conversion to a boolean type that is a
// whole condition (if bool(b), for bool(b), case bool(b): of a tagless
// switch): yaegi v0.16.1 takes it as true whatever b is. Compared with
// true, it is evaluated: if (bool(b) == true).
func (rw *rewriter) condition(e ast.Expr) {
	if e == nil {
		return
	}
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok || len(call.Args) != 1 {
		return
	}
	if rw.c.Info != nil {
		tv := rw.c.Info.Types[call.Fun]
		if !tv.IsType() {
			return
		}
		if b, ok := tv.Type.Underlying().(*types.Basic); !ok || b.Info()&types.IsBoolean == 0 {
			return
		}
	} else if id, ok := ast.Unparen(call.Fun).(*ast.Ident); !ok || !rw.isBuiltin(id, "bool") {
		return
	}
	rw.wrap(e, "(", " == true)")
}
