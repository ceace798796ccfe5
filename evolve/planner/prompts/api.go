package prompts

import (
	"bytes"
	_ "embed"
	"fmt"
	"go/ast"
	"go/doc"
	"go/parser"
	"go/printer"
	"go/token"
	"io/fs"
	"sort"
	"strings"
	"sync"

	"policyevolve/envs"
)

//go:embed templates/bfs_example.go.txt
var bfsExample string

// hostOnly are the exported names of package ssd a policy has no use for:
// they serve the host that builds Views.
var hostOnly = map[string]bool{
	"NewView": true, "Update": true, "HashState": true, "Layout": true, "State": true,
	"ParseGame": true, "DefaultParams": true, "Policy": true, "Validate": true, "Check": true, "CopyFrom": true,
}

var api struct {
	once sync.Once
	text string
	err  error
}

// API returns the ssd package as a policy sees it: its constants, types,
// functions and View methods as Go declarations with their doc comments,
// generated from the package source embedded in the binary
// (envs.SSDSource), so that it always matches the code the sandbox
// compiles policies against.
func API() (string, error) {
	api.once.Do(func() { api.text, api.err = renderAPI() })
	return api.text, api.err
}

func renderAPI() (string, error) {
	fset := token.NewFileSet()
	names, err := fs.Glob(envs.SSDSource, "ssd/*.go")
	if err != nil {
		return "", err
	}
	var files []*ast.File
	for _, n := range names {
		if strings.HasSuffix(n, "_test.go") {
			continue
		}
		src, err := fs.ReadFile(envs.SSDSource, n)
		if err != nil {
			return "", err
		}
		f, err := parser.ParseFile(fset, n, src, parser.ParseComments)
		if err != nil {
			return "", err
		}
		files = append(files, f)
	}
	pkg, err := doc.NewFromFiles(fset, files, "ssd", doc.PreserveAST)
	if err != nil {
		return "", fmt.Errorf("ssd API: %w", err)
	}
	var b bytes.Buffer
	decl := func(comment string, node any) {
		if comment != "" {
			for _, l := range strings.Split(strings.TrimSpace(comment), "\n") {
				b.WriteString(strings.TrimRight("// "+l, " ") + "\n")
			}
		}
		if g, ok := node.(*ast.GenDecl); ok {
			c := *g
			c.Doc = nil // printed above
			node = &c
		}
		cfg := printer.Config{Mode: printer.UseSpaces | printer.TabIndent, Tabwidth: 4}
		cfg.Fprint(&b, fset, node)
		b.WriteString("\n\n")
	}
	section := func(title string) { fmt.Fprintf(&b, "// ---- %s\n\n", title) }

	section("constants")
	for _, c := range pkg.Consts {
		decl(c.Doc, c.Decl)
	}
	for _, t := range pkg.Types {
		for _, c := range t.Consts {
			decl(c.Doc, c.Decl)
		}
	}
	section("types")
	var view *doc.Type
	for _, t := range pkg.Types {
		if t.Name == "View" {
			view = t
			continue
		}
		if hostOnly[t.Name] {
			continue
		}
		decl(t.Doc, stripUnexported(t.Decl))
		for _, m := range t.Methods {
			if !hostOnly[m.Name] {
				decl(m.Doc, signature(m.Decl))
			}
		}
	}
	section("functions")
	funcs := pkg.Funcs
	for _, t := range pkg.Types {
		funcs = append(funcs, t.Funcs...)
	}
	sort.Slice(funcs, func(i, j int) bool { return funcs[i].Name < funcs[j].Name })
	for _, f := range funcs {
		if !hostOnly[f.Name] {
			decl(f.Doc, signature(f.Decl))
		}
	}
	if view == nil {
		return "", fmt.Errorf("ssd API: no View type")
	}
	section("the View: what a policy reads of the state, and its helpers")
	decl(view.Doc, &ast.GenDecl{Tok: token.TYPE, Specs: []ast.Spec{&ast.TypeSpec{Name: ast.NewIdent("View"),
		Type: &ast.StructType{Fields: &ast.FieldList{}}}}})
	for _, m := range view.Methods {
		if !hostOnly[m.Name] {
			decl(m.Doc, signature(m.Decl))
		}
	}
	return strings.TrimSpace(b.String()) + "\n", nil
}

// signature is a function declaration without its body.
func signature(f *ast.FuncDecl) *ast.FuncDecl {
	g := *f
	g.Body, g.Doc = nil, nil
	return &g
}

// stripUnexported drops a struct's unexported fields and the doc comment
// (printed separately).
func stripUnexported(d *ast.GenDecl) *ast.GenDecl {
	g := *d
	g.Doc = nil
	var specs []ast.Spec
	for _, s := range d.Specs {
		ts, ok := s.(*ast.TypeSpec)
		if !ok {
			specs = append(specs, s)
			continue
		}
		t := *ts
		t.Doc = nil
		if st, ok := ts.Type.(*ast.StructType); ok {
			var fields []*ast.Field
			for _, f := range st.Fields.List {
				var names []*ast.Ident
				for _, n := range f.Names {
					if n.IsExported() {
						names = append(names, n)
					}
				}
				if len(names) > 0 || len(f.Names) == 0 {
					g := *f
					g.Names = names
					fields = append(fields, &g)
				}
			}
			s2 := *st
			s2.Fields = &ast.FieldList{Opening: st.Fields.Opening, List: fields, Closing: st.Fields.Closing}
			t.Type = &s2
		}
		specs = append(specs, &t)
	}
	g.Specs = specs
	return &g
}
