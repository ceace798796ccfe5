package sandbox

import (
	"go/ast"
	"go/types"
)

// Negative zero. yaegi v0.16.1 does not copy an argument that
// reflect.Value.IsZero calls zero into a call of a package-level
// function, so a -0.0 argument (IsZero: -0.0 == 0) arrives as +0.0:
// math.Signbit, 1/x, math.Atan2 and strconv.FormatFloat then give other
// results than Go. Methods and function values get their arguments
// intact. The rewrite turns every package-level function that takes a
// float (alone, or in a struct or an array) into a method of an empty
// struct type, and its uses into method calls and method values.

// fnsType is the empty struct type those functions become methods of.
func (rw *rewriter) fnsType() string {
	name := reservedPrefix + "fns"
	if _, ok := rw.helperIdx["fns"]; !ok {
		rw.helperIdx["fns"] = name
		rw.helpers = append(rw.helpers, "type "+name+" struct{}")
	}
	return name
}

// negZeroSafe rewrites the package-level functions whose parameters may
// hold a -0.
func (rw *rewriter) negZeroSafe() {
	if rw.c.Info == nil {
		rw.negZeroSafeSyntax()
		return
	}
	funcs := map[types.Object]bool{}
	for _, d := range rw.c.File.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Recv != nil || fd.Body == nil || fd.Name.Name == "Policy" || fd.Name.Name == "init" {
			continue
		}
		obj := rw.c.Info.Defs[fd.Name]
		sig, ok := obj.Type().(*types.Signature)
		if !ok || sig.TypeParams() != nil {
			continue
		}
		for i := 0; i < sig.Params().Len(); i++ {
			if mayHoldNegZero(sig.Params().At(i).Type(), 0) {
				funcs[obj] = true
				break
			}
		}
		if funcs[obj] {
			rw.edits = append(rw.edits, edit{start: rw.off(fd.Name.Pos()), end: rw.off(fd.Name.Pos()), text: "(" + rw.fnsType() + ") "})
		}
	}
	if len(funcs) == 0 {
		return
	}
	for id, obj := range rw.c.Info.Uses {
		if funcs[obj] {
			rw.edits = append(rw.edits, edit{start: rw.off(id.Pos()), end: rw.off(id.Pos()), text: rw.fnsType() + "{}."})
		}
	}
}

// mayHoldNegZero reports whether a value of t may be a -0 or contain one
// in place (not behind a pointer, slice or map).
func mayHoldNegZero(t types.Type, depth int) bool {
	if depth > 10 {
		return false
	}
	switch u := t.Underlying().(type) {
	case *types.Basic:
		return u.Info()&(types.IsFloat|types.IsComplex) != 0
	case *types.Array:
		return mayHoldNegZero(u.Elem(), depth+1)
	case *types.Struct:
		for i := 0; i < u.NumFields(); i++ {
			if mayHoldNegZero(u.Field(i).Type(), depth+1) {
				return true
			}
		}
	}
	return false
}

// negZeroSafeSyntax is negZeroSafe without type information: every
// package-level function but Policy becomes a method, and every call of
// it by name a method call (its uses as values too).
func (rw *rewriter) negZeroSafeSyntax() {
	//lint:ignore SA1019 this is the rewrite for when there is no type information (its doc says so)
	funcs := map[*ast.Object]bool{}
	for _, d := range rw.c.File.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Recv != nil || fd.Body == nil || fd.Name.Name == "Policy" || fd.Name.Name == "init" || fd.Type.TypeParams != nil {
			continue
		}
		if fd.Name.Obj != nil {
			funcs[fd.Name.Obj] = true
			rw.edits = append(rw.edits, edit{start: rw.off(fd.Name.Pos()), end: rw.off(fd.Name.Pos()), text: "(" + rw.fnsType() + ") "})
		}
	}
	ast.Inspect(rw.c.File, func(n ast.Node) bool {
		if fd, ok := n.(*ast.FuncDecl); ok {
			// The declaration's own name is not a use.
			if fd.Type.Params != nil {
				ast.Inspect(fd.Type, func(ast.Node) bool { return true })
			}
			if fd.Body != nil {
				ast.Inspect(fd.Body, func(m ast.Node) bool {
					if id, ok := m.(*ast.Ident); ok && id.Obj != nil && funcs[id.Obj] {
						rw.edits = append(rw.edits, edit{start: rw.off(id.Pos()), end: rw.off(id.Pos()), text: rw.fnsType() + "{}."})
					}
					return true
				})
			}
			return false
		}
		if vs, ok := n.(*ast.ValueSpec); ok {
			for _, v := range vs.Values {
				ast.Inspect(v, func(m ast.Node) bool {
					if id, ok := m.(*ast.Ident); ok && id.Obj != nil && funcs[id.Obj] {
						rw.edits = append(rw.edits, edit{start: rw.off(id.Pos()), end: rw.off(id.Pos()), text: rw.fnsType() + "{}."})
					}
					return true
				})
			}
			return false
		}
		return true
	})
}
