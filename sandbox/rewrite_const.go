package sandbox

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"math"
	"strconv"
)

// Constant expressions. yaegi v0.16.1 evaluates an untyped constant
// expression in the type of its context: var f float64 = 7 / 2 gives 3.5
// where Go gives 3 (the division of two integer constants is an integer
// division, done before the conversion). The rewrite replaces every
// constant expression that is not a plain literal or name by its value,
// computed exactly by the type checker, spelled in its final type.

// constSkip marks the value expressions of constant declarations that
// must keep their form: those repeated implicitly by the next spec of
// their group (a = iota * 2; b; c).
func (rw *rewriter) constSkip() map[ast.Expr]bool {
	skip := map[ast.Expr]bool{}
	for _, d := range rw.c.File.Decls {
		rw.markConstSkips(d, skip)
	}
	ast.Inspect(rw.c.File, func(n ast.Node) bool {
		if ds, ok := n.(*ast.DeclStmt); ok {
			rw.markConstSkips(ds.Decl, skip)
		}
		return true
	})
	return skip
}

func (rw *rewriter) markConstSkips(d ast.Decl, skip map[ast.Expr]bool) {
	gd, ok := d.(*ast.GenDecl)
	if !ok || gd.Tok != token.CONST {
		return
	}
	for i, s := range gd.Specs {
		vs := s.(*ast.ValueSpec)
		repeated := i+1 < len(gd.Specs) && len(gd.Specs[i+1].(*ast.ValueSpec).Values) == 0
		if repeated {
			for _, v := range vs.Values {
				skip[v] = true
			}
		}
	}
}

// foldConst replaces a constant expression by its value; it reports
// whether it did (the expression's parts then need no other edits).
func (rw *rewriter) foldConst(e ast.Expr) bool {
	if rw.c.Info == nil || rw.constSkips[e] {
		return false
	}
	switch x := e.(type) {
	case *ast.BasicLit, *ast.Ident, *ast.SelectorExpr:
		return false
	case *ast.ParenExpr:
		switch ast.Unparen(x).(type) {
		case *ast.BasicLit, *ast.Ident, *ast.SelectorExpr:
			return false
		}
	case *ast.UnaryExpr:
		if _, lit := x.X.(*ast.BasicLit); lit {
			return false
		}
	}
	tv, ok := rw.c.Info.Types[e]
	if !ok || tv.Value == nil || tv.Value.Kind() == constant.Complex || tv.Value.Kind() == constant.Unknown {
		return false
	}
	lit, ok := rw.constText(tv.Value, tv.Type, e.Pos())
	if !ok {
		return false
	}
	rw.edits = append(rw.edits, edit{start: rw.off(e.Pos()), end: rw.off(e.End()), text: lit})
	return true
}

// constText spells constant v of type t: a literal of the right kind,
// converted to t when t is typed. It fails for types the file cannot
// name (declared inside a function), which are left alone.
func (rw *rewriter) constText(v constant.Value, t types.Type, at token.Pos) (string, bool) {
	b, _ := t.Underlying().(*types.Basic)
	if b == nil {
		return "", false
	}
	var lit string
	switch {
	case b.Kind() == types.UntypedFloat:
		return "", false // exact until it meets a type: left as written
	case b.Info()&types.IsFloat != 0:
		// The value rounded to its type, then spelled exactly.
		f, _ := constant.Float64Val(v)
		if b.Kind() == types.Float32 {
			f32, _ := constant.Float32Val(v)
			f = float64(f32)
		}
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return "", false
		}
		lit = strconv.FormatFloat(f, 'g', -1, 64)
		if !containsAny(lit, ".eE") {
			lit += ".0"
		}
	case b.Info()&types.IsInteger != 0 && v.Kind() == constant.Float:
		// An integer-valued float constant in an integer context.
		lit = constant.ToInt(v).ExactString()
	default:
		lit = constLiteral(v, t)
	}
	// Untyped, or the predeclared bool: yaegi takes case bool(false): of
	// a tagless switch as true, and (false) means the same everywhere a
	// bool constant may stand.
	if b.Info()&types.IsUntyped != 0 || t == types.Typ[types.Bool] {
		return "(" + lit + ")", true
	}
	if named, ok := t.(*types.Named); ok && named.Obj().Parent() != named.Obj().Pkg().Scope() {
		return "", false // a type declared inside a function
	}
	ts, ok := rw.typeStringQuiet(t)
	if !ok {
		return "", false
	}
	return ts + "(" + lit + ")", true
}

func containsAny(s, chars string) bool {
	for _, c := range chars {
		for _, d := range s {
			if c == d {
				return true
			}
		}
	}
	return false
}

// typeStringQuiet is typeString without a refusal when t cannot be named.
func (rw *rewriter) typeStringQuiet(t types.Type) (string, bool) {
	n := len(rw.issues)
	s, ok := rw.typeString(t, token.NoPos)
	rw.issues = rw.issues[:n]
	return s, ok
}
