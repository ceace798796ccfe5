package grammar

import (
	"embed"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"sync"
)

// libFiles are the strategy modules' code, in the order Render copies it.
//
//go:embed lib_kit.go lib_harvest.go lib_zones.go lib_aggression.go lib_cleaning.go lib_cycle.go
var libFS embed.FS

var libFiles = []string{"lib_kit.go", "lib_harvest.go", "lib_zones.go", "lib_aggression.go", "lib_cleaning.go", "lib_cycle.go"}

// decl is one top-level declaration of the library.
type decl struct {
	key     string   // "kit", "newKit", "kit.begin", "NearestParams"…
	text    string   // its source, doc comment included
	refs    []string // the keys of the declarations it uses
	imports []string // the standard packages it uses
}

// library is the parsed library: declarations in source order.
type library struct {
	decls []decl
	index map[string]int
}

var (
	libOnce sync.Once
	lib     *library
	libErr  error
)

// loadLibrary parses the embedded library once.
func loadLibrary() (*library, error) {
	libOnce.Do(func() { lib, libErr = parseLibrary() })
	return lib, libErr
}

func parseLibrary() (*library, error) {
	l := &library{index: map[string]int{}}
	type raw struct {
		d    ast.Decl
		src  []byte
		fset *token.FileSet
	}
	var all []raw
	for _, name := range libFiles {
		src, err := libFS.ReadFile(name)
		if err != nil {
			return nil, err
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, name, src, parser.ParseComments)
		if err != nil {
			return nil, fmt.Errorf("grammar library: %w", err)
		}
		for _, d := range f.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.IMPORT {
				continue
			}
			key, err := declKey(d)
			if err != nil {
				return nil, fmt.Errorf("grammar library %s: %w", name, err)
			}
			if _, dup := l.index[key]; dup {
				return nil, fmt.Errorf("grammar library %s: %s declared twice", name, key)
			}
			l.index[key] = len(l.decls)
			start := d.Pos()
			if doc := declDoc(d); doc != nil {
				start = doc.Pos()
			}
			text := src[fset.Position(start).Offset:fset.Position(d.End()).Offset]
			l.decls = append(l.decls, decl{key: key, text: string(text)})
			all = append(all, raw{d: d, src: src, fset: fset})
		}
	}
	for i, r := range all {
		refs, imports := map[string]bool{}, map[string]bool{}
		ast.Inspect(r.d, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.SelectorExpr:
				if x, ok := n.X.(*ast.Ident); ok && (x.Name == "math" || x.Name == "sort") {
					imports[x.Name] = true
				}
				if _, ok := l.index["kit."+n.Sel.Name]; ok {
					refs["kit."+n.Sel.Name] = true
				}
			case *ast.Ident:
				if _, ok := l.index[n.Name]; ok && n.Name != l.decls[i].key {
					refs[n.Name] = true
				}
			}
			return true
		})
		l.decls[i].refs = sortedKeys(refs)
		l.decls[i].imports = sortedKeys(imports)
	}
	return l, nil
}

// declKey names a declaration: a function by its name, a method by its
// receiver type and name, a type, variable or constant declaration (one
// spec each in the library) by its name.
func declKey(d ast.Decl) (string, error) {
	switch d := d.(type) {
	case *ast.FuncDecl:
		if d.Recv == nil {
			return d.Name.Name, nil
		}
		t := d.Recv.List[0].Type
		if s, ok := t.(*ast.StarExpr); ok {
			t = s.X
		}
		id, ok := t.(*ast.Ident)
		if !ok {
			return "", fmt.Errorf("method %s: unsupported receiver", d.Name.Name)
		}
		return id.Name + "." + d.Name.Name, nil
	case *ast.GenDecl:
		if len(d.Specs) != 1 {
			return "", fmt.Errorf("declaration at %v: one spec per declaration, please", d.Pos())
		}
		switch s := d.Specs[0].(type) {
		case *ast.TypeSpec:
			return s.Name.Name, nil
		case *ast.ValueSpec:
			if len(s.Names) == 1 {
				return s.Names[0].Name, nil
			}
		}
	}
	return "", fmt.Errorf("unsupported declaration at %v", d.Pos())
}

func declDoc(d ast.Decl) *ast.CommentGroup {
	switch d := d.(type) {
	case *ast.FuncDecl:
		return d.Doc
	case *ast.GenDecl:
		return d.Doc
	}
	return nil
}

// closure returns the declarations that roots need, transitively, in
// source order, and the standard packages they import.
func (l *library) closure(roots ...string) ([]decl, []string, error) {
	need := make([]bool, len(l.decls))
	stack := append([]string(nil), roots...)
	for len(stack) > 0 {
		key := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		i, ok := l.index[key]
		if !ok {
			return nil, nil, fmt.Errorf("grammar library: no declaration %s", key)
		}
		if need[i] {
			continue
		}
		need[i] = true
		stack = append(stack, l.decls[i].refs...)
	}
	var out []decl
	imports := map[string]bool{}
	for i, d := range l.decls {
		if need[i] {
			out = append(out, d)
			for _, im := range d.imports {
				imports[im] = true
			}
		}
	}
	return out, sortedKeys(imports), nil
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
