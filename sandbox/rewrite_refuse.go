package sandbox

import (
	"go/ast"
	"go/token"
	"go/types"
	"strconv"
	"strings"
)

// Constructs yaegi v0.16.1 runs differently from Go, found by testing the
// two backends against each other (see agree_test.go): rewritten where a
// rewrite keeps Go's meaning, refused otherwise, with a message saying
// what to write instead.

// switchStmt rewrites the case lists of a tagless switch, whose
// expressions after the first yaegi ignores, into one condition, and
// refuses a default clause before other clauses (yaegi takes it as soon
// as it reaches it).
func (rw *rewriter) switchStmt(s *ast.SwitchStmt) {
	rw.defaultLast(s.Body)
	if s.Tag != nil {
		if t := rw.typeOf(s.Tag); t != nil && types.IsInterface(t) {
			rw.refuseRow(s.Tag.Pos(), rowSwitchIface, "a switch on a value of interface type %s: yaegi compares such values wrongly; compare with == nil, or switch on a concrete value",
				rw.c.Info.TypeOf(s.Tag))
		}
		rw.taggedCaseLists(s)
		return
	}
	rw.tagless(s, "")
}

// taggedCaseLists rewrites a tagged switch whose case lists hold an
// expression that is not a constant: yaegi v0.16.1 evaluates only the
// first of a list's calls (switch 4 { case g(3), g(4): } never called g(4)
// nor matched; issue 48, class 3). The tag is evaluated once into a
// variable and the switch becomes a tagless one, each case x becoming
// tag == (x), lists joined by || (same order, same stop):
//
//	switch init; x { case a, g(b): … }
//	  becomes
//	{ init; __t := x; switch { case __t == (a) || __t == (g(b)): … } }
//
// without the block when there is no init statement. A labelled switch
// with an init statement cannot take the block (the label must stay on
// the switch): refused.
func (rw *rewriter) taggedCaseLists(s *ast.SwitchStmt) {
	needed := false
	for _, st := range s.Body.List {
		cc := st.(*ast.CaseClause)
		if len(cc.List) < 2 {
			continue
		}
		for _, e := range cc.List {
			if tv, ok := rw.c.Info.Types[e]; !ok || tv.Value == nil {
				needed = true
			}
		}
	}
	if !needed || rw.c.Info == nil {
		return
	}
	rw.loops++
	tag := reservedPrefix + "tag" + strconv.Itoa(rw.loops)
	if s.Init != nil {
		if _, labelled := rw.parent(s).(*ast.LabeledStmt); labelled {
			rw.refuseRow(s.Pos(), rowSwitchLabel, "a labelled switch with an init statement and a case list holding a call: yaegi evaluates only the first call of a list; move the init statement before the switch")
			return
		}
		// { init; __t := x; switch {  …  } }
		rw.edits = append(rw.edits,
			edit{start: rw.off(s.Switch), end: rw.off(s.Init.Pos()), text: "{ "},
			edit{start: rw.off(s.Body.Rbrace) + 1, end: rw.off(s.Body.Rbrace) + 1, text: " }"})
		rw.wrapOuter(s.Tag, tag+" := ", "; switch")
	} else {
		rw.wrapOuter(s.Tag, tag+" := ", ";")
	}
	rw.tagless(s, tag)
}

// tagless rewrites the case lists of a tagless switch, or of a tagged one
// whose tag is in variable tag (then every case x becomes tag == (x)).
func (rw *rewriter) tagless(s *ast.SwitchStmt, tag string) {
	for _, st := range s.Body.List {
		cc := st.(*ast.CaseClause)
		for i, e := range cc.List {
			switch {
			case tag != "":
				// (tag == x): x in parentheses only when it needs them
				// (a binary expression): yaegi v0.16.1 panics on case t
				// == (1) || … (reflect: call of reflect.Value.Bool on int
				// Value).
				pre, post := "("+tag+" == ", ")"
				if _, bin := ast.Unparen(e).(*ast.BinaryExpr); bin {
					pre, post = pre+"(", "))"
				}
				rw.wrapOuter(e, pre, post)
			case len(cc.List) > 1:
				// case a, b: becomes case (a) || (b): same order, same stop.
				rw.condition(e)
				rw.wrap(e, "(", ")")
			default:
				rw.condition(e)
			}
			if i < len(cc.List)-1 {
				rw.keyedLiterals(e) // now a left operand of ||
				// The comma after e becomes ||; what follows it (spaces,
				// newlines) stays in place.
				comma := rw.commaAfter(e)
				rw.edits = append(rw.edits, edit{start: comma, end: comma + 1, text: " ||"})
			}
		}
	}
}

// commaAfter is the offset of the first comma after e.
func (rw *rewriter) commaAfter(e ast.Expr) int {
	src := rw.c.Source
	for i := rw.off(e.End()); i < len(src); i++ {
		if src[i] == ',' {
			return i
		}
	}
	return rw.off(e.End())
}

func (rw *rewriter) defaultLast(body *ast.BlockStmt) {
	for i, st := range body.List {
		if cc, ok := st.(*ast.CaseClause); ok && cc.List == nil && i < len(body.List)-1 {
			rw.refuseRow(cc.Pos(), rowDefaultFirst, "default is not the last clause of its switch: yaegi takes it when it reaches it, before the cases after it; move default to the end")
		}
	}
}

// typeSwitch refuses what yaegi does not match reliably: cases naming a
// type declared in the policy, or an interface type.
func (rw *rewriter) typeSwitch(s *ast.TypeSwitchStmt) {
	rw.defaultLast(s.Body)
	for _, st := range s.Body.List {
		for _, e := range st.(*ast.CaseClause).List {
			reason := rw.unreliableCaseType(e)
			if t := rw.typeOf(e); reason == "" && t != nil && rw.allow != nil && !isNilIdent(e) {
				if other := rw.allow.ambiguous(t); other != "" {
					reason = "yaegi cannot tell a value of type " + t.String() + " from one of type " + other
				}
			}
			if reason != "" {
				rw.refuseRow(e.Pos(), rowTypeSwitchBad, "type switch case %s: %s; switch on a value of a concrete type (a kind field) instead", rw.text(e), reason)
			}
		}
	}
}

func (rw *rewriter) unreliableCaseType(e ast.Expr) string {
	if id, ok := e.(*ast.Ident); ok && id.Name == "nil" {
		return ""
	}
	if rw.c.Info == nil {
		// Without types: names declared in the file.
		base := e
		if st, ok := base.(*ast.StarExpr); ok {
			base = st.X
		}
		if id, ok := base.(*ast.Ident); ok && id.Obj != nil && id.Obj.Kind == ast.Typ {
			return "yaegi does not match types declared in the policy"
		}
		return ""
	}
	t := rw.c.Info.TypeOf(e)
	if t == nil {
		return ""
	}
	if types.IsInterface(t) {
		return "yaegi does not match interface types in a type switch"
	}
	if rw.declaredHere(t) {
		return "yaegi does not match types declared in the policy"
	}
	return ""
}

// declaredHere reports whether t mentions a named type of the policy.
func (rw *rewriter) declaredHere(t types.Type) bool {
	switch t := t.(type) {
	case *types.Named:
		return t.Obj().Pkg() == rw.c.Types
	case *types.Pointer:
		return rw.declaredHere(t.Elem())
	case *types.Slice:
		return rw.declaredHere(t.Elem())
	case *types.Array:
		return rw.declaredHere(t.Elem())
	case *types.Map:
		return rw.declaredHere(t.Key()) || rw.declaredHere(t.Elem())
	}
	return false
}

// typeOf is the type of e, or nil without type information.
func (rw *rewriter) typeOf(e ast.Expr) types.Type {
	if rw.c.Info == nil {
		return nil
	}
	return rw.c.Info.TypeOf(e)
}

func isNonEmptyInterface(t types.Type) bool {
	if t == nil {
		return false
	}
	it, ok := t.Underlying().(*types.Interface)
	return ok && it.NumMethods() > 0
}

// deferStmt allows the one form yaegi gets right: a function literal
// without arguments, deferred outside loops. yaegi evaluates a deferred
// call's function, receiver and arguments when it runs, not at the defer
// statement, and a function literal deferred in a loop sees the last
// iteration's variables.
func (rw *rewriter) deferStmt(d *ast.DeferStmt) {
	if _, lit := d.Call.Fun.(*ast.FuncLit); !lit || len(d.Call.Args) > 0 {
		rw.refuseRow(d.Pos(), rowDeferOther, "defer of anything but a function literal without arguments: yaegi evaluates the deferred function and its arguments when it runs, not at the defer statement; write defer func() { … }() and copy what it needs into variables first")
		return
	}
	for p := rw.parent(d); p != nil; p = rw.parent(p) {
		switch p.(type) {
		case *ast.FuncLit, *ast.FuncDecl:
			return
		case *ast.ForStmt, *ast.RangeStmt:
			rw.refuseRow(d.Pos(), rowDeferOther, "defer inside a loop: yaegi runs every deferred function literal with the variables of the last iteration; collect what to do in a slice and do it in one deferred function")
			return
		}
	}
}

// recoverCall refuses a use of the value recovered from a panic other
// than comparing it with nil: yaegi gives it other types and values.
func (rw *rewriter) recoverCall(call *ast.CallExpr) {
	id, ok := ast.Unparen(call.Fun).(*ast.Ident)
	if !ok || !rw.isBuiltin(id, "recover") {
		return
	}
	if rw.nilComparedOnly(call) {
		return
	}
	rw.refuseRow(call.Pos(), rowRecoverValue, "the value recovered from a panic is used: under yaegi it has another type and value (a panic(\"x\") does not recover as a string); only compare recover() with nil")
}

// nilComparedOnly reports whether the value of e is discarded, compared
// with nil, or stored in a variable only ever compared with nil.
func (rw *rewriter) nilComparedOnly(e ast.Expr) bool {
	var cur ast.Node = e
	p := rw.parent(cur)
	for {
		if pe, ok := p.(*ast.ParenExpr); ok {
			cur, p = pe, rw.parent(pe)
			continue
		}
		break
	}
	switch p := p.(type) {
	case *ast.ExprStmt:
		return true
	case *ast.BinaryExpr:
		return (p.Op == token.EQL || p.Op == token.NEQ) && (isNilIdent(p.X) || isNilIdent(p.Y))
	case *ast.AssignStmt:
		if len(p.Lhs) != 1 || len(p.Rhs) != 1 {
			return false
		}
		id, ok := p.Lhs[0].(*ast.Ident)
		if !ok {
			return false
		}
		if id.Name == "_" {
			return true
		}
		obj := rw.object(id)
		if obj == nil {
			return false
		}
		ok = true
		ast.Inspect(rw.c.File, func(n ast.Node) bool {
			use, isID := n.(*ast.Ident)
			if !isID || use == id || !rw.refersTo(use, obj) {
				return ok
			}
			if b, isBin := rw.parent(use).(*ast.BinaryExpr); isBin && (b.Op == token.EQL || b.Op == token.NEQ) &&
				(isNilIdent(b.X) || isNilIdent(b.Y)) {
				return ok
			}
			if as, isAssign := rw.parent(use).(*ast.AssignStmt); isAssign {
				for _, l := range as.Lhs {
					if l == use {
						return ok // assigned again: checked where it is assigned
					}
				}
			}
			ok = false
			return false
		})
		return ok
	}
	return false
}

func isNilIdent(e ast.Expr) bool {
	id, ok := ast.Unparen(e).(*ast.Ident)
	return ok && id.Name == "nil"
}

// labeled refuses a goto to a label inside a block, which yaegi cannot
// find, and helps it find labels of loops in case clauses.
func (rw *rewriter) labeled(ls *ast.LabeledStmt) {
	switch ls.Stmt.(type) {
	case *ast.ForStmt, *ast.RangeStmt, *ast.SwitchStmt, *ast.TypeSwitchStmt:
		// A label for break and continue. yaegi does not find one put
		// directly in a case clause: a block around it helps.
		if _, inCase := rw.parent(ls).(*ast.CaseClause); inCase {
			rw.wrap(ls, "{ ", " }")
		}
		return
	}
	if b, ok := rw.parent(ls).(*ast.BlockStmt); ok {
		if _, fn := rw.parent(b).(*ast.FuncDecl); fn {
			return
		}
		if _, fn := rw.parent(b).(*ast.FuncLit); fn {
			return
		}
	}
	rw.refuseRow(ls.Pos(), rowGotoBlock, "label %s is inside a block: yaegi cannot jump to it; use a loop, or put the label at the top level of the function", ls.Label.Name)
}

// errorsCall refuses errors.Is, As, Unwrap and Join: under yaegi they do
// not see the identity and the methods of error types declared in the
// policy.
func (rw *rewriter) errorsCall(sel *ast.SelectorExpr) {
	pkg, ok := sel.X.(*ast.Ident)
	if !ok || !rw.isPackage(pkg, "errors") {
		return
	}
	switch sel.Sel.Name {
	case "Is", "As", "Unwrap", "Join":
		rw.refuseRow(sel.Pos(), rowErrorsIs, "errors.%s: under yaegi it does not see the identity and methods of the policy's error types; compare errors with == nil, or return a plain value (a bool, a code)", sel.Sel.Name)
	}
}

// isPackage reports whether id names the imported package path.
func (rw *rewriter) isPackage(id *ast.Ident, path string) bool {
	if rw.c.Info != nil {
		pn, ok := rw.c.Info.Uses[id].(*types.PkgName)
		return ok && pn.Imported().Path() == path
	}
	if id.Obj != nil {
		return false
	}
	for _, im := range rw.c.File.Imports {
		p, _ := strconv.Unquote(im.Path.Value)
		name := p[strings.LastIndex(p, "/")+1:]
		if im.Name != nil {
			name = im.Name.Name
		}
		if p == path && name == id.Name {
			return true
		}
	}
	return false
}

// binaryExpr refuses == and != with an operand of interface type (any,
// error, or an interface of the policy) other than nil: yaegi compares
// equal values as different when they hold a value of a type the policy
// declares with methods, or fails.
func (rw *rewriter) binaryExpr(b *ast.BinaryExpr) {
	if (b.Op != token.EQL && b.Op != token.NEQ) || rw.c.Info == nil || isNilIdent(b.X) || isNilIdent(b.Y) {
		return
	}
	for _, e := range []ast.Expr{b.X, b.Y} {
		if t := rw.c.Info.TypeOf(e); t != nil && types.IsInterface(t) {
			rw.refuseRow(b.OpPos, rowCompareIface, "%s compares values of interface type %s: yaegi compares equal values as different; compare with nil, or compare concrete values",
				b.Op, t)
			return
		}
	}
}

// mapType refuses maps keyed by an interface type.
func (rw *rewriter) mapType(m *ast.MapType) {
	if rw.c.Info == nil {
		return
	}
	if t := rw.c.Info.TypeOf(m.Key); t != nil && types.IsInterface(t) {
		rw.refuseRow(m.Pos(), rowMapKeyIface, "a map keyed by interface type %s: yaegi does not find equal keys of the policy's types; key the map by a concrete type", t)
	}
}

// packageInit refuses package-level variables initialised by calling a
// function of the policy that changes package-level variables: yaegi
// initialises package-level variables in another order than Go. A
// policy made resettable (withReset) is initialised again, in Go's order,
// before every episode: then yaegi's own order does not matter.
func (rw *rewriter) packageInit() {
	if rw.c.Types != nil && rw.c.Types.Scope().Lookup(resetName) != nil {
		return
	}
	funcs := map[string]*ast.FuncDecl{}
	globals := map[any]string{}
	for _, d := range rw.c.File.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil && d.Body != nil {
				funcs[d.Name.Name] = d
			}
		case *ast.GenDecl:
			if d.Tok != token.VAR {
				continue
			}
			for _, s := range d.Specs {
				for _, n := range s.(*ast.ValueSpec).Names {
					if n.Name != "_" {
						globals[rw.object(n)] = n.Name
					}
				}
			}
		}
	}
	// changes[f]: a package-level variable f changes, directly or through
	// the functions it calls ("" if none).
	changes := map[string]string{}
	var changed func(name string, seen map[string]bool) string
	changed = func(name string, seen map[string]bool) string {
		if c, ok := changes[name]; ok {
			return c
		}
		if seen[name] {
			return ""
		}
		seen[name] = true
		fd := funcs[name]
		found := ""
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			if found != "" {
				return false
			}
			var targets []ast.Expr
			switch n := n.(type) {
			case *ast.AssignStmt:
				targets = n.Lhs
			case *ast.IncDecStmt:
				targets = []ast.Expr{n.X}
			case *ast.CallExpr:
				if id, ok := ast.Unparen(n.Fun).(*ast.Ident); ok && funcs[id.Name] != nil && rw.object(id) == rw.object(funcs[id.Name].Name) {
					found = changed(id.Name, seen)
				}
			}
			for _, t := range targets {
				if root := rootIdent(t); root != nil {
					if g, ok := globals[rw.object(root)]; ok && rw.object(root) != nil {
						found = g
					}
				}
			}
			return found == ""
		})
		changes[name] = found
		return found
	}
	for _, d := range rw.c.File.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.VAR {
			continue
		}
		for _, s := range gd.Specs {
			for _, v := range s.(*ast.ValueSpec).Values {
				ast.Inspect(v, func(n ast.Node) bool {
					call, ok := n.(*ast.CallExpr)
					if !ok {
						return true
					}
					id, ok := ast.Unparen(call.Fun).(*ast.Ident)
					if !ok || funcs[id.Name] == nil || rw.object(id) != rw.object(funcs[id.Name].Name) {
						return true
					}
					if g := changed(id.Name, map[string]bool{}); g != "" {
						rw.refuseRow(call.Pos(), rowInitOrder, "a package-level variable is initialised by calling %s, which changes package-level variable %s: yaegi initialises package-level variables in another order than Go; set %s inside Policy instead (e.g. at its first call)",
							id.Name, g, g)
					}
					return true
				})
			}
		}
	}
}

// derefSelector turns (*p).f into p.f (the same selection: Go
// dereferences p implicitly). yaegi fails to load (*p).f as an element
// of a composite literal, or on the left of an assignment whose right
// side reads it.
func (rw *rewriter) derefSelector(sel *ast.SelectorExpr) {
	if rw.c.Info == nil {
		return
	}
	paren, ok := sel.X.(*ast.ParenExpr)
	if !ok {
		return
	}
	star, ok := paren.X.(*ast.StarExpr)
	if !ok {
		return
	}
	pt, ok := rw.c.Info.TypeOf(star.X).(*types.Pointer)
	if !ok {
		return
	}
	if _, ptr2 := pt.Elem().Underlying().(*types.Pointer); ptr2 {
		return
	}
	if rw.c.Info.Selections[sel] == nil || strings.Contains(rw.text(paren), "\n") {
		return
	}
	// Keep the text's length and lines: blank out "(*" and ")".
	rw.edits = append(rw.edits,
		edit{start: rw.off(paren.Lparen), end: rw.off(star.X.Pos()), text: strings.Repeat(" ", rw.off(star.X.Pos())-rw.off(paren.Lparen))},
		edit{start: rw.off(paren.Rparen), end: rw.off(paren.Rparen) + 1, text: " "})
}

// deleteCall converts a constant key of delete to the map's key type:
// yaegi passes an untyped constant key as an int, and fails on maps with
// other key types (delete(m, 5) on a map[int64]bool).
func (rw *rewriter) deleteCall(call *ast.CallExpr) {
	id, ok := ast.Unparen(call.Fun).(*ast.Ident)
	if !ok || !rw.isBuiltin(id, "delete") || len(call.Args) != 2 || rw.c.Info == nil {
		return
	}
	key := call.Args[1]
	if rw.c.Info.Types[key].Value == nil {
		return
	}
	m, ok := rw.c.Info.TypeOf(call.Args[0]).Underlying().(*types.Map)
	if !ok {
		return
	}
	if ts, ok := rw.typeString(m.Key(), key.Pos()); ok {
		rw.wrap(key, ts+"(", ")")
	}
}

// parenCall turns (f)(x) into f(x) when f names a function of the
// policy: yaegi fails to call a parenthesized function name.
func (rw *rewriter) parenCall(call *ast.CallExpr) {
	paren, ok := call.Fun.(*ast.ParenExpr)
	if !ok {
		return
	}
	id, ok := ast.Unparen(paren).(*ast.Ident)
	if !ok || strings.Contains(rw.text(paren), "\n") {
		return
	}
	if rw.c.Info != nil {
		if _, fn := rw.c.Info.Uses[id].(*types.Func); !fn {
			return
		}
	} else if id.Obj == nil || id.Obj.Kind != ast.Fun {
		return
	}
	// Blank the parentheses, keeping offsets.
	rw.edits = append(rw.edits,
		edit{start: rw.off(paren.Lparen), end: rw.off(id.Pos()), text: strings.Repeat(" ", rw.off(id.Pos())-rw.off(paren.Lparen))},
		edit{start: rw.off(id.End()), end: rw.off(paren.Rparen) + 1, text: strings.Repeat(" ", rw.off(paren.Rparen)+1-rw.off(id.End()))})
}

// logicalOperand helps yaegi with a composite literal with keys (any map
// literal, T{A: 1}) in the left operand of && or ||, which it fails to
// run in some places (len(map[int]bool{4: false}) > 0 && ok panics, and
// so does case f(T{A: 1}) || ok: in a switch): the literal is made by a
// function literal called at once.
func (rw *rewriter) logicalOperand(b *ast.BinaryExpr) {
	if b.Op != token.LAND && b.Op != token.LOR {
		return
	}
	rw.keyedLiterals(b.X)
}

// keyedLiterals wraps the composite literals of x that have keys, or
// contain literals that have, in function literals called at once (see
// logicalOperand).
func (rw *rewriter) keyedLiterals(x ast.Expr) {
	ast.Inspect(x, func(n ast.Node) bool {
		if e, ok := n.(ast.Expr); ok && rw.c.Info != nil && rw.c.Info.Types[e].Value != nil {
			return false // a constant: replaced whole (see foldConst)
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.UnaryExpr:
			// &T{…}: wrapped whole, since the address of a call's result
			// cannot be taken.
			if c, ok := n.X.(*ast.CompositeLit); ok && n.Op == token.AND && c.Type != nil && hasKeys(c) {
				return !rw.madeByCall(n, c, "*")
			}
		case *ast.CompositeLit:
			// A literal of an anonymous struct type too: yaegi fails on
			// m[struct{ r, c int }{r, c}] > 0 && ok (a reflect panic).
			if n.Type != nil && (hasKeys(n) || isStructTypeExpr(n.Type)) {
				return !rw.madeByCall(n, n, "")
			}
		}
		return true
	})
}

// madeByCall wraps e, which is the literal c or its address, in a
// function literal called at once; it reports whether it did.
func (rw *rewriter) madeByCall(e ast.Expr, c *ast.CompositeLit, ptr string) bool {
	var ts string
	if t := rw.typeOf(e); t != nil {
		s, ok := rw.qualified(t, e.Pos())
		if !ok {
			return true // refused
		}
		ts = s
	} else {
		if a, ok := c.Type.(*ast.ArrayType); ok {
			if _, ellipsis := a.Len.(*ast.Ellipsis); ellipsis {
				return false // [...]T cannot be a result type
			}
		}
		ts = ptr + rw.text(c.Type)
	}
	rw.wrap(e, "func() "+ts+" { return ", " }()")
	return true
}

// isStructTypeExpr reports whether a type expression is a struct type
// literal.
func isStructTypeExpr(e ast.Expr) bool {
	_, ok := ast.Unparen(e).(*ast.StructType)
	return ok
}

// hasKeys reports whether a composite literal, or one inside it, has
// keyed elements.
func hasKeys(lit *ast.CompositeLit) bool {
	found := false
	ast.Inspect(lit, func(n ast.Node) bool {
		switch n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.KeyValueExpr:
			found = true
		}
		return !found
	})
	return found
}
