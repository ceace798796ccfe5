package difftest

import (
	"fmt"
	"strconv"
	"strings"
)

// block generates n statements at nesting depth d into out, inside a new
// scope, and folds the variables declared in it into the digest before
// the scope ends.
func (g *gen) block(out *w, n, d int) {
	g.push()
	for i := 0; i < n; i++ {
		g.stmt(out, d)
	}
	g.foldScope(out)
	g.pop()
}

// foldScope folds the variables of the innermost scope into the digest.
func (g *gen) foldScope(out *w) {
	for _, v := range g.sc.vars {
		if v.name == "_" {
			continue
		}
		out.line("%s = %s", g.fn.acc, g.fold(g.fn.acc, v.t, v.name))
	}
}

// stmt generates one statement (or a few that belong together).
func (g *gen) stmt(out *w, d int) {
	g.stmt1(out, d)
	// Not inside function literals: folding a variable there makes the
	// literal capture it, which may change what the program computes.
	if g.cfg.Checkpoint && g.fn.closure == 0 {
		for _, v := range g.visible() {
			if v.t.k != kFunc && v.name != "_" {
				out.line("%s = %s // checkpoint %s", g.fn.acc, g.fold(g.fn.acc, v.t, v.name), v.name)
			}
		}
	}
}

func (g *gen) stmt1(out *w, d int) {
	if g.fn.cost > costLimit {
		g.assignStmt(out, 1)
		return
	}
	deep := d > 0
	ws := []int{
		6,             // declare
		7,             // assign
		3,             // compound assign, inc/dec
		3,             // parallel assign or define
		b2i(deep) * 3, // if
		b2i(deep) * 3, // for
		b2i(deep) * 2, // switch
		b2i(deep) * 2, // closure
		2,             // method call
		3,             // slice and map operations
		b2i(deep) * 4, // idioms
		1,             // early return
		1,             // observe: fold a value now
		b2i(deep) * 1, // block with shadowing
		b2i(deep) * 1, // defer and recover
		b2i(deep) * 1, // labelled loops
		2,             // two results: x, ok := …
	}
	switch g.weighted(ws...) {
	case 0:
		g.declStmt(out, d)
	case 1:
		g.assignStmt(out, d)
	case 2:
		g.opAssign(out, d)
	case 3:
		g.parallel(out, d)
	case 4:
		g.ifStmt(out, d)
	case 5:
		g.forStmt(out, d)
	case 6:
		g.switchStmt(out, d)
	case 7:
		g.closureStmt(out, d)
	case 8:
		g.methodStmt(out, d)
	case 9:
		g.containerStmt(out, d)
	case 10:
		g.idiom(out, d)
	case 11:
		g.earlyReturn(out, d)
	case 12:
		t := g.someVarType()
		out.line("%s = %s", g.fn.acc, g.fold(g.fn.acc, t, g.expr(t, 2).s))
	case 13:
		out.line("{")
		out.indent++
		g.block(out, 1+g.intn(3), d-1)
		out.indent--
		out.line("}")
	case 14:
		g.deferStmt(out, d)
	case 15:
		g.labelled(out, d)
	case 16:
		g.multiAssign(out, d)
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// randType is a type for a new variable.
func (g *gen) randType(d int) *typ {
	basic := []*typ{tInt, tInt, tInt, tFloat64, tFloat64, tString, tBool, tInt8, tInt16, tInt32, tInt64,
		tUint8, tUint16, tUint32, tUint64, tUint, tFloat32}
	switch g.weighted(10, 3, 2, 2, 3, 2, 2, 1, 1) {
	case 0:
		return pick(g, basic)
	case 1:
		return tPos
	case 2:
		if len(g.types) > 0 {
			return pick(g, g.types)
		}
		return tPos
	case 3:
		if d <= 0 {
			return tInt
		}
		return arrayOf(2+g.intn(3), g.elemType(d-1))
	case 4:
		if d <= 0 {
			return sliceOf(tInt)
		}
		return sliceOf(g.elemType(d - 1))
	case 5:
		if d <= 0 {
			return mapOf(tInt, tInt)
		}
		return mapOf(g.keyType(), g.elemType(d-1))
	case 6:
		if len(g.types) > 0 {
			return ptrTo(pick(g, g.types))
		}
		return ptrTo(tPos)
	case 7:
		return funcOf(pick(g, []*typ{tInt, tBool, tFloat64, tString}), pick(g, []*typ{tInt, tPos, tFloat64}))
	}
	return tAny
}

func (g *gen) elemType(d int) *typ {
	switch g.intn(8) {
	case 0, 1, 2:
		return pick(g, []*typ{tInt, tFloat64, tString, tBool, tUint8, tInt64})
	case 3, 4:
		return tPos
	case 5:
		if len(g.types) > 0 {
			return pick(g, g.types)
		}
	case 6:
		if d > 0 {
			return arrayOf(2, tInt)
		}
	case 7:
		if d > 0 {
			return sliceOf(tInt)
		}
	}
	return tInt
}

func (g *gen) keyType() *typ {
	ks := []*typ{tInt, tInt, tString, tPos, tPos, arrayOf(2, tInt), tBool, tUint8}
	for _, t := range g.types {
		if t.comparable() && !t.hasFloat() {
			ks = append(ks, t)
		}
	}
	return pick(g, ks)
}

// hasFloat reports whether a value of t may hold a float (NaN keys are
// never equal to themselves: avoided as map keys).
func (t *typ) hasFloat() bool {
	switch t.k {
	case kFloat32, kFloat64, kAny:
		return true
	case kArray:
		return t.elem.hasFloat()
	case kStruct:
		for _, f := range t.fields {
			if f.t.hasFloat() {
				return true
			}
		}
	}
	return false
}

// someVarType is the type of a visible variable, or int.
func (g *gen) someVarType() *typ {
	vs := g.visible()
	if len(vs) == 0 {
		return tInt
	}
	return pick(g, vs).t
}

// declStmt declares a variable in one of Go's ways.
func (g *gen) declStmt(out *w, d int) {
	t := g.randType(2)
	name := g.fresh(varPrefix(t))
	e := g.expr(t, 2)
	switch {
	case g.chance(1, 6) && t.k != kFunc && t.k != kPtr:
		out.line("var %s %s", name, t)
		if t.k == kMap {
			out.line("%s = %s", name, g.compositeMap(t, 1).s)
		}
	case e.c, t.k == kAny, g.chance(1, 4):
		out.line("var %s %s = %s", name, t, e.s)
	default:
		out.line("%s := %s", name, e.s)
	}
	g.declare(name, t, false)
}

func varPrefix(t *typ) string {
	switch {
	case t.isInt():
		return pick0([]string{"n", "cnt", "d", "idx", "k"}, t)
	case t.isFloat():
		return pick0([]string{"score", "f", "w"}, t)
	case t.k == kString:
		return "s"
	case t.k == kBool:
		return "ok"
	case t == tPos:
		return "p"
	case t.k == kSlice:
		return "list"
	case t.k == kMap:
		return "m"
	case t.k == kFunc:
		return "fn"
	case t.k == kPtr:
		return "ptr"
	}
	return "x"
}

// pick0 picks a name deterministically from the type (no randomness, so
// that names do not disturb the random stream).
func pick0(xs []string, t *typ) string { return xs[int(t.k)%len(xs)] }

// lvalue is an assignable expression of some type, and a guard that must
// hold for it to be valid ("" if none).
type lvalue struct {
	s     string
	t     *typ
	guard string
}

// lvalues lists assignable places reachable from variables in scope.
func (g *gen) lvalues() []lvalue {
	var out []lvalue
	var walk func(e string, t *typ, guard string, depth int)
	walk = func(e string, t *typ, guard string, depth int) {
		out = append(out, lvalue{e, t, guard})
		if depth >= 2 {
			return
		}
		switch t.k {
		case kStruct:
			for _, f := range t.fields {
				walk(e+"."+f.name, f.t, guard, depth+1)
				if f.embedded && f.t.ext {
					for _, pf := range f.t.fields { // promoted
						walk(e+"."+pf.name, pf.t, guard, depth+2)
					}
				}
			}
		case kPtr:
			if depth == 0 {
				// (*p).f = … is a load failure in yaegi: fields via p.f.
				out = append(out, lvalue{"(*" + e + ")", t.elem, guard})
				for _, f := range t.elem.fields {
					walk(e+"."+f.name, f.t, guard, depth+1)
				}
			}
		case kArray:
			walk(fmt.Sprintf("%s[%d]", e, g.intn(t.n)), t.elem, guard, depth+1)
		case kSlice:
			if depth == 0 {
				walk(fmt.Sprintf("%s[ix(%s, len(%s))]", e, g.runtimeValue(tInt).s, e), t.elem, "len("+e+") > 0", depth+1)
			}
		case kMap:
			if depth == 0 {
				out = append(out, lvalue{fmt.Sprintf("%s[%s]", e, g.literalKey(t.key)), t.elem, ""})
			}
		}
	}
	for _, v := range g.visible() {
		if v.fixed || v.t.k == kFunc {
			continue
		}
		walk(v.name, v.t, "", 0)
	}
	return out
}

// rhs is an expression for an assignment to a place of type t; strings
// assigned in loops are kept short.
func (g *gen) rhs(t *typ, d int) string {
	e := g.expr(t, d)
	if t.k == kString && !e.c {
		return "cut(" + e.s + ")"
	}
	if t.k == kSlice && g.fn.loops > 0 {
		// Bound growth: appends inside loops see at most 64 elements.
		return e.s
	}
	return e.s
}

func (g *gen) guarded(out *w, guard string, f func()) {
	if guard == "" {
		f()
		return
	}
	out.line("if %s {", guard)
	out.indent++
	f()
	out.indent--
	out.line("}")
}

func (g *gen) assignStmt(out *w, d int) {
	lvs := g.lvalues()
	if len(lvs) == 0 {
		g.declStmt(out, d)
		return
	}
	lv := pick(g, lvs)
	rhs := g.rhs(lv.t, 2)
	if lv.t.k == kSlice && strings.HasPrefix(rhs, "append(") {
		// Bounded growth across calls and loops.
		g.guarded(out, "len("+lv.s+") < 64", func() { out.line("%s = %s", lv.s, rhs) })
		return
	}
	if lv.t.k == kStruct && g.chance(1, 2) {
		// A whole struct reassigned with a composite literal: other
		// places that see the variable (pointers, closures) must see it.
		rhs = g.compositeStruct(lv.t, 1).s
	}
	g.guarded(out, lv.guard, func() { out.line("%s = %s", lv.s, rhs) })
}

func (g *gen) opAssign(out *w, d int) {
	var cands []lvalue
	for _, lv := range g.lvalues() {
		if lv.t.isNumeric() || lv.t.k == kString {
			cands = append(cands, lv)
		}
	}
	if len(cands) == 0 {
		g.declStmt(out, d)
		return
	}
	lv := pick(g, cands)
	g.guarded(out, lv.guard, func() {
		switch {
		case lv.t.k == kString:
			out.line("%s = cut(%s + %s)", lv.s, lv.s, g.expr(tString, 1).s)
		case g.chance(1, 3):
			out.line("%s%s", lv.s, pick(g, []string{"++", "--"}))
		case lv.t.isInt():
			switch g.intn(4) {
			case 0:
				out.line("%s %s= (%s | 1)", lv.s, pick(g, []string{"/", "%"}), g.nonConst(lv.t, 1).s)
			case 1:
				out.line("%s %s= uint(%s) & 15", lv.s, pick(g, []string{"<<", ">>"}), g.nonConst(tInt, 1).s)
			default:
				out.line("%s %s= %s", lv.s, pick(g, []string{"+", "-", "*", "&", "|", "^", "&^"}), g.expr(lv.t, 2).s)
			}
		default:
			out.line("%s %s= %s", lv.s, pick(g, []string{"+", "-", "*", "/"}), g.nonConst(lv.t, 2).s)
		}
	})
}

// parallel is a parallel assignment or definition: all right-hand sides
// evaluated before any assignment, composite literals and calls mixed
// with other values, swaps, index expressions on the left.
func (g *gen) parallel(out *w, d int) {
	n := 2 + g.intn(2)
	if g.chance(1, 2) {
		// Define: new variables, maybe redeclaring one in scope.
		var names, vals []string
		var ts []*typ
		var redecl *variable
		if len(g.sc.vars) > 0 && g.chance(1, 3) {
			if r := pick(g, g.sc.vars); !r.fixed && r.t.k != kFunc {
				redecl = r
			}
		}
		for i := 0; i < n; i++ {
			t := g.randType(1)
			if !t.defaultKind() && t.k <= kBool || t.k == kAny {
				t = tInt
			}
			if i == 0 && redecl != nil {
				t = redecl.t
			}
			e := g.expr(t, 2)
			if t.k == kStruct && g.chance(1, 2) {
				e = g.compositeStruct(t, 1)
			}
			e.s = g.typed(t, e)
			name := g.fresh(varPrefix(t))
			if i == 0 && redecl != nil {
				name = redecl.name
			}
			names = append(names, name)
			vals = append(vals, e.s)
			ts = append(ts, t)
		}
		if redecl != nil || g.chance(1, 2) {
			out.line("%s := %s", strings.Join(names, ", "), strings.Join(vals, ", "))
		} else {
			out.line("var %s = %s", strings.Join(names, ", "), strings.Join(vals, ", "))
		}
		for i, name := range names {
			if i == 0 && redecl != nil {
				continue
			}
			g.declare(name, ts[i], false)
		}
		return
	}
	lvs := g.lvalues()
	var pickd []lvalue
	used := map[string]bool{}
	for _, lv := range lvs {
		if lv.guard == "" && !used[lv.s] {
			pickd = append(pickd, lv)
		}
	}
	if len(pickd) < 2 {
		g.declStmt(out, d)
		return
	}
	var lhs, rhs []string
	var chosen []lvalue
	for len(chosen) < n && len(pickd) > 0 {
		i := g.intn(len(pickd))
		lv := pickd[i]
		pickd = append(pickd[:i], pickd[i+1:]...)
		if used[lv.s] {
			continue
		}
		used[lv.s] = true
		chosen = append(chosen, lv)
	}
	if len(chosen) < 2 {
		g.declStmt(out, d)
		return
	}
	swap := g.chance(1, 3)
	for i, lv := range chosen {
		lhs = append(lhs, lv.s)
		var e string
		switch {
		case swap && i > 0 && chosen[i-1].t.same(lv.t):
			// Swap with the previous target.
			e = chosen[i-1].s
			rhs[i-1] = lv.s
		case lv.t.k == kStruct && g.chance(1, 2):
			e = g.compositeStruct(lv.t, 1).s
		case lv.t.k == kSlice && g.chance(1, 5):
			e = "nil" // an untyped nil among several values
		default:
			e = g.rhs(lv.t, 2)
		}
		rhs = append(rhs, e)
	}
	out.line("%s = %s", strings.Join(lhs, ", "), strings.Join(rhs, ", "))
}

// cond is a boolean condition for an if, for or switch header,
// parenthesized so that composite literals parse.
func (g *gen) cond(d int) string {
	return "(" + g.expr(tBool, d).s + ")"
}

func (g *gen) ifStmt(out *w, d int) {
	if g.chance(1, 3) {
		t := pick(g, []*typ{tInt, tFloat64, tPos, tString})
		name := g.fresh("t")
		init := g.typed(t, g.expr(t, 2))
		g.push()
		g.declare(name, t, false)
		out.line("if %s := (%s); %s {", name, init, g.cond(2))
		out.indent++
		out.line("%s = %s", g.fn.acc, g.fold(g.fn.acc, t, name))
		out.indent--
	} else {
		g.push()
		out.line("if %s {", g.cond(2))
	}
	out.indent++
	g.block(out, 1+g.intn(3), d-1)
	out.indent--
	for g.chance(1, 3) {
		out.line("} else if %s {", g.cond(2))
		out.indent++
		g.block(out, 1+g.intn(2), d-1)
		out.indent--
	}
	if g.chance(1, 2) {
		out.line("} else {")
		out.indent++
		g.block(out, 1+g.intn(2), d-1)
		out.indent--
	}
	out.line("}")
	g.pop()
}

// loop runs body inside a loop of n iterations as far as cost goes.
func (g *gen) enterLoop(n int) bool {
	if g.fn.mult*n > 400 || g.fn.cost+g.fn.mult*n > costLimit {
		return false
	}
	g.fn.mult *= n
	g.fn.cost += g.fn.mult
	g.fn.loops++
	return true
}

func (g *gen) leaveLoop(n int) {
	g.fn.mult /= n
	g.fn.loops--
}

func (g *gen) forStmt(out *w, d int) {
	n := 1 + g.intn(6)
	if !g.enterLoop(n) {
		g.declStmt(out, d)
		return
	}
	defer g.leaveLoop(n)
	g.push()
	defer g.pop()
	switch g.intn(7) {
	case 0: // three-clause
		i := g.fresh("i")
		g.declare(i, tInt, true)
		out.line("for %s := 0; %s < %d; %s++ {", i, i, n, i)
	case 1: // range over an integer
		i := g.fresh("i")
		g.declare(i, tInt, true)
		out.line("for %s := range %d {", i, n)
	case 2, 3: // range over a slice or an array
		var t *typ
		var src string
		if v := g.someOf(kSlice, kArray); v != nil && g.chance(2, 3) {
			t, src = v.t, v.name
		} else {
			t = g.randType(1)
			for t.k != kSlice && t.k != kArray {
				t = sliceOf(g.elemType(1))
			}
			src = g.expr(t, 2).s
		}
		i, x := g.fresh("i"), g.fresh("e")
		if g.chance(1, 4) {
			g.declare(i, tInt, true)
			g.declare(x, t.elem, false)
			out.line("for _, %s := range (%s) {", x, src)
			out.indent++
			out.line("%s := 0", i)
			out.line("_ = %s", i)
			out.indent--
		} else {
			out.line("for %s, %s := range (%s) {", i, x, src)
			g.declare(i, tInt, true)
			g.declare(x, t.elem, false)
		}
	case 4: // range over a string
		i, r := g.fresh("i"), g.fresh("r")
		out.line("for %s, %s := range (%s) {", i, r, g.expr(tString, 2).s)
		g.declare(i, tInt, true)
		g.declare(r, tInt32, false)
	case 5: // a condition with a bound, or counting down
		if g.chance(1, 2) {
			i := g.fresh("i")
			out.line("for %s := %d - 1; %s >= 0; %s-- {", i, n, i, i)
			g.declare(i, tInt, true)
			break
		}
		i := g.fresh("guard")
		out.line("for %s := 0; %s && %s < %d; %s++ {", i, g.cond(1), i, n, i)
		g.declare(i, tInt, true)
	case 6: // a map, with a body that does not depend on the order
		g.mapRange(out, d)
		return
	}
	out.indent++
	g.loopBody(out, d)
	g.foldScope(out)
	out.indent--
	out.line("}")
}

// loopBody is a loop's body with occasional break and continue.
func (g *gen) loopBody(out *w, d int) {
	g.push()
	k := 1 + g.intn(3)
	for j := 0; j < k; j++ {
		if g.chance(1, 8) {
			out.line("if %s {", g.cond(1))
			out.line("\t%s", pick(g, []string{"continue", "break"}))
			out.line("}")
		}
		g.stmt(out, d-1)
	}
	g.foldScope(out)
	g.pop()
}

// mapRange ranges over a map with commutative integer updates only, so
// that iteration order cannot matter.
func (g *gen) mapRange(out *w, d int) {
	var m *variable
	for _, v := range g.visible() {
		if v.t.k == kMap {
			m = v
		}
	}
	src := ""
	var t *typ
	if m != nil {
		src, t = m.name, m.t
	} else {
		t = mapOf(g.keyType(), tInt)
		src = g.compositeMap(t, 1).s
	}
	sum, cnt := g.fresh("sum"), g.fresh("cnt")
	out.line("var %s uint64", sum)
	out.line("%s := 0", cnt)
	k, e := g.fresh("k"), g.fresh("e")
	out.line("for %s, %s := range (%s) {", k, e, src)
	out.indent++
	out.line("%s++", cnt)
	out.line("%s += final(%s)", sum, g.fold(g.fold("1", t.key, k), t.elem, e))
	if t.elem.k == kInt && g.chance(1, 2) {
		// A maximum: the same in any order.
		mx := g.fresh("mx")
		out.indent--
		out.line("}")
		out.line("%s := 0", mx)
		out.line("for _, %s := range (%s) {", e, src)
		out.indent++
		out.line("if %s > %s {", e, mx)
		out.line("\t%s = %s", mx, e)
		out.line("}")
		out.indent--
		out.line("}")
		out.line("%s = mixI(%s, int64(%s))", g.fn.acc, g.fn.acc, mx)
		out.line("%s = mix(%s, %s+uint64(%s))", g.fn.acc, g.fn.acc, sum, cnt)
		return
	}
	out.indent--
	out.line("}")
	out.line("%s = mix(%s, %s+uint64(%s))", g.fn.acc, g.fn.acc, sum, cnt)
}

func (g *gen) switchStmt(out *w, d int) {
	g.push()
	defer g.pop()
	nc := 2 + g.intn(3)
	defPos := -1
	if g.chance(2, 3) {
		defPos = nc                          // last
		if !g.fn.shared && g.chance(1, 30) { // refused: default before other clauses
			defPos = g.intn(nc + 1)
		}
	}
	tagless := g.chance(1, 2)
	var tagT *typ
	if tagless {
		out.line("switch {")
	} else {
		tagT = pick(g, []*typ{tInt, tInt, tString, tInt8, tUint})
		tag := g.expr(tagT, 2)
		if tag.c {
			tag = g.nonConst(tagT, 2)
		}
		if g.chance(1, 3) {
			x := g.fresh("x")
			out.line("switch %s := (%s); %s {", x, tag.s, x)
			g.declare(x, tagT, false)
		} else {
			out.line("switch (%s) {", tag.s)
		}
	}
	usedVals := map[string]bool{}
	clauses := nc
	if defPos >= 0 {
		clauses++
	}
	ci := 0
	for c := 0; c < clauses; c++ {
		if c == defPos {
			out.line("default:")
		} else {
			var list []string
			for j := 0; j < 1+g.intn(3); j++ {
				if tagless {
					list = append(list, g.expr(tBool, 2).s)
					continue
				}
				lit := g.caseLiteral(tagT)
				if usedVals[lit] {
					continue
				}
				usedVals[lit] = true
				list = append(list, lit)
			}
			if len(list) == 0 {
				list = append(list, g.expr(tagT, 1).s)
				if !tagless {
					// A non-constant case value: never a duplicate.
					list[0] = g.nonConst(tagT, 1).s
				}
			}
			out.line("case %s:", strings.Join(list, ", "))
			ci++
		}
		out.indent++
		g.block(out, 1+g.intn(2), d-1)
		if c < clauses-1 && g.chance(1, 3) {
			out.line("fallthrough")
		}
		out.indent--
	}
	out.line("}")
}

// closureStmt defines a function literal (capturing and changing
// variables in scope) and calls it, or keeps it for later calls.
func (g *gen) closureStmt(out *w, d int) {
	var ps []*typ
	for i := 0; i < g.intn(3); i++ {
		ps = append(ps, pick(g, []*typ{tInt, tPos, tFloat64, tString}))
	}
	t := funcOf(pick(g, []*typ{tInt, tBool, tFloat64, tString, tPos}), ps...)
	name := g.fresh("fn")
	lit := g.funcLit(t, d)
	if g.chance(1, 4) {
		// Recursive: declared first, assigned after.
		out.line("var %s %s", name, t)
		out.line("%s = %s", name, lit.s)
	} else {
		out.line("%s := %s", name, lit.s)
	}
	g.declare(name, t, true)
	for i := 0; i < 1+g.intn(2); i++ {
		out.line("%s = %s", g.fn.acc, g.fold(g.fn.acc, t.result, fmt.Sprintf("%s(%s)", name, g.args(t.params, false, 2))))
	}
}

// funcLit is a function literal of type t that may read and change
// variables in scope.
func (g *gen) funcLit(t *typ, d int) ex {
	body := &w{indent: 1}
	saved := *g.fn
	g.fn.closure++
	g.fn.result, g.fn.result2, g.fn.named = t.result, nil, false
	g.fn.loops = 0
	g.fn.labels = nil
	g.push()
	var ps []string
	for _, p := range t.params {
		name := g.fresh("a")
		g.declare(name, p, false)
		ps = append(ps, name+" "+p.String())
	}
	g.block(body, 1+g.intn(3), min(d, 2)-1)
	body.line("return %s", g.expr(t.result, 2).s)
	g.pop()
	cost := g.fn.cost
	*g.fn = saved
	g.fn.cost = cost
	text := fmt.Sprintf("func(%s) %s {\n%s}", strings.Join(ps, ", "), t.result, body.b.String())
	return ex{s: text}
}

func (g *gen) methodStmt(out *w, d int) {
	var cands []func()
	for _, v := range g.visible() {
		recv := v.t
		isPtr := recv.k == kPtr
		if isPtr {
			recv = recv.elem
		}
		if recv.k != kStruct || v.fixed {
			continue
		}
		for _, m := range methodSet(recv) {
			v, m := v, m
			cands = append(cands, func() {
				call := fmt.Sprintf("%s.%s(v, agent%s)", v.name, m.name, g.argsPrefixed(m.params, false))
				if m.result != nil {
					out.line("%s = %s", g.fn.acc, g.fold(g.fn.acc, m.result, call))
				} else {
					out.line("%s", call)
				}
			})
			if g.chance(1, 3) {
				// A method value: bound now, called later.
				cands = append(cands, func() {
					f := g.fresh("mv")
					out.line("%s := %s.%s", f, v.name, m.name)
					g.stmt(out, 0)
					call := fmt.Sprintf("%s(v, agent%s)", f, g.argsPrefixed(m.params, false))
					if m.result != nil {
						out.line("%s = %s", g.fn.acc, g.fold(g.fn.acc, m.result, call))
					} else {
						out.line("%s", call)
					}
				})
			}
		}
	}
	if len(cands) == 0 {
		g.assignStmt(out, d)
		return
	}
	pick(g, cands)()
}

// containerStmt is an operation on a slice or a map.
func (g *gen) containerStmt(out *w, d int) {
	v := g.someOf(kSlice, kMap)
	if v == nil || v.fixed {
		g.declStmt(out, d)
		return
	}
	if v.t.k == kMap {
		switch g.intn(4) {
		case 0:
			out.line("delete(%s, %s)", v.name, g.literalKey(v.t.key))
		case 1:
			ok, val := g.fresh("ok"), g.fresh("val")
			out.line("if %s, %s := %s[%s]; %s {", val, ok, v.name, g.expr(v.t.key, 1).s, ok)
			out.line("\t%s = %s", g.fn.acc, g.fold(g.fn.acc, v.t.elem, val))
			out.line("}")
		default:
			out.line("%s[%s] = %s", v.name, g.literalKey(v.t.key), g.expr(v.t.elem, 2).s)
		}
		return
	}
	s := v.name
	switch g.intn(7) {
	case 0, 1:
		out.line("if len(%s) < 64 {", s)
		out.line("\t%s = append(%s, %s)", s, s, g.expr(v.t.elem, 2).s)
		out.line("}")
	case 2:
		other := g.fresh("cp")
		out.line("%s := make(%s, ix(%s, 5))", other, v.t, g.expr(tInt, 1).s)
		out.line("%s = mixI(%s, int64(copy(%s, %s)))", g.fn.acc, g.fn.acc, other, s)
		g.declare(other, v.t, false)
	case 3: // append aliasing: a second slice that may share the array
		al := g.fresh("alias")
		out.line("%s := append(%s[:len(%s)/2], %s)", al, s, s, g.expr(v.t.elem, 2).s)
		g.declare(al, v.t, false)
	case 4: // three-index slice, then append
		al := g.fresh("tri")
		out.line("%s := %s[:len(%s)/2:len(%s)/2]", al, s, s, s)
		out.line("%s = append(%s, %s)", al, al, g.expr(v.t.elem, 2).s)
		g.declare(al, v.t, false)
	case 5:
		if v.t.elem.ordered() && !v.t.elem.isFloat() || v.t.elem.k == kFloat64 {
			switch v.t.elem.k {
			case kInt:
				out.line("sort.Ints(%s)", s)
				return
			case kString:
				out.line("sort.Strings(%s)", s)
				return
			case kFloat64:
				out.line("sort.Float64s(%s)", s)
				return
			}
			out.line("sort.Slice(%s, func(i, j int) bool { return %s[i] < %s[j] })", s, s, s)
			return
		}
		if v.t.elem == tPos {
			out.line("sort.Slice(%s, func(i, j int) bool {", s)
			out.line("\tif %s[i].R != %s[j].R {", s, s)
			out.line("\t\treturn %s[i].R < %s[j].R", s, s)
			out.line("\t}")
			out.line("\treturn %s[i].C < %s[j].C", s, s)
			out.line("})")
			return
		}
		out.line("%s = %s[:len(%s)/2]", s, s, s)
	case 6:
		out.line("if len(%s) > 1 {", s)
		out.line("\t%s = append(%s[:1], %s[2:]...)", s, s, s)
		out.line("}")
	}
}

func (g *gen) earlyReturn(out *w, d int) {
	out.line("if %s {", g.cond(1))
	out.indent++
	out.line("%s", g.returnStmt(1))
	out.indent--
	out.line("}")
}

// returnStmt is a return statement of the function being generated.
func (g *gen) returnStmt(d int) string {
	switch {
	case g.fn.entry && g.fn.closure == 0:
		return fmt.Sprintf("return mix(%s, acc)", g.fn.acc)
	case g.fn.named && g.chance(1, 2):
		return "return"
	case g.fn.result2 != nil:
		return fmt.Sprintf("return %s, %s", g.expr(g.fn.result, d).s, g.expr(g.fn.result2, d).s)
	case g.fn.result != nil:
		return "return " + g.expr(g.fn.result, d).s
	}
	return "return"
}

// multiAssign assigns the two results of a call, a map lookup, a type
// assertion or a conversion: x, ok := ….
func (g *gen) multiAssign(out *w, d int) {
	var cands []func()
	for _, h := range g.helpers {
		if h.result2 != nil && g.affordable(h.cost) {
			h := h
			cands = append(cands, func() {
				g.fn.cost += h.cost * g.fn.mult
				a, b := g.fresh("r"), g.fresh("ok")
				call := fmt.Sprintf("%s(v, agent%s)", h.name, g.argsPrefixed(h.params, h.recursive))
				switch g.intn(3) {
				case 0:
					out.line("%s, %s := %s", a, b, call)
					g.declare(a, h.result, false)
					g.declare(b, h.result2, false)
				case 1:
					out.line("var %s %s", a, h.result)
					out.line("var %s %s", b, h.result2)
					out.line("%s, %s = %s", a, b, call)
					g.declare(a, h.result, false)
					g.declare(b, h.result2, false)
				default:
					out.line("_, %s := %s", b, call)
					g.declare(b, h.result2, false)
				}
			})
		}
	}
	if m := g.someOf(kMap); m != nil {
		cands = append(cands, func() {
			a, b := g.fresh("val"), g.fresh("ok")
			out.line("%s, %s := %s[%s]", a, b, m.name, g.expr(m.t.key, 1).s)
			g.declare(a, m.t.elem, false)
			g.declare(b, tBool, false)
		})
	}
	cands = append(cands, func() {
		a, b := g.fresh("num"), g.fresh("err")
		out.line("%s, %s := strconv.Atoi(%s)", a, b, g.expr(tString, 1).s)
		out.line("%s = mixB(%s, %s != nil)", g.fn.acc, g.fn.acc, b)
		g.declare(a, tInt, false)
	})
	if x := g.someOf(kAny); x != nil {
		cands = append(cands, func() {
			a, b := g.fresh("val"), g.fresh("ok")
			t := pick(g, []*typ{tInt, tString, tFloat64, tPos})
			out.line("%s, %s := %s.(%s)", a, b, x.name, t)
			g.declare(a, t, false)
			g.declare(b, tBool, false)
		})
	}
	pick(g, cands)()
}

// deferStmt exercises defer and recover inside a function literal called
// at once.
func (g *gen) deferStmt(out *w, d int) {
	x := g.fresh("dv")
	out.line("%s := 0", x)
	out.line("func() {")
	out.indent++
	saved := *g.fn
	g.fn.closure++
	g.fn.result, g.fn.result2, g.fn.named = nil, nil, false
	g.fn.loops = 0
	g.fn.labels = nil
	defer func() {
		cost := g.fn.cost
		*g.fn = saved
		g.fn.cost = cost
	}()
	g.push()
	switch g.intn(4) {
	case 0:
		out.line("defer func() {")
		out.line("\tif r := recover(); r != nil {")
		out.line("\t\t%s += 100", x)
		out.line("\t}")
		out.line("}()")
		g.stmt(out, 0)
		i := g.fresh("pi")
		out.line("%s := []int{1, 2}", i)
		out.line("if %s {", g.cond(1))
		out.line("\t%s = mixI(%s, int64(%s[ix(%s, 5)+2]))", g.fn.acc, g.fn.acc, i, g.runtimeValue(tInt).s)
		out.line("}")
		out.line("%s++", x)
	case 1:
		out.line("defer func() {")
		out.line("\t%s = %s*3 + 1", x, x)
		out.line("}()")
		g.stmt(out, 0)
		out.line("%s += 5", x)
	case 2:
		out.line("defer func() {")
		out.line("\tif recover() != nil {")
		out.line("\t\t%s = -1", x)
		out.line("\t}")
		out.line("}()")
		out.line("if %s {", g.cond(1))
		out.line("\tpanic(%s)", g.literal(tString).s)
		out.line("}")
		out.line("%s = 2", x)
	default:
		out.line("for j := 0; j < 3; j++ {")
		out.line("\t%s += j", x)
		out.line("}")
		out.line("defer func() { %s *= 2 }()", x)
	}
	g.foldScope(out)
	g.pop()
	out.indent--
	out.line("}()")
	out.line("%s = mixI(%s, int64(%s))", g.fn.acc, g.fn.acc, x)
}

func (g *gen) labelled(out *w, d int) {
	n, m := 1+g.intn(4), 1+g.intn(4)
	if !g.enterLoop(n * m) {
		g.declStmt(out, d)
		return
	}
	defer g.leaveLoop(n * m)
	l := g.fresh("L")
	i, j := g.fresh("i"), g.fresh("j")
	g.push()
	g.declare(i, tInt, true)
	g.declare(j, tInt, true)
	out.line("%s:", l)
	out.line("for %s := 0; %s < %d; %s++ {", i, i, n, i)
	out.indent++
	out.line("for %s := 0; %s < %d; %s++ {", j, j, m, j)
	out.indent++
	out.line("if %s {", g.cond(1))
	out.line("\t%s %s", pick(g, []string{"continue", "break"}), l)
	out.line("}")
	g.push()
	g.stmt(out, 0)
	g.foldScope(out)
	g.pop()
	out.line("%s = mixI(%s, int64(%s*10+%s))", g.fn.acc, g.fn.acc, i, j)
	if g.chance(1, 2) {
		out.line("if %s {", g.cond(1))
		out.line("\tbreak %s", l)
		out.line("}")
	}
	out.indent--
	out.line("}")
	out.indent--
	out.line("}")
	g.pop()
}

// caseLiteral is a constant case value of t, in decimal (distinct texts
// are distinct values).
func (g *gen) caseLiteral(t *typ) string {
	switch {
	case t.isInt():
		for {
			v := int64(g.intn(12)) - 3
			if fits(t, v) {
				return strconv.FormatInt(v, 10)
			}
		}
	}
	return g.literal(t).s
}

// typed is e spelled so that a short variable declaration gives it type
// t: constants are converted.
func (g *gen) typed(t *typ, e ex) string {
	if e.c {
		return t.String() + "(" + e.s + ")"
	}
	return e.s
}
