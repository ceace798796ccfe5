package sandbox

import (
	"go/ast"
	"go/types"
)

// positionalElements helps yaegi with an element of a composite literal
// without keys that selects a field through an index of a pointer
// (T{pa[0].R, 1} with pa a pointer to an array, T{(*ps)[0].A, 1}): yaegi
// v0.16.1 fails to load it (a nil pointer dereference while it works out
// the element's type). Converted to its own type, T{int(pa[0].R), 1},
// the element takes another path.
func (rw *rewriter) positionalElements(lit *ast.CompositeLit) {
	for _, e := range lit.Elts {
		if _, keyed := e.(*ast.KeyValueExpr); keyed {
			continue
		}
		if _, sel := ast.Unparen(e).(*ast.SelectorExpr); !sel || !rw.throughPointerIndex(e) {
			continue
		}
		t := rw.typeOf(e)
		if t == nil {
			continue // without types: yaegi reports it when it loads the policy
		}
		ts, ok := rw.qualified(t, e.Pos())
		if !ok {
			continue
		}
		rw.wrap(e, "("+ts+")(", ")")
	}
}

// throughPointerIndex reports whether the selector and index chain of e
// indexes through a pointer: (*p)[i] or p[i] with p a pointer to an array.
func (rw *rewriter) throughPointerIndex(e ast.Expr) bool {
	for {
		switch x := e.(type) {
		case *ast.ParenExpr:
			e = x.X
		case *ast.SelectorExpr:
			e = x.X
		case *ast.IndexExpr:
			if _, star := ast.Unparen(x.X).(*ast.StarExpr); star {
				return true
			}
			if t := rw.typeOf(x.X); t != nil {
				if _, ptr := t.Underlying().(*types.Pointer); ptr {
					return true
				}
			}
			e = x.X
		default:
			return false
		}
	}
}
