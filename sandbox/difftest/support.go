package difftest

import (
	"fmt"
	"strings"
)

// The support code every program has: digest mixing, safe indexing,
// bounded strings. It uses only constructs both backends agree on.
const supportCode = `// acc collects the digests of helper functions during one entry call.
var acc uint64

func mix(h, x uint64) uint64 {
	h ^= x + 0x9e3779b97f4a7c15 + (h << 6) + (h >> 2)
	return h
}

func final(h uint64) uint64 {
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}

func mixI(h uint64, x int64) uint64 { return mix(h, uint64(x)) }

func mixF(h uint64, f float64) uint64 {
	if f != f {
		return mix(h, 0x7ff8)
	}
	return mix(h, math.Float64bits(f))
}

func mixS(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h = mix(h, uint64(s[i]))
	}
	return mix(h, uint64(len(s)))
}

func mixB(h uint64, b bool) uint64 {
	if b {
		return mix(h, 3)
	}
	return mix(h, 5)
}

func dgAny(h uint64, x any) uint64 {
	switch y := x.(type) {
	case int:
		return mixI(h, int64(y))
	case int8:
		return mixI(h, int64(y)+1000)
	case string:
		return mixS(h, y)
	case float64:
		return mixF(h, y)
	case bool:
		return mixB(h, y)
	case ssd.Pos:
		return mixI(mixI(h, int64(y.R)), int64(y.C))
	case nil:
		return mix(h, 11)
	}
	return mix(h, 13)
}

// ix maps any i to an index in [0, n), or 0 when n is 0.
func ix(i, n int) int {
	if n <= 0 {
		return 0
	}
	i %= n
	if i < 0 {
		i += n
	}
	return i
}

// cut bounds a string's length.
func cut(s string) string {
	if len(s) > 40 {
		return s[len(s)-40:]
	}
	return s
}

// sub is s[i:j] for any i, j, clamped.
func sub(s string, i, j int) string {
	i, j = ix(i, len(s)+1), ix(j, len(s)+1)
	if i > j {
		i, j = j, i
	}
	return s[i:j]
}

// nonNaN is f, or 0 for a NaN.
func nonNaN(f float64) float64 {
	if f != f {
		return 0
	}
	return f
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
`

// fold is an expression of type uint64: h with the value e of type t
// folded in.
func (g *gen) fold(h string, t *typ, e string) string {
	switch {
	case t.isInt():
		return fmt.Sprintf("mixI(%s, int64(%s))", h, e)
	case t.isFloat():
		return fmt.Sprintf("mixF(%s, float64(%s))", h, e)
	case t.k == kString:
		return fmt.Sprintf("mixS(%s, %s)", h, e)
	case t.k == kBool:
		return fmt.Sprintf("mixB(%s, %s)", h, e)
	case t.k == kAny:
		return fmt.Sprintf("dgAny(%s, %s)", h, e)
	case t.k == kFunc:
		var args []string
		for _, p := range t.params {
			args = append(args, g.runtimeValueOrZero(p))
		}
		return g.fold(h, t.result, fmt.Sprintf("%s(%s)", e, strings.Join(args, ", ")))
	}
	g.register(t)
	return fmt.Sprintf("dg%s(%s, %s)", t.ident(), h, e)
}

// runtimeValueOrZero is an argument for a call made only to observe a
// function value.
func (g *gen) runtimeValueOrZero(t *typ) string {
	switch {
	case t.isInt(), t.isFloat(), t.k == kString, t.k == kBool:
		return g.runtimeValue(t).s
	}
	return g.leaf(t).s
}

// register notes a composite type that needs digest (dg) and element
// (at) helpers.
func (g *gen) register(t *typ) {
	id := t.ident()
	if g.registered == nil {
		g.registered = map[string]*typ{}
	}
	if _, ok := g.registered[id]; ok {
		return
	}
	g.registered[id] = t
	switch t.k {
	case kStruct:
		for _, f := range t.fields {
			g.registerDeep(f.t)
		}
	case kArray, kSlice, kPtr:
		g.registerDeep(t.elem)
	case kMap:
		g.registerDeep(t.key)
		g.registerDeep(t.elem)
	}
}

func (g *gen) registerDeep(t *typ) {
	switch t.k {
	case kStruct, kArray, kSlice, kMap, kPtr:
		g.register(t)
	}
}

// supportDecls returns the dg and at helpers of the registered types.
func (g *gen) supportDecls() []*decl {
	var out []*decl
	for _, id := range sortedKeys(g.registered) {
		t := g.registered[id]
		var b strings.Builder
		fmt.Fprintf(&b, "func dg%s(h uint64, x %s) uint64 {\n", id, t)
		switch t.k {
		case kStruct:
			for _, f := range t.fields {
				fmt.Fprintf(&b, "\th = %s\n", g.fold("h", f.t, "x."+f.name))
			}
			b.WriteString("\treturn h\n")
		case kArray, kSlice:
			fmt.Fprintf(&b, "\tfor _, e := range x {\n\t\th = %s\n\t}\n", g.fold("h", t.elem, "e"))
			b.WriteString("\treturn mixI(h, int64(len(x)))\n")
		case kMap:
			// Entries in any order: a sum of per-entry digests.
			fmt.Fprintf(&b, "\tvar s uint64\n\tfor k, e := range x {\n\t\ts += final(%s)\n\t}\n",
				g.fold(g.fold("7", t.key, "k"), t.elem, "e"))
			b.WriteString("\treturn mix(mixI(h, int64(len(x))), s)\n")
		case kPtr:
			fmt.Fprintf(&b, "\tif x == nil {\n\t\treturn mix(h, 17)\n\t}\n\treturn %s\n", g.fold("h", t.elem, "*x"))
		}
		b.WriteString("}\n")
		out = append(out, &decl{name: "dg" + id, text: b.String()})
		if t.k == kSlice {
			out = append(out, &decl{name: "at" + t.elem.ident(), text: fmt.Sprintf(
				"func at%s(s %s, i int) %s {\n\tif len(s) == 0 {\n\t\tvar zero %s\n\t\treturn zero\n\t}\n\treturn s[ix(i, len(s))]\n}\n",
				t.elem.ident(), t, t.elem, t.elem)})
		}
	}
	return out
}
