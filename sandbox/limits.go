package sandbox

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"math"
)

// Compile-time limits. Validation runs in the host process and the type
// checker and compiler evaluate constants at full size, so a handful of
// lines could otherwise make them build a gigabyte string
// (const s1 = s0 + s0; const s2 = s1 + s1; …) or a gigabyte array.
const (
	// MaxConstantString bounds any constant string expression.
	MaxConstantString = 1 << 20
	// MaxStaticSize bounds the size of any array type, and the length a
	// composite literal gives to a slice or array.
	MaxStaticSize = 64 << 20
)

// checkConstantStrings bounds, before any type checking, the length of
// every string the checker would fold: string literals, names of
// constants, + and the calls a constant expression may contain (a
// conversion, min and max: each as long as its longest argument) are
// measured on the syntax, names resolved to every constant of that name
// in the file (an upper bound). Each expression is measured once (a
// memo by node), so the check is linear in the size of the source: a
// sum of 99,000 terms once took it minutes.
func (v *validation) checkConstantStrings(f *ast.File) {
	consts := map[string][]ast.Expr{}
	ast.Inspect(f, func(n ast.Node) bool {
		gd, ok := n.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			return true
		}
		var last []ast.Expr
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			if len(vs.Values) > 0 {
				last = vs.Values
			}
			for i, name := range vs.Names {
				if i < len(last) {
					consts[name.Name] = append(consts[name.Name], last[i])
				}
			}
		}
		return true
	})
	names := map[string]int64{}
	nodes := map[ast.Expr]int64{}
	busy := map[string]bool{}
	var size func(e ast.Expr) int64
	size = func(e ast.Expr) int64 {
		if n, ok := nodes[e]; ok {
			return n
		}
		var n int64
		switch e := e.(type) {
		case *ast.BasicLit:
			n = 8
			if e.Kind == token.STRING {
				n = int64(len(e.Value))
			}
		case *ast.ParenExpr:
			n = size(e.X)
		case *ast.BinaryExpr:
			if e.Op == token.ADD {
				n = min(size(e.X)+size(e.Y), 1<<62)
			}
		case *ast.CallExpr:
			// A conversion, string(x), or min and max of strings: as long
			// as the longest argument. Other calls fold to no string.
			for _, a := range e.Args {
				n = max(n, size(a))
			}
		case *ast.Ident:
			if m, ok := names[e.Name]; ok {
				return m
			}
			if busy[e.Name] {
				return 0 // a cycle: the type checker reports it
			}
			busy[e.Name] = true
			for _, x := range consts[e.Name] {
				n = max(n, size(x))
			}
			busy[e.Name] = false
			names[e.Name] = n
			return n
		}
		nodes[e] = n
		return n
	}
	ast.Inspect(f, func(n ast.Node) bool {
		var e ast.Expr
		switch n := n.(type) {
		case *ast.BinaryExpr:
			if n.Op != token.ADD {
				return true
			}
			e = n
		case *ast.CallExpr:
			e = n
		default:
			return true
		}
		if l := size(e); l > MaxConstantString {
			v.add(e.Pos(), "this constant expression could build a string of up to %d bytes; constants are limited to %d", l, MaxConstantString)
			return false
		}
		return true
	})
}

// MaxNesting bounds how deeply a policy's syntax may nest (expressions,
// types, statements): the type checker's work grows faster than the
// depth (a generic type nested 10,000 deep took it 137 s and 1.6 GB, and
// 20,000 over 9 minutes), and honest code nests a few dozen levels.
const MaxNesting = 1000

// checkNesting refuses syntax nested deeper than MaxNesting, before type
// checking; it reports whether the source passed. (The parser itself
// stops at 100,000 levels.)
func (v *validation) checkNesting(f *ast.File) bool {
	worst, at := nesting(f, MaxNesting)
	if at != nil {
		v.add(at.Pos(), "the syntax here is nested %d levels deep; the limit is %d: split long chains of operators and deeply nested types or expressions into named parts", worst, MaxNesting)
		return false
	}
	return true
}

// TooDeep reports whether the syntax under n nests deeper than
// MaxNesting: validation refuses such a source, and code that handles
// untrusted syntax outside the sandbox (formatting it, say, which is
// quadratic in a chain's length) should not go further either.
func TooDeep(n ast.Node) bool {
	_, at := nesting(n, MaxNesting)
	return at != nil
}

// nesting returns how deeply the syntax under n nests, and the first
// node deeper than limit (nil if none); linear in its size.
func nesting(n ast.Node, limit int) (worst int, at ast.Node) {
	depth := 0
	ast.Inspect(n, func(n ast.Node) bool {
		if n == nil {
			depth--
			return true
		}
		depth++
		if depth > worst {
			worst = depth
			if at == nil && depth > limit {
				at = n
			}
		}
		return true
	})
	return worst, at
}

// checkFoldedStrings refuses, after type checking, every constant string
// longer than MaxConstantString that the checker folded: the syntax's
// bound above should leave none, and this makes the documented limit
// hold whatever it missed.
func (v *validation) checkFoldedStrings(f *ast.File, info *types.Info) {
	ast.Inspect(f, func(n ast.Node) bool {
		e, ok := n.(ast.Expr)
		if !ok {
			return true
		}
		if tv, ok := info.Types[e]; ok && tv.Value != nil && tv.Value.Kind() == constant.String {
			if l := len(constant.StringVal(tv.Value)); l > MaxConstantString {
				v.add(e.Pos(), "this constant is a string of %d bytes; constants are limited to %d", l, MaxConstantString)
				return false
			}
		}
		return true
	})
}

// checkSizes refuses array types and composite literals beyond
// MaxStaticSize: the compiler would lay them out in the binary.
func (v *validation) checkSizes(f *ast.File, info *types.Info) {
	sizes := types.SizesFor("gc", "amd64")
	seen := map[types.Type]bool{}
	var tooBig func(t types.Type) bool
	tooBig = func(t types.Type) bool {
		if seen[t] {
			return false
		}
		seen[t] = true
		switch u := t.(type) {
		case *types.Array:
			if u.Len() > MaxStaticSize || sizeBound(sizes, u) > MaxStaticSize {
				return true
			}
			return tooBig(u.Elem())
		case *types.Named:
			return tooBig(u.Underlying())
		case *types.Struct:
			for i := 0; i < u.NumFields(); i++ {
				if tooBig(u.Field(i).Type()) {
					return true
				}
			}
		case *types.Pointer:
			return tooBig(u.Elem())
		case *types.Slice:
			return tooBig(u.Elem())
		case *types.Map:
			return tooBig(u.Key()) || tooBig(u.Elem())
		}
		return false
	}
	reported := map[token.Pos]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		e, ok := n.(ast.Expr)
		if !ok {
			return true
		}
		if t := info.TypeOf(e); t != nil && tooBig(t) && !reported[e.Pos()] {
			reported[e.Pos()] = true
			v.add(e.Pos(), "type %s is larger than %d bytes", t, MaxStaticSize)
			return false
		}
		if cl, ok := e.(*ast.CompositeLit); ok && isSequence(info.TypeOf(cl)) {
			for _, el := range cl.Elts {
				kv, ok := el.(*ast.KeyValueExpr)
				if !ok {
					continue
				}
				if tv := info.Types[kv.Key]; tv.Value != nil && tv.Value.Kind() == constant.Int {
					if k, exact := constant.Int64Val(tv.Value); !exact || k > MaxStaticSize {
						v.add(kv.Key.Pos(), "composite literal index %s is beyond %d", tv.Value, MaxStaticSize)
					}
				}
			}
		}
		return true
	})
}

func isSequence(t types.Type) bool {
	if t == nil {
		return false
	}
	switch t.Underlying().(type) {
	case *types.Slice, *types.Array:
		return true
	}
	return false
}

// sizeBound returns a lower bound of the size of t in bytes, saturating
// at math.MaxInt64. It is go/types' Sizeof where that is defined, but it
// never calls Sizeof on a type that contains a type parameter: go/types
// asserts there, and a generic function taking an array of its type
// parameter ([2]T) would take the host process down with it. A type
// parameter counts as 0 bytes (its size is known only per instantiation;
// the instantiated types a policy uses are checked where they occur) and
// struct padding is left out; at the scale of MaxStaticSize neither
// matters.
func sizeBound(sizes types.Sizes, t types.Type) int64 {
	t = types.Unalias(t)
	if _, ok := t.(*types.TypeParam); ok {
		return 0
	}
	switch u := t.Underlying().(type) {
	case *types.Basic:
		if u.Info()&types.IsUntyped != 0 || u.Kind() == types.Invalid {
			return 0
		}
	case *types.Array:
		n, e := u.Len(), sizeBound(sizes, u.Elem())
		if n <= 0 || e == 0 {
			return 0
		}
		if e > math.MaxInt64/n {
			return math.MaxInt64
		}
		return n * e
	case *types.Struct:
		var sum int64
		for i := range u.NumFields() {
			f := sizeBound(sizes, u.Field(i).Type())
			if f > math.MaxInt64-sum {
				return math.MaxInt64
			}
			sum += f
		}
		return sum
	case *types.Interface, *types.Union:
		// A type parameter's constraint, or an interface value: two
		// words either way, and Sizeof must not see the former.
		return 2 * 8
	}
	return sizes.Sizeof(t.Underlying())
}
