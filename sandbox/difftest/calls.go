package difftest

import (
	"fmt"
	"strings"
)

// helper is a package-level function of the program.
type helper struct {
	name      string
	params    []*typ
	result    *typ
	result2   *typ // a second result (callable only in assignments)
	recursive bool // its first parameter is a depth, passed in [0, 5]
	cost      int  // loop iterations one call may run
}

// callOf is a call returning t: a helper, a method of a value in scope
// (promoted ones included), or a function value in scope.
func (g *gen) callOf(t *typ, d int) (ex, bool) {
	var cands []func() ex
	for _, h := range g.helpers {
		if h.result2 == nil && h.result.same(t) && g.affordable(h.cost) {
			h := h
			cands = append(cands, func() ex {
				g.fn.cost += h.cost * g.fn.mult
				return nc("%s(v, agent%s)", h.name, g.argsPrefixed(h.params, h.recursive))
			})
		}
	}
	for _, v := range g.visible() {
		recv := v.t
		ptr := false
		if recv.k == kPtr {
			recv, ptr = recv.elem, true
		}
		if recv.k != kStruct {
			continue
		}
		for _, m := range methodSet(recv) {
			if m.result == nil || !m.result.same(t) || (m.ptr && !ptr && v.fixed) {
				continue
			}
			v, m := v, m
			cands = append(cands, func() ex {
				return nc("%s.%s(v, agent%s)", v.name, m.name, g.argsPrefixed(m.params, false))
			})
		}
	}
	for _, v := range g.visible() {
		if v.t.k == kFunc && v.t.result.same(t) {
			v := v
			cands = append(cands, func() ex {
				return nc("%s(%s)", v.name, g.args(v.t.params, false, d))
			})
		}
	}
	if len(cands) == 0 {
		return ex{}, false
	}
	return pick(g, cands)(), true
}

// affordable reports whether work of this cost fits the entry's budget
// at the current loop nesting.
func (g *gen) affordable(cost int) bool {
	return g.fn == nil || g.fn.cost+cost*g.fn.mult <= costLimit
}

func (g *gen) args(ps []*typ, recursive bool, d int) string {
	var as []string
	for i, p := range ps {
		if i == 0 && recursive {
			as = append(as, fmt.Sprintf("ix(%s, 5)", g.expr(tInt, d-1).s))
			continue
		}
		as = append(as, g.expr(p, d-1).s)
	}
	return strings.Join(as, ", ")
}

// methodSet lists the methods callable on a value of struct type t: its
// own and those promoted from embedded fields.
func methodSet(t *typ) []*method {
	out := append([]*method(nil), t.methods...)
	for _, f := range t.fields {
		if f.embedded {
			for _, m := range methodSet(f.t) {
				shadowed := false
				for _, o := range out {
					if o.name == m.name {
						shadowed = true
					}
				}
				if !shadowed {
					out = append(out, m)
				}
			}
		}
	}
	return out
}
