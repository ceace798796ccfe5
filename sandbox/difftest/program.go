package difftest

import (
	"fmt"
	"regexp"
	"strings"
)

// Declarations every program offers (included only when used).
var fixedDecls = []struct{ name, text string }{
	{"cand", "type cand struct {\n\tpos   ssd.Pos\n\tdist  int\n\tscore float64\n\tid    int\n}\n"},
	{"pq", `type pqItem struct {
	pos  ssd.Pos
	prio int
	seq  int
}

// pq is a min-heap of pqItems by priority, then by sequence.
type pq []pqItem

func (q pq) Len() int { return len(q) }
func (q pq) Less(i, j int) bool {
	if q[i].prio != q[j].prio {
		return q[i].prio < q[j].prio
	}
	return q[i].seq < q[j].seq
}
func (q pq) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *pq) Push(x any)   { *q = append(*q, x.(pqItem)) }
func (q *pq) Pop() any {
	old := *q
	n := len(old)
	it := old[n-1]
	*q = old[:n-1]
	return it
}
`},
	{"byDist", `// byDist sorts candidates by distance, then id.
type byDist []cand

func (b byDist) Len() int { return len(b) }
func (b byDist) Less(i, j int) bool {
	if b[i].dist != b[j].dist {
		return b[i].dist < b[j].dist
	}
	return b[i].id < b[j].id
}
func (b byDist) Swap(i, j int) { b[i], b[j] = b[j], b[i] }
`},
	{"errT", "type errT struct{ code int }\n\nfunc (e *errT) Error() string { return \"code \" + strconv.Itoa(e.code) }\n"},
	{"sentinel", "var sentinel = errors.New(\"sentinel\")\n"},
	{"memo", "// memo persists across steps.\nvar memo = map[ssd.Pos]int{}\n"},
}

var tCand = &typ{k: kStruct, name: "cand", fields: []field{{name: "pos", t: tPos}, {name: "dist", t: tInt},
	{name: "score", t: tFloat64}, {name: "id", t: tInt}}}

func (g *gen) program() *Program {
	p := &Program{}
	g.decls = append(g.decls, &decl{text: supportCode}, &decl{text: constDecls})
	for _, d := range fixedDecls {
		g.decls = append(g.decls, &decl{name: d.name, text: d.text})
	}
	for _, d := range beyondDecls {
		g.decls = append(g.decls, &decl{name: d.name, text: d.text})
	}
	for _, d := range classDecls {
		g.decls = append(g.decls, &decl{name: d.name, text: d.text})
	}
	g.types = append(g.types, tCand)
	for i := 0; i < 2+g.intn(3); i++ {
		g.structType()
	}
	for i := 0; i < 3+g.intn(4); i++ {
		g.helperFunc()
	}
	for i := 0; i < 1+g.intn(4); i++ {
		g.globalVar()
	}
	for i := 0; i < g.cfg.Entries; i++ {
		p.Entries = append(p.Entries, g.entry(i))
	}
	g.decls = append(g.decls, g.supportDecls()...)
	// Who needs what: every identifier of a text that names a declaration.
	names := map[string]bool{}
	for _, d := range g.decls {
		if d.name != "" {
			names[d.name] = true
		}
		for _, n := range declaredNames(d) {
			names[n] = true
		}
	}
	alias := map[string]string{} // names declared by a declaration -> its name
	for _, d := range g.decls {
		for _, n := range declaredNames(d) {
			alias[n] = d.name
		}
	}
	usesOf := func(text, self string) map[string]bool {
		out := map[string]bool{}
		for _, id := range identRe.FindAllString(text, -1) {
			if names[id] {
				n := id
				if a, ok := alias[id]; ok {
					n = a
				}
				if n != self && n != "" {
					out[n] = true
				}
			}
		}
		return out
	}
	for _, d := range g.decls {
		d.uses = usesOf(d.text, d.name)
	}
	for _, e := range p.Entries {
		e.uses = usesOf(e.text, "")
	}
	p.decls = g.decls
	return p
}

var identRe = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)

// declaredNames are the names a declaration introduces besides its own
// (the pq declaration also declares pqItem).
func declaredNames(d *decl) []string {
	if d.name == "pq" {
		return []string{"pqItem"}
	}
	return nil
}

// structType declares a named struct type with methods.
func (g *gen) structType() {
	names := []string{"cell", "node", "zone", "unit", "plan", "info", "track", "goal"}
	var name string
	for {
		name = pick(g, names) + fmt.Sprint(len(g.types))
		ok := true
		for _, t := range g.types {
			if t.name == name {
				ok = false
			}
		}
		if ok {
			break
		}
	}
	t := &typ{k: kStruct, name: name}
	fieldNames := []string{"pos", "n", "w", "tag", "hits", "cost", "ok", "vals", "dir", "id", "grid", "last"}
	used := map[string]bool{}
	var b strings.Builder
	fmt.Fprintf(&b, "type %s struct {\n", name)
	if len(g.types) > 1 && g.chance(1, 3) {
		// An embedded struct: promoted fields and methods.
		e := g.types[1+g.intn(len(g.types)-1)]
		t.fields = append(t.fields, field{name: e.name, t: e, embedded: true})
		for _, f := range e.fields {
			used[f.name] = true
		}
		for _, m := range methodSet(e) {
			used[m.name] = true
		}
		fmt.Fprintf(&b, "\t%s\n", e.name)
	}
	if len(t.fields) == 0 && g.chance(1, 4) {
		embedPos(t, &b)
	}
	for i := 0; i < 2+g.intn(4); i++ {
		fn := pick(g, fieldNames)
		if used[fn] {
			continue
		}
		used[fn] = true
		ft := g.fieldType()
		t.fields = append(t.fields, field{name: fn, t: ft})
		fmt.Fprintf(&b, "\t%s %s\n", fn, ft)
	}
	b.WriteString("}\n")
	g.types = append(g.types, t)
	// Methods: value receivers computing, pointer receivers changing.
	for i := 0; i < 1+g.intn(3); i++ {
		mname := pick(g, []string{"score", "near", "key", "step", "bump", "reset", "grow", "weight"}) + fmt.Sprint(i)
		if used[mname] {
			continue
		}
		used[mname] = true
		m := &method{name: mname, ptr: g.chance(1, 2)}
		for j := 0; j < g.intn(3); j++ {
			m.params = append(m.params, pick(g, []*typ{tInt, tFloat64, tPos, tString}))
		}
		if !m.ptr || g.chance(1, 3) {
			m.result = pick(g, []*typ{tInt, tFloat64, tBool, tString, tPos})
		}
		b.WriteString("\n")
		b.WriteString(g.methodText(t, m))
		t.methods = append(t.methods, m)
	}
	g.decls = append(g.decls, &decl{name: name, text: b.String()})
}

// embedPos embeds ssd.Pos in struct t: its fields are promoted.
func embedPos(t *typ, b *strings.Builder) {
	t.fields = append(t.fields, field{name: "Pos", t: tPos, embedded: true})
	b.WriteString("\tssd.Pos\n")
}

func (g *gen) fieldType() *typ {
	switch g.intn(10) {
	case 0, 1, 2:
		return pick(g, []*typ{tInt, tInt, tFloat64, tString, tBool, tUint8, tInt64})
	case 3, 4:
		return tPos
	case 5:
		return arrayOf(2+g.intn(2), pick(g, []*typ{tInt, tFloat64, tPos}))
	case 6:
		return sliceOf(pick(g, []*typ{tInt, tPos}))
	case 7:
		if len(g.types) > 1 {
			return g.types[1+g.intn(len(g.types)-1)]
		}
	case 8:
		return tCand
	}
	return tInt
}

func (g *gen) methodText(t *typ, m *method) string {
	g.fn = &fnCtx{name: m.name, acc: "acc", mult: 1, result: m.result, shared: true, uses: map[string]bool{}}
	g.sc = nil
	g.push()
	recv := "r"
	rt := t
	if m.ptr {
		rt = ptrTo(t)
	}
	g.declare(recv, rt, m.ptr)
	g.declare("agent", tInt, true)
	ps := []string{"v *ssd.View", "agent int"}
	for _, p := range m.params {
		n := g.fresh("a")
		g.declare(n, p, false)
		ps = append(ps, n+" "+p.String())
	}
	out := &w{indent: 1}
	g.block(out, 1+g.intn(3), 1)
	if m.result != nil {
		out.line("%s", g.returnStmt(2))
	}
	g.pop()
	g.fn = nil
	res := ""
	if m.result != nil {
		res = " " + m.result.String()
	}
	return fmt.Sprintf("func (%s %s) %s(%s)%s {\n%s}\n", recv, rt, m.name, strings.Join(ps, ", "), res, out.b.String())
}

// helperFunc declares a package-level function that entries call.
func (g *gen) helperFunc() {
	name := g.fresh("h")
	h := &helper{name: name, recursive: g.chance(1, 5)}
	g.fn = &fnCtx{name: name, acc: "acc", mult: 1, helper: true, uses: map[string]bool{}}
	g.sc = nil
	g.push()
	g.declare("agent", tInt, true)
	ps := []string{"v *ssd.View", "agent int"}
	if h.recursive {
		h.params = append(h.params, tInt)
		g.declare("depth", tInt, true)
		ps = append(ps, "depth int")
	}
	for j := 0; j < 1+g.intn(3); j++ {
		pt := g.randType(1)
		if pt.k == kFunc {
			pt = tInt
		}
		n := g.fresh("a")
		h.params = append(h.params, pt)
		g.declare(n, pt, false)
		ps = append(ps, n+" "+pt.String())
	}
	h.result = pick(g, []*typ{tInt, tInt, tFloat64, tString, tBool, tPos, sliceOf(tInt), tCand})
	g.fn.result = h.result
	g.fn.shared = true
	resText := h.result.String()
	out := &w{indent: 1}
	if !h.recursive && g.chance(1, 3) {
		// Two results, as in (best ssd.Pos, ok bool), maybe named.
		h.result2 = pick(g, []*typ{tBool, tInt})
		g.fn.result2 = h.result2
		resText = "(" + h.result.String() + ", " + h.result2.String() + ")"
		if g.chance(1, 2) {
			r1, r2 := g.fresh("res"), g.fresh("found")
			g.fn.named = true
			g.declare(r1, h.result, false)
			g.declare(r2, h.result2, false)
			resText = "(" + r1 + " " + h.result.String() + ", " + r2 + " " + h.result2.String() + ")"
			if g.chance(1, 3) {
				// The defensive pattern: a deferred recover that sets a result.
				out.line("defer func() {")
				out.line("\tif recover() != nil {")
				out.line("\t\t%s = %s", r2, g.literal(h.result2).s)
				out.line("\t}")
				out.line("}()")
			}
		}
	}
	if h.recursive {
		out.line("if depth <= 0 {")
		out.line("\treturn %s", g.expr(h.result, 1).s)
		out.line("}")
	}
	g.block(out, 2+g.intn(4), 2)
	if h.recursive {
		// One call of itself, one level down: at most six frames.
		self := fmt.Sprintf("%s(v, agent, depth-1", name)
		for _, p := range h.params[1:] {
			self += ", " + g.expr(p, 1).s
		}
		self += ")"
		r := g.fresh("rec")
		out.line("%s := %s", r, self)
		out.line("acc = %s", g.fold("acc", h.result, r))
	}
	out.line("%s", g.returnStmt(2))
	g.pop()
	h.cost = g.fn.cost + 1
	if h.recursive {
		h.cost *= 6
	}
	g.fn = nil
	g.helpers = append(g.helpers, h)
	g.decls = append(g.decls, &decl{name: name, text: fmt.Sprintf("func %s(%s) %s {\n%s}\n",
		name, strings.Join(ps, ", "), resText, out.b.String())})
}

// globalVar declares a package-level variable that entries read and
// change: state kept across calls and steps.
func (g *gen) globalVar() {
	t := g.randType(1)
	if t.k == kFunc || t.k == kAny {
		t = tInt
	}
	name := g.fresh("g")
	g.fn = &fnCtx{name: name, acc: "acc", mult: 1, uses: map[string]bool{}}
	text := fmt.Sprintf("var %s %s = %s\n", name, t, g.constValue(t))
	g.fn = nil
	g.globals = append(g.globals, &variable{name: name, t: t})
	g.decls = append(g.decls, &decl{name: name, text: text})
}

// entry generates one entry function.
func (g *gen) entry(i int) *Entry {
	name := fmt.Sprintf("e%d", i)
	g.fn = &fnCtx{name: name, acc: "h", mult: 1, entry: true, uses: map[string]bool{}}
	g.outside = nil
	g.sc = nil
	g.push()
	g.declare("agent", tInt, true)
	out := &w{indent: 1}
	out.line("acc = 0")
	out.line("h := uint64(%d)", i+1)
	g.inputs(out)
	for k := 0; k < 3+g.intn(5); k++ {
		g.stmt(out, g.cfg.Depth)
	}
	g.foldScope(out)
	out.line("return mix(h, acc)")
	g.pop()
	g.fn = nil
	return &Entry{Index: i, Name: name, Outside: g.outside,
		text: fmt.Sprintf("func %s(v *ssd.View, agent int) uint64 {\n%s}\n", name, out.b.String())}
}

// inputs declares a few variables from the state, as a policy would.
func (g *gen) inputs(out *w) {
	for _, in := range []struct {
		prefix, text string
		t            *typ
	}{
		{"me", "v.AgentPos(agent)", tPos},
		{"step", "v.Step()", tInt},
		{"n", "v.NumAgents()", tInt},
		{"alive", "v.NumAlive()", tInt},
		{"apples", "v.Apples()", sliceOf(tPos)},
		{"dens", "v.WasteDensity()", tFloat64},
		{"agents", "v.Agents()", sliceOf(tAgent)},
		{"orient", "v.Orientation(agent)", tInt},
	} {
		if g.chance(1, 2) {
			name := g.fresh(in.prefix)
			out.line("%s := %s", name, in.text)
			g.declare(name, in.t, false)
		}
	}
}

// constValue is an expression of t made of constants only, for
// package-level initialisers.
func (g *gen) constValue(t *typ) string {
	switch t.k {
	case kStruct:
		var parts []string
		for _, f := range t.fields {
			parts = append(parts, g.constValue(f.t))
		}
		return t.String() + "{" + strings.Join(parts, ", ") + "}"
	case kArray:
		var parts []string
		for i := 0; i < t.n; i++ {
			parts = append(parts, g.constValue(t.elem))
		}
		return t.String() + "{" + strings.Join(parts, ", ") + "}"
	case kSlice:
		var parts []string
		for i := 0; i < g.intn(3); i++ {
			parts = append(parts, g.constValue(t.elem))
		}
		return t.String() + "{" + strings.Join(parts, ", ") + "}"
	case kMap:
		return "map[" + t.key.String() + "]" + t.elem.String() + "{" + g.literalKey(t.key) + ": " + g.constValue(t.elem) + "}"
	case kPtr:
		return "&" + g.constValue(t.elem)
	}
	return g.literal(t).s
}
