package sandbox

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"path"
	"sort"
	"strings"

	"github.com/traefik/yaegi/stdlib"
)

// refuseRow refuses the construct at p under a row of the subset table
// (see subsetRows): the message names the row and, for a row of the
// yaegi backend alone, says to run the policy on the native backend.
func (rw *rewriter) refuseRow(p token.Pos, id rowID, format string, args ...any) {
	row := rowByID(id)
	pos := rw.c.Fset.Position(p)
	prefix, advice := refusalPrefix, "; or run it on the native backend"
	if row.Both {
		prefix, advice = bothPrefix, ""
	}
	msg := fmt.Sprintf(format, args...)
	rw.issues = append(rw.issues, Issue{Line: pos.Line, Col: pos.Column,
		Msg:     fmt.Sprintf("%s: %s (subset row %s)%s", prefix, msg, row.ID, advice),
		Snippet: sourceLine(rw.c.Source, pos.Line)})
}

// bothPrefix starts a refusal that holds on every backend.
const bothPrefix = "no backend runs this"

// allowList checks the policy against the subset table: every construct
// must fall under an allowed row. It records the rows used (for the
// evidence test) and refuses the others, at most once per row and line.
func (rw *rewriter) allowList() {
	if rw.c.Info == nil {
		rw.refuseRow(rw.c.File.Package, rowNoTypes, "no type information to check the yaegi subset against (it comes from a Go toolchain)")
		return
	}
	a := &allowCheck{rw: rw, info: rw.c.Info, seen: map[string]bool{}}
	rw.allow = a
	a.collectTypes()
	ast.Inspect(rw.c.File, func(n ast.Node) bool {
		if n == nil {
			return false
		}
		if e, ok := n.(ast.Expr); ok {
			if tv, ok := a.info.Types[e]; ok && tv.Value != nil {
				a.use(e.Pos(), rowBasicLit, "")
				a.typeRows(e.Pos(), tv.Type)
				// A constant: folded by the type checker; the names of
				// packages in it must still be ones yaegi has.
				ast.Inspect(e, func(m ast.Node) bool {
					if sel, ok := m.(*ast.SelectorExpr); ok {
						a.selector(sel)
					}
					return true
				})
				return false
			}
		}
		a.node(n)
		return true
	})
}

type allowCheck struct {
	rw   *rewriter
	info *types.Info
	seen map[string]bool // row and line refused already
	// erased counts the types of the policy by their yaegi identity (see
	// erase): the types a value of which yaegi cannot tell apart.
	erased map[string]map[string]bool
}

// count records the use of a row refused elsewhere.
func (a *allowCheck) count(id rowID) {
	if a.rw.rowsUsed != nil {
		a.rw.rowsUsed[id]++
	}
}

// use records a row at p; a row that is not allowed refuses, with
// detail (or the row's construct) as the message.
func (a *allowCheck) use(p token.Pos, id rowID, detail string) {
	a.count(id)
	row := rowByID(id)
	if row.Allowed {
		return
	}
	key := fmt.Sprintf("%s:%d", id, a.rw.c.Fset.Position(p).Line)
	if a.seen[key] {
		return
	}
	a.seen[key] = true
	if detail == "" {
		detail = row.Construct
	}
	why := row.How
	if s, ok := strings.CutPrefix(why, "refused: "); ok {
		detail += ": " + s
	} else if s, ok := strings.CutPrefix(why, "refused on every backend: "); ok {
		detail += ": " + s
	}
	a.rw.refuseRow(p, id, "%s", detail)
}

func (a *allowCheck) node(n ast.Node) {
	switch n := n.(type) {
	case *ast.File, *ast.Ident, *ast.ParenExpr, *ast.KeyValueExpr, *ast.CaseClause, *ast.FieldList,
		*ast.Field, *ast.ImportSpec, *ast.BadExpr, *ast.BadStmt, *ast.BadDecl, *ast.Comment, *ast.CommentGroup,
		*ast.FuncType, *ast.StructType, *ast.ArrayType, *ast.MapType, *ast.FuncDecl, *ast.GenDecl,
		*ast.ValueSpec, *ast.TypeSpec, *ast.InterfaceType, *ast.Ellipsis:
		a.decl(n)
	case *ast.ChanType, *ast.GoStmt, *ast.SelectStmt, *ast.SendStmt, *ast.CommClause:
		a.use(n.Pos(), rowConcurrency, "")
	case *ast.ExprStmt:
		a.use(n.Pos(), rowExprStmt, "")
	case *ast.AssignStmt:
		a.assign(n)
	case *ast.IncDecStmt:
		a.use(n.Pos(), rowIncDec, "")
	case *ast.IfStmt:
		a.use(n.Pos(), rowIf, "")
	case *ast.ForStmt:
		a.use(n.Pos(), rowFor, "")
	case *ast.RangeStmt:
		a.rangeStmt(n)
	case *ast.SwitchStmt:
		a.use(n.Pos(), rowSwitch, "")
		if n.Tag != nil {
			// Cases compare with the tag: as == does.
			if t := a.info.TypeOf(n.Tag); t != nil && !types.IsInterface(t) && hasInterfacePart(t) {
				a.use(n.Tag.Pos(), rowCompareIface, fmt.Sprintf("a switch on %s, which holds an interface value", t))
			}
		}
	case *ast.TypeSwitchStmt:
		a.use(n.Pos(), rowTypeSwitch, "")
	case *ast.BranchStmt:
		a.use(n.Pos(), rowBranch, "")
	case *ast.ReturnStmt:
		a.use(n.Pos(), rowReturn, "")
	case *ast.DeferStmt:
		a.use(n.Pos(), rowDeferLit, "") // the other forms: deferStmt
	case *ast.BlockStmt, *ast.EmptyStmt, *ast.LabeledStmt:
		a.use(n.Pos(), rowBlock, "")
	case *ast.DeclStmt:
		a.use(n.Pos(), rowLocalDecl, "")
	case *ast.BasicLit:
		if n.Kind == token.IMAG {
			a.use(n.Pos(), rowComplex, "an imaginary literal")
		} else {
			a.use(n.Pos(), rowBasicLit, "")
		}
	case *ast.CompositeLit:
		a.use(n.Pos(), rowCompositeLit, "")
		a.typeRows(n.Pos(), a.info.TypeOf(n))
	case *ast.FuncLit:
		a.use(n.Pos(), rowFuncLit, "")
	case *ast.SelectorExpr:
		a.selector(n)
	case *ast.IndexExpr:
		a.index(n.X, n.Pos())
	case *ast.IndexListExpr:
		a.use(n.Pos(), rowGeneric, "an instantiation with type arguments")
	case *ast.SliceExpr:
		if n.Slice3 {
			a.use(n.Pos(), rowSlice3, "")
		} else {
			a.use(n.Pos(), rowSlice, "")
		}
	case *ast.TypeAssertExpr:
		a.assert(n)
	case *ast.CallExpr:
		a.call(n)
	case *ast.StarExpr:
		if !a.info.Types[n].IsType() {
			a.use(n.Pos(), rowUnary, "")
		}
	case *ast.UnaryExpr:
		if n.Op == token.ARROW {
			a.use(n.Pos(), rowConcurrency, "")
		} else {
			a.use(n.Pos(), rowUnary, "")
		}
		a.typeRows(n.Pos(), a.info.TypeOf(n))
	case *ast.BinaryExpr:
		a.binary(n)
	default:
		a.use(n.Pos(), rowOther, fmt.Sprintf("%T", n))
	}
}

// decl classifies declarations and type expressions.
func (a *allowCheck) decl(n ast.Node) {
	switch n := n.(type) {
	case *ast.FuncDecl:
		if n.Type.TypeParams != nil {
			a.use(n.Pos(), rowGeneric, "the generic function "+n.Name.Name)
		}
		if n.Recv != nil {
			a.use(n.Pos(), rowMethod, "")
			for _, f := range n.Recv.List {
				if _, ok := ast.Unparen(stripStar(f.Type)).(*ast.IndexExpr); ok {
					a.use(n.Pos(), rowGeneric, "a method of a generic type")
				}
				if _, ok := ast.Unparen(stripStar(f.Type)).(*ast.IndexListExpr); ok {
					a.use(n.Pos(), rowGeneric, "a method of a generic type")
				}
			}
		} else if n.Name.Name == "init" {
			a.use(n.Pos(), rowInit, "")
		} else {
			a.use(n.Pos(), rowPkgDecl, "")
		}
	case *ast.GenDecl:
		if n.Tok != token.IMPORT && a.rw.parent(n) == a.rw.c.File {
			a.use(n.Pos(), rowPkgDecl, "")
		}
	case *ast.TypeSpec:
		if n.TypeParams != nil {
			a.use(n.Pos(), rowGeneric, "the generic type "+n.Name.Name)
		}
		if n.Assign.IsValid() {
			a.use(n.Pos(), rowAlias, "")
		}
		if _, local := a.rw.parent(a.rw.parent(n)).(*ast.DeclStmt); local {
			a.use(n.Pos(), rowLocalType, "")
		}
		if _, ok := n.Type.(*ast.InterfaceType); ok {
			a.use(n.Pos(), rowIfaceDecl, "")
		}
		if o := a.info.Defs[n.Name]; o != nil {
			a.typeRows(n.Pos(), o.Type().Underlying())
		}
	case *ast.ValueSpec:
		for _, id := range n.Names {
			if o := a.info.Defs[id]; o != nil {
				a.typeRows(id.Pos(), o.Type())
			}
		}
	case *ast.Field:
		if t := a.info.TypeOf(n.Type); t != nil {
			a.typeRows(n.Pos(), t)
		}
	case *ast.InterfaceType:
		for _, m := range n.Methods.List {
			if len(m.Names) == 0 {
				// An embedded element: an interface, or a union of types
				// (a constraint).
				if t := a.info.TypeOf(m.Type); t != nil && !types.IsInterface(t) {
					a.use(m.Pos(), rowGeneric, "a type constraint")
				}
			}
		}
	case *ast.MapType:
		a.typeRows(n.Pos(), a.info.TypeOf(n))
	case *ast.ArrayType, *ast.StructType, *ast.FuncType:
		if t := a.info.TypeOf(n.(ast.Expr)); t != nil {
			a.typeRows(n.Pos(), t)
		}
	}
}

func stripStar(e ast.Expr) ast.Expr {
	if s, ok := e.(*ast.StarExpr); ok {
		return s.X
	}
	return e
}

// typeRows classifies a type: its kinds, map keys, type parameters.
func (a *allowCheck) typeRows(p token.Pos, t types.Type) {
	if t == nil {
		return
	}
	seen := map[types.Type]bool{}
	var walk func(t types.Type)
	walk = func(t types.Type) {
		t = types.Unalias(t)
		if seen[t] {
			return
		}
		seen[t] = true
		switch u := t.(type) {
		case *types.Basic:
			if u.Info()&types.IsComplex != 0 {
				a.use(p, rowComplex, "the complex type "+u.Name())
			} else {
				a.use(p, rowBasicTypes, "")
			}
		case *types.Named:
			if u.TypeArgs() != nil {
				a.use(p, rowGeneric, "the instantiated type "+u.String())
			}
			if o := u.Obj(); o.Pkg() == nil || o.Pkg() == a.rw.c.Types {
				walk(u.Underlying())
			}
		case *types.TypeParam:
			a.use(p, rowGeneric, "the type parameter "+u.Obj().Name())
		case *types.Pointer:
			a.use(p, rowComposite, "")
			walk(u.Elem())
		case *types.Slice:
			a.use(p, rowComposite, "")
			walk(u.Elem())
		case *types.Array:
			a.use(p, rowComposite, "")
			walk(u.Elem())
		case *types.Map:
			a.use(p, rowComposite, "")
			switch {
			case types.IsInterface(u.Key()):
				a.count(rowMapKeyIface) // refused by mapType, which says more
			case hasInterfacePart(u.Key()):
				a.use(p, rowMapKeyIface, "a map keyed by "+u.Key().String()+", which holds an interface value")
			default:
				a.use(p, rowMapKey, "")
			}
			walk(u.Key())
			walk(u.Elem())
		case *types.Struct:
			a.use(p, rowComposite, "")
			for i := 0; i < u.NumFields(); i++ {
				if f := u.Field(i); f.Embedded() && types.IsInterface(f.Type()) {
					a.use(p, rowEmbedIface, "a struct embedding the interface type "+f.Type().String())
				}
				walk(u.Field(i).Type())
			}
		case *types.Signature:
			a.use(p, rowComposite, "")
			if u.TypeParams() != nil {
				a.use(p, rowGeneric, "a generic function type")
			}
			for i := 0; i < u.Params().Len(); i++ {
				walk(u.Params().At(i).Type())
			}
			for i := 0; i < u.Results().Len(); i++ {
				walk(u.Results().At(i).Type())
			}
		case *types.Union:
			a.use(p, rowGeneric, "a type constraint")
		case *types.Interface:
			a.use(p, rowIfaceType, "")
			if !u.IsMethodSet() {
				a.use(p, rowGeneric, "a type constraint")
			}
		case *types.Chan:
			a.use(p, rowConcurrency, "")
		case *types.Tuple:
			for i := 0; i < u.Len(); i++ {
				walk(u.At(i).Type())
			}
		default:
			a.use(p, rowOther, "the type "+t.String())
		}
	}
	walk(t)
}

// hasInterfacePart reports whether a struct or array type has a field
// or element of interface type, at any depth (not through pointers).
func hasInterfacePart(t types.Type) bool {
	switch u := t.Underlying().(type) {
	case *types.Interface:
		return true
	case *types.Array:
		return hasInterfacePart(u.Elem())
	case *types.Struct:
		for i := 0; i < u.NumFields(); i++ {
			if hasInterfacePart(u.Field(i).Type()) {
				return true
			}
		}
	}
	return false
}

func (a *allowCheck) assign(as *ast.AssignStmt) {
	switch as.Tok {
	case token.ASSIGN, token.DEFINE:
		a.use(as.Pos(), rowAssign, "")
	case token.SHL_ASSIGN, token.SHR_ASSIGN:
		if a.info.Types[as.Rhs[0]].Value != nil {
			a.use(as.Pos(), rowOpAssign, "")
		} else {
			a.use(as.Pos(), rowShiftVar, "")
		}
	default:
		a.use(as.Pos(), rowOpAssign, "")
	}
}

func (a *allowCheck) rangeStmt(r *ast.RangeStmt) {
	t := a.info.TypeOf(r.X)
	if t == nil {
		a.use(r.Pos(), rowOther, "range over an expression without a type")
		return
	}
	switch u := t.Underlying().(type) {
	case *types.Slice, *types.Array:
		a.use(r.Pos(), rowRangeSeq, "")
	case *types.Pointer:
		if _, ok := u.Elem().Underlying().(*types.Array); ok {
			a.use(r.Pos(), rowRangePtrArr, "range over the pointer to an array "+t.String()+"; range over the array (*p) or its indices")
		} else {
			a.use(r.Pos(), rowOther, "range over "+t.String())
		}
	case *types.Map:
		a.use(r.Pos(), rowRangeMap, "")
	case *types.Basic:
		switch {
		case u.Info()&types.IsString != 0:
			a.use(r.Pos(), rowRangeString, "")
		case u.Info()&types.IsInteger != 0:
			a.use(r.Pos(), rowRangeInt, "")
		default:
			a.use(r.Pos(), rowOther, "range over "+t.String())
		}
	case *types.Signature:
		a.use(r.Pos(), rowRangeFunc, "")
	case *types.Chan:
		a.use(r.Pos(), rowConcurrency, "")
	default:
		a.use(r.Pos(), rowOther, "range over "+t.String())
	}
}

// selector classifies x.f: a package's name, a field, a method.
func (a *allowCheck) selector(sel *ast.SelectorExpr) {
	if id, ok := sel.X.(*ast.Ident); ok {
		if pn, ok := a.info.Uses[id].(*types.PkgName); ok {
			a.qualified(sel, pn.Imported().Path())
			return
		}
	}
	s := a.info.Selections[sel]
	if s == nil {
		a.use(sel.Pos(), rowOther, "the selector "+sel.Sel.Name)
		return
	}
	switch s.Kind() {
	case types.FieldVal:
		a.use(sel.Pos(), rowField, "")
	case types.MethodVal:
		if call, ok := a.rw.parent(sel).(*ast.CallExpr); ok && ast.Unparen(call.Fun) == sel {
			a.use(sel.Pos(), rowMethodCall, "")
		} else {
			a.use(sel.Pos(), rowMethodValue, "")
		}
	case types.MethodExpr:
		a.use(sel.Pos(), rowMethodValue, "")
	}
}

// qualified classifies a name of an imported package: it must be in
// yaegi's symbol table, which is what the interpreter can reach.
func (a *allowCheck) qualified(sel *ast.SelectorExpr, pkgPath string) {
	if pkgPath == "ssd" {
		a.use(sel.Pos(), rowSSD, "")
		return
	}
	if pkgPath == "errors" {
		switch sel.Sel.Name {
		case "Is", "As", "Unwrap", "Join":
			a.count(rowErrorsIs) // refused by errorsCall, which says more
			return
		}
	}
	if pkgPath == "math" {
		switch {
		case archMath[sel.Sel.Name]:
			a.count(rowArchMath) // refused by mathValue, which says more
			return
		case nanObservers[sel.Sel.Name] != "" || sel.Sel.Name == "Copysign":
			a.use(sel.Pos(), rowNaNBits, "")
			return
		}
	}
	if _, ok := stdlib.Symbols[pkgPath+"/"+path.Base(pkgPath)][sel.Sel.Name]; !ok {
		a.use(sel.Pos(), rowStdMissing, pkgPath+"."+sel.Sel.Name)
		return
	}
	a.use(sel.Pos(), rowStd, "")
}

func (a *allowCheck) index(x ast.Expr, p token.Pos) {
	tv := a.info.Types[x]
	if tv.IsType() {
		a.use(p, rowGeneric, "an instantiation with type arguments")
		return
	}
	if _, ok := tv.Type.(*types.Signature); ok {
		a.use(p, rowGeneric, "an instantiation of a generic function")
		return
	}
	a.use(p, rowIndex, "")
}

// assert classifies x.(T): allowed when yaegi can tell T's values from
// those of every other type of the policy (see ambiguous).
func (a *allowCheck) assert(ta *ast.TypeAssertExpr) {
	if ta.Type == nil {
		return // the x.(type) of a type switch: classified there
	}
	t := a.info.TypeOf(ta.Type)
	switch {
	case t == nil:
		a.use(ta.Pos(), rowOther, "a type assertion")
	case types.IsInterface(t):
		a.use(ta.Pos(), rowAssertIface, "type assertion to the interface type "+a.rw.text(ta.Type))
	default:
		if other := a.ambiguous(t); other != "" {
			a.use(ta.Pos(), rowAssertAmbig, fmt.Sprintf("type assertion to %s, which the interpreter cannot tell from %s", t, other))
		} else {
			a.use(ta.Pos(), rowAssertSafe, "")
		}
	}
}

// call classifies calls, conversions and builtins.
func (a *allowCheck) call(call *ast.CallExpr) {
	fun := ast.Unparen(call.Fun)
	if tv := a.info.Types[fun]; tv.IsType() {
		a.conversion(call, tv.Type)
		return
	}
	if id, ok := fun.(*ast.Ident); ok {
		if b, ok := a.info.Uses[id].(*types.Builtin); ok {
			switch b.Name() {
			case "len", "cap", "append", "copy", "make", "delete", "panic", "min", "max", "clear":
				a.use(call.Pos(), rowBuiltin, "")
			case "new":
				a.use(call.Pos(), rowBuiltinNew, "")
			case "recover":
				a.use(call.Pos(), rowBuiltin, "")
			default:
				a.use(call.Pos(), rowBuiltinOther, "the builtin "+b.Name())
			}
			return
		}
	}
	if _, ok := fun.(*ast.IndexExpr); ok {
		return // an instantiation: classified by index
	}
	a.use(call.Pos(), rowCall, "")
}

// conversion classifies T(x).
func (a *allowCheck) conversion(call *ast.CallExpr, to types.Type) {
	if len(call.Args) != 1 {
		return
	}
	from := a.info.TypeOf(call.Args[0])
	if from == nil {
		return
	}
	if b, ok := from.(*types.Basic); ok && b.Kind() == types.UntypedNil {
		a.use(call.Pos(), rowConvNamed, "")
		return
	}
	if _, ok := to.(*types.TypeParam); ok {
		a.use(call.Pos(), rowGeneric, "a conversion to a type parameter")
		return
	}
	if types.IsInterface(to) {
		a.use(call.Pos(), rowConvIface, "")
		return
	}
	tu, fu := to.Underlying(), from.Underlying()
	tb, tBasic := tu.(*types.Basic)
	fb, fBasic := fu.(*types.Basic)
	switch {
	case tBasic && fBasic:
		ti, fi := tb.Info(), fb.Info()
		switch {
		case ti&types.IsInteger != 0 && fi&types.IsInteger != 0:
			a.use(call.Pos(), rowConvInt, "")
		case ti&types.IsFloat != 0 && fi&types.IsInteger != 0:
			a.use(call.Pos(), rowConvIntFloat, "")
		case ti&types.IsInteger != 0 && fi&types.IsFloat != 0:
			a.use(call.Pos(), rowConvFloatInt, "")
		case ti&types.IsFloat != 0 && fi&types.IsFloat != 0:
			a.use(call.Pos(), rowConvFloat, "")
		case ti&types.IsString != 0 && fi&(types.IsInteger|types.IsString) != 0:
			a.use(call.Pos(), rowConvString, "")
		case ti&types.IsBoolean != 0 && fi&types.IsBoolean != 0:
			a.use(call.Pos(), rowConvNamed, "")
		default:
			a.use(call.Pos(), rowConvOther, fmt.Sprintf("a conversion from %s to %s", from, to))
		}
	case tBasic && tb.Info()&types.IsString != 0 || fBasic && fb.Info()&types.IsString != 0:
		if isByteOrRuneSlice(tu) || isByteOrRuneSlice(fu) {
			a.use(call.Pos(), rowConvString, "")
		} else {
			a.use(call.Pos(), rowConvOther, fmt.Sprintf("a conversion from %s to %s", from, to))
		}
	case types.Identical(tu, fu):
		if _, ptr := tu.(*types.Pointer); ptr {
			a.use(call.Pos(), rowConvOther, fmt.Sprintf("a pointer conversion from %s to %s", from, to))
		} else {
			a.use(call.Pos(), rowConvNamed, "")
		}
	default:
		a.use(call.Pos(), rowConvOther, fmt.Sprintf("a conversion from %s to %s", from, to))
	}
}

func isByteOrRuneSlice(t types.Type) bool {
	s, ok := t.(*types.Slice)
	if !ok {
		return false
	}
	b, ok := s.Elem().Underlying().(*types.Basic)
	return ok && (b.Kind() == types.Byte || b.Kind() == types.Rune)
}

func (a *allowCheck) binary(b *ast.BinaryExpr) {
	switch b.Op {
	case token.LAND, token.LOR:
		a.use(b.OpPos, rowLogical, "")
	case token.SHL, token.SHR:
		if a.info.Types[b.Y].Value != nil {
			a.use(b.OpPos, rowShiftConst, "")
		} else {
			a.use(b.OpPos, rowShiftVar, "")
		}
	case token.EQL, token.NEQ:
		a.equality(b)
	case token.LSS, token.LEQ, token.GTR, token.GEQ:
		a.use(b.OpPos, rowCompare, "")
	default:
		a.use(b.OpPos, rowArith, "")
	}
	a.typeRows(b.OpPos, a.info.TypeOf(b))
}

// equality classifies == and != by the operands' type.
func (a *allowCheck) equality(b *ast.BinaryExpr) {
	if isNilIdent(b.X) || isNilIdent(b.Y) {
		a.use(b.OpPos, rowCompare, "")
		return
	}
	t := a.info.TypeOf(b.X)
	if t == nil || types.IsInterface(t) {
		t = a.info.TypeOf(b.Y)
	}
	if t == nil {
		a.use(b.OpPos, rowOther, "a comparison")
		return
	}
	if types.IsInterface(a.info.TypeOf(b.X)) || types.IsInterface(a.info.TypeOf(b.Y)) {
		a.count(rowCompareIface) // refused by binaryExpr, which says more
		return
	}
	switch u := t.Underlying().(type) {
	case *types.Basic:
		a.use(b.OpPos, rowCompare, "")
	case *types.Pointer:
		if zeroSize(u.Elem()) {
			a.use(b.OpPos, rowCompareZero, fmt.Sprintf("%s on pointers to the zero-size type %s", b.Op, u.Elem()))
		} else {
			a.use(b.OpPos, rowCompare, "")
		}
	case *types.Struct, *types.Array:
		if hasInterfacePart(t) {
			a.use(b.OpPos, rowCompareIface, fmt.Sprintf("%s on %s, which holds an interface value", b.Op, t))
		} else {
			a.use(b.OpPos, rowCompareComp, "")
		}
	default:
		a.use(b.OpPos, rowOther, fmt.Sprintf("%s on %s", b.Op, t))
	}
}

// zeroSize reports whether values of t take no memory.
func zeroSize(t types.Type) bool {
	return types.SizesFor("gc", "amd64").Sizeof(t) == 0
}

// collectTypes gathers the types of the policy's expressions and
// declarations by their yaegi identity (see erase).
func (a *allowCheck) collectTypes() {
	a.erased = map[string]map[string]bool{}
	add := func(t types.Type) {
		if t == nil || types.IsInterface(t) {
			return
		}
		if b, ok := t.(*types.Basic); ok {
			if b.Kind() == types.UntypedNil {
				return
			}
			t = types.Default(t)
		}
		t = types.Unalias(t)
		if _, ok := t.(*types.Tuple); ok {
			return
		}
		k := a.erase(t, 0)
		if a.erased[k] == nil {
			a.erased[k] = map[string]bool{}
		}
		a.erased[k][types.TypeString(t, a.qualifier)] = true
		if _, ok := t.(*types.Pointer); !ok {
			p := types.NewPointer(t)
			k := a.erase(p, 0)
			if a.erased[k] == nil {
				a.erased[k] = map[string]bool{}
			}
			a.erased[k][types.TypeString(p, a.qualifier)] = true
		}
	}
	for _, tv := range a.info.Types {
		if tv.IsValue() {
			add(tv.Type)
		}
	}
	for _, o := range a.info.Defs {
		if o != nil {
			add(o.Type())
		}
	}
	// The builtin types a constant or a conversion may box.
	for _, k := range []types.BasicKind{types.Bool, types.Int, types.Int8, types.Int16, types.Int32, types.Int64,
		types.Uint, types.Uint8, types.Uint16, types.Uint32, types.Uint64, types.Uintptr, types.Float32,
		types.Float64, types.String} {
		add(types.Typ[k])
	}
}

func (a *allowCheck) qualifier(p *types.Package) string {
	if p == a.rw.c.Types {
		return ""
	}
	return p.Name()
}

// erase spells t as the interpreter knows it: yaegi gives a type the
// policy declares no identity of its own, only its underlying type's;
// compiled types, those of ssd and the standard library, keep theirs only
// when their underlying type is basic or an interface.
func (a *allowCheck) erase(t types.Type, depth int) string {
	t = types.Unalias(t)
	if depth > 8 {
		return "…"
	}
	switch u := t.(type) {
	case *types.Named:
		// A compiled type keeps its identity only when its underlying
		// type is basic (time.Duration is not an int64 to yaegi); one of a
		// composite kind is taken for its shape: var a any = ssd.Pos{}
		// satisfied a.(P) with type P struct{ R, C int }, and
		// sort.IntSlice a.([]int) (issue 48, class 5).
		if o := u.Obj(); o.Pkg() != nil && o.Pkg() != a.rw.c.Types {
			if _, basic := u.Underlying().(*types.Basic); basic || types.IsInterface(u) {
				return o.Pkg().Path() + "." + o.Name()
			}
		}
		return a.erase(u.Underlying(), depth+1)
	case *types.Pointer:
		return "*" + a.erase(u.Elem(), depth+1)
	case *types.Slice:
		return "[]" + a.erase(u.Elem(), depth+1)
	case *types.Array:
		return fmt.Sprintf("[%d]%s", u.Len(), a.erase(u.Elem(), depth+1))
	case *types.Map:
		return "map[" + a.erase(u.Key(), depth+1) + "]" + a.erase(u.Elem(), depth+1)
	case *types.Struct:
		var b strings.Builder
		b.WriteString("struct{")
		for i := 0; i < u.NumFields(); i++ {
			f := u.Field(i)
			fmt.Fprintf(&b, "%s %s;", f.Name(), a.erase(f.Type(), depth+1))
		}
		b.WriteString("}")
		return b.String()
	case *types.Basic:
		if u.Kind() == types.UntypedNil {
			return "nil"
		}
		return types.Default(u).String()
	}
	return types.TypeString(t, a.qualifier)
}

// ambiguous names another type of the policy that the interpreter
// cannot tell from t, or returns "".
func (a *allowCheck) ambiguous(t types.Type) string {
	self := types.TypeString(types.Unalias(t), a.qualifier)
	var others []string
	for name := range a.erased[a.erase(t, 0)] {
		if name != self {
			others = append(others, name)
		}
	}
	sort.Strings(others)
	if len(others) == 0 {
		return ""
	}
	return others[0]
}
