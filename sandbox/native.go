package sandbox

import (
	"go/ast"
	"go/types"
)

// Conversions of strings to byte and rune slices. The Go compiler gives
// the slice of a conversion that does not escape a 32-element buffer on
// the stack, and a constant one exactly its length, where the yaegi
// interpreter (whose conversions are the reflect package's, always on
// the heap) gets the runtime's size classes: []byte("abc") has capacity
// 32 or 3 natively and 8 in yaegi, so two appends to it share memory in
// one backend and not in the other. The native backend compiles such
// conversions as calls of helpers that are never inlined, whose results
// escape to the heap: capacities are then the size classes in both.

// nativeVersion changes whenever nativeSource does (it is part of the
// cache key of compiled workers).
const nativeVersion = 2

// nativeSource is the policy as the native backend compiles it: package
// main, conversions of strings to []byte and []rune made by helpers, and
// what Go leaves to the implementation given one meaning (definedOps),
// or a ValidationError for what no backend runs. Lines keep their
// numbers.
func nativeSource(c *Checked) ([]byte, error) {
	rw := &rewriter{c: c, helperIdx: map[string]string{}, note: "for the native backend"}
	if c.Info != nil {
		ast.Inspect(c.File, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) != 1 || !c.Info.Types[call.Fun].IsType() {
				return true
			}
			from := c.Info.TypeOf(call.Args[0])
			if h := rw.stringsToSlice(c.Info.TypeOf(call.Fun), from); h != "" {
				if types.Identical(from, types.Typ[types.String]) {
					rw.wrap(call.Args[0], h+"(", ")")
				} else {
					rw.wrap(call.Args[0], h+"(string(", "))") // a named string type, or untyped
				}
			}
			return true
		})
		rw.definedOps(false)
	}
	if len(rw.issues) > 0 {
		return nil, &ValidationError{File: PolicyFileName, Issues: rw.issues}
	}
	src, err := rw.apply()
	if err != nil {
		return nil, err
	}
	// The package clause comes before every edit: its offsets hold.
	start := c.Fset.Position(c.File.Name.Pos()).Offset
	end := c.Fset.Position(c.File.Name.End()).Offset
	return append(append(append([]byte{}, src[:start]...), "main"...), src[end:]...), nil
}

// stringsToSlice returns the helper for a conversion from a string type
// to a slice type of bytes or runes, or "".
func (rw *rewriter) stringsToSlice(to, from types.Type) string {
	b, ok := from.Underlying().(*types.Basic)
	if !ok || b.Info()&types.IsString == 0 {
		return ""
	}
	s, ok := to.Underlying().(*types.Slice)
	if !ok {
		return ""
	}
	e, ok := s.Elem().Underlying().(*types.Basic)
	if !ok {
		return ""
	}
	var name, elem string
	switch e.Kind() {
	case types.Byte:
		name, elem = "bytes", "byte"
	case types.Rune:
		name, elem = "runes", "rune"
	default:
		return ""
	}
	h := reservedPrefix + name
	if _, ok := rw.helperIdx[name]; !ok {
		rw.helperIdx[name] = h
		rw.helpers = append(rw.helpers, "//go:noinline\nfunc "+h+"(s string) []"+elem+" { return []"+elem+"(s) }")
	}
	return h
}
