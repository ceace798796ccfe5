package sandbox

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
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
// every string concatenation the checker would fold: string literals,
// names of constants and + are measured on the syntax, names resolved to
// every constant of that name in the file (an upper bound).
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
	memo := map[string]int64{}
	busy := map[string]bool{}
	var size func(e ast.Expr) int64
	size = func(e ast.Expr) int64 {
		switch e := e.(type) {
		case *ast.BasicLit:
			if e.Kind == token.STRING {
				return int64(len(e.Value))
			}
			return 8
		case *ast.ParenExpr:
			return size(e.X)
		case *ast.BinaryExpr:
			if e.Op == token.ADD {
				return min(size(e.X)+size(e.Y), 1<<62)
			}
		case *ast.CallExpr: // a conversion, string(x)
			if len(e.Args) == 1 {
				return size(e.Args[0])
			}
		case *ast.Ident:
			if n, ok := memo[e.Name]; ok {
				return n
			}
			if busy[e.Name] {
				return 0 // a cycle: the type checker reports it
			}
			busy[e.Name] = true
			var n int64
			for _, x := range consts[e.Name] {
				n = max(n, size(x))
			}
			busy[e.Name] = false
			memo[e.Name] = n
			return n
		}
		return 0
	}
	ast.Inspect(f, func(n ast.Node) bool {
		be, ok := n.(*ast.BinaryExpr)
		if !ok || be.Op != token.ADD {
			return true
		}
		if l := size(be); l > MaxConstantString {
			v.add(be.Pos(), "this constant expression could build a string of up to %d bytes; constants are limited to %d", l, MaxConstantString)
			return false
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
			if u.Len() > MaxStaticSize || sizes.Sizeof(u) > MaxStaticSize || sizes.Sizeof(u) < 0 {
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
