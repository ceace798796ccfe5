package planner

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"

	"policyevolve/sandbox"
)

// NormalizedID identifies a policy source up to layout, comments and the
// names of its local variables and parameters: two sources with the same
// NormalizedID are the same policy written twice. A source that does not
// parse is identified by its text.
func NormalizedID(src []byte) string {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "policy.go", src, 0) // no comments
	if err != nil || sandbox.TooDeep(f) {
		// Too deep a source (admission refuses it) would cost the
		// printer minutes: a sum of 8,000 terms took it 6 s, and the
		// time grows with the square of the length.
		return sandbox.SourceID(src)
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch fn := n.(type) {
		case *ast.FuncDecl:
			fn.Doc = nil
			renameLocals(fn.Type, fn.Body, fn.Pos(), fn.End())
		case *ast.GenDecl:
			fn.Doc = nil
		}
		return true
	})
	var b bytes.Buffer
	if err := format.Node(&b, fset, f); err != nil {
		return sandbox.SourceID(src)
	}
	sum := sha256.Sum256(b.Bytes())
	return hex.EncodeToString(sum[:])
}

// renameLocals gives every object declared between from and to (the
// function's parameters, results and locals, closures' included) a name
// of its order of appearance.
func renameLocals(typ *ast.FuncType, body *ast.BlockStmt, from, to token.Pos) {
	//lint:ignore SA1019 the policy is normalised before it type-checks; the parser's scopes are what there is
	names := map[*ast.Object]string{}
	visit := func(n ast.Node) bool {
		id, ok := n.(*ast.Ident)
		if !ok || id.Obj == nil || id.Name == "_" {
			return true
		}
		decl, ok := id.Obj.Decl.(ast.Node)
		if !ok || decl.Pos() < from || decl.Pos() >= to {
			return true // declared outside: a package-level name
		}
		name, seen := names[id.Obj]
		if !seen {
			name = fmt.Sprintf("v%d", len(names))
			names[id.Obj] = name
		}
		id.Name = name
		return true
	}
	ast.Inspect(typ, visit)
	if body != nil {
		ast.Inspect(body, visit)
	}
}
