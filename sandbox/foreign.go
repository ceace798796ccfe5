package sandbox

import (
	"go/ast"
	"go/token"
	"go/types"
	"strconv"
)

// Per-episode state outside the policy. A worker plays many episodes, each
// from the state a fresh process starts in: the policy's own package-level
// variables are reset (withReset), but a policy could also keep state in
// the variables of the packages it imports — strconv.ErrRange,
// strconv.ErrSyntax and errors.ErrUnsupported are the only exported
// variables of the allowed packages (ssd has none; TestForeignVariables
// enumerates them from both backends' symbol tables) — and count episodes
// there. So writing a package-level variable of another package is refused
// at admission: assigning it (whole or in part: a field, an element, what
// it points to), ++/--, ranging into it, taking its address, slicing it
// (an array) or calling a pointer method on it. Reading it is allowed.
// Behind the rule, every worker puts those variables back before every
// episode (the worker package's restoreStdVars), on both backends.

// checkForeignWrites refuses writes to package-level variables of other
// packages; info may be nil (no type information), and then imports are
// recognised on the syntax: a selector whose left side is the name of an
// import that the file does not redeclare.
func (v *validation) checkForeignWrites(f *ast.File, info *types.Info) {
	imports := map[string]bool{}
	for _, im := range f.Imports {
		name := path_base(importPath(im))
		if im.Name != nil {
			name = im.Name.Name
		}
		imports[name] = true
	}
	// foreign returns the qualified name of the variable e is, if it is a
	// package-level variable of another package.
	foreign := func(e ast.Expr) (string, bool) {
		sel, ok := e.(*ast.SelectorExpr)
		if !ok {
			return "", false
		}
		x, ok := sel.X.(*ast.Ident)
		if !ok {
			return "", false
		}
		if info == nil {
			return x.Name + "." + sel.Sel.Name, x.Obj == nil && imports[x.Name]
		}
		if _, ok := info.Uses[x].(*types.PkgName); !ok {
			return "", false
		}
		obj, ok := info.Uses[sel.Sel].(*types.Var)
		return x.Name + "." + sel.Sel.Name, ok && obj.Pkg() != nil && obj.Parent() == obj.Pkg().Scope()
	}
	check := func(e ast.Expr, what string) {
		isForeign := func(e ast.Expr) bool { _, ok := foreign(e); return ok }
		if base := lvalueBase(e, isForeign); base != nil {
			name, _ := foreign(base)
			v.add(base.Pos(), "%s is a variable of another package: a policy may read it but not %s it "+
				"(it would carry state from one episode into the next)", name, what)
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for _, l := range n.Lhs {
				check(l, "assign")
			}
		case *ast.IncDecStmt:
			check(n.X, "change")
		case *ast.RangeStmt:
			if n.Tok == token.ASSIGN {
				if n.Key != nil {
					check(n.Key, "assign")
				}
				if n.Value != nil {
					check(n.Value, "assign")
				}
			}
		case *ast.UnaryExpr:
			if n.Op == token.AND {
				check(n.X, "take the address of")
			}
		case *ast.SliceExpr:
			if t := typeOf(info, n.X); t != nil {
				if _, ok := t.Underlying().(*types.Array); ok {
					check(n.X, "slice")
				}
			}
		case *ast.SelectorExpr:
			// A pointer method called on an addressable value takes its
			// address.
			if info == nil {
				break
			}
			if s := info.Selections[n]; s != nil && s.Kind() == types.MethodVal {
				_, ptrRecv := s.Obj().Type().(*types.Signature).Recv().Type().(*types.Pointer)
				t := typeOf(info, n.X)
				if t == nil {
					break
				}
				_, ptrX := t.Underlying().(*types.Pointer)
				if ptrRecv && !ptrX {
					check(n.X, "call a pointer method on")
				}
			}
		}
		return true
	})
}

// typeOf is info.TypeOf, nil without type information.
func typeOf(info *types.Info, e ast.Expr) types.Type {
	if info == nil {
		return nil
	}
	return info.TypeOf(e)
}

// importPath is the path an import declares ("" if malformed).
func importPath(im *ast.ImportSpec) string {
	p, _ := strconv.Unquote(im.Path.Value)
	return p
}
