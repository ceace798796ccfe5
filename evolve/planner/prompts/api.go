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
	"policyevolve/envs/ssd"
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
	text map[apiKey]string
	err  error
}

// apiKey names one rendering of the API: for one game, or (all) for
// every game at once, as the prompts showed it before they were built
// per game.
type apiKey struct {
	game ssd.Game
	all  bool
}

// API returns the ssd package as a policy of game sees it: its
// constants, types, functions and View methods as Go declarations with
// their doc comments, generated from the package source embedded in the
// binary (envs.SSDSource), so that it always matches the code the sandbox
// compiles policies against. What only the other game can use is left
// out (see gameOf for how the source marks it), so that a Gathering
// policy is never invited to clean a river it does not have.
func API(game ssd.Game) (string, error) { return renderedAPI(apiKey{game: game}) }

// legacyAPI is the API with every game's declarations, as the prompts
// showed it before they were built per game.
func legacyAPI() (string, error) { return renderedAPI(apiKey{all: true}) }

func renderedAPI(k apiKey) (string, error) {
	api.once.Do(func() {
		api.text = map[apiKey]string{}
		for _, k := range []apiKey{{game: ssd.Gathering}, {game: ssd.Cleanup}, {all: true}} {
			var text string
			if text, api.err = renderAPI(k); api.err != nil {
				return
			}
			api.text[k] = text
		}
	})
	return api.text[k], api.err
}

// The marks in package ssd's source of what only one game can use. A
// declaration's doc comment holds the directive "//ssd:game NAME"
// (which go doc hides); a constant's line comment says "NAME only"; a
// struct field follows a heading comment "// NAME." that opens a group of
// fields, up to the next field with a doc comment of its own.
const gameDirective = "//ssd:game "

// bothGames is what gameOf returns for "//ssd:game both": a declaration
// only a description of both games shows (the Game type: a policy of one
// game knows which it plays).
const bothGames = ssd.Game(255)

// gameOf is the game a doc comment (or a constant's line comment, or a
// field group's heading) marks, if any.
func gameOf(cg *ast.CommentGroup) (ssd.Game, bool) {
	if cg == nil {
		return 0, false
	}
	for _, c := range cg.List {
		if name, ok := strings.CutPrefix(c.Text, gameDirective); ok {
			if name = strings.TrimSpace(name); name == "both" {
				return bothGames, true
			}
			g, err := ssd.ParseGame(name)
			return g, err == nil
		}
	}
	text := strings.TrimSpace(cg.Text())
	for _, g := range []ssd.Game{ssd.Gathering, ssd.Cleanup} {
		title := strings.ToUpper(g.String()[:1]) + g.String()[1:]
		if strings.Contains(text, title+" only") || text == title+"." {
			return g, true
		}
	}
	return 0, false
}

// keep reports whether a declaration marked by cg is shown in k's API.
func (k apiKey) keep(cg *ast.CommentGroup) bool {
	g, marked := gameOf(cg)
	return k.all || !marked || g == k.game
}

func renderAPI(k apiKey) (string, error) {
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
	funcDecl := func(f *doc.Func) {
		if !hostOnly[f.Name] && k.keep(f.Decl.Doc) {
			decl(f.Doc, signature(f.Decl))
		}
	}

	section("constants")
	for _, c := range pkg.Consts {
		if d := k.constants(c.Decl); d != nil {
			decl(c.Doc, d)
		}
	}
	for _, t := range pkg.Types {
		if !k.keep(t.Decl.Doc) {
			continue // the type's constants go with it
		}
		for _, c := range t.Consts {
			if d := k.constants(c.Decl); d != nil {
				decl(c.Doc, d)
			}
		}
	}
	section("types")
	var view *doc.Type
	for _, t := range pkg.Types {
		if t.Name == "View" {
			view = t
			continue
		}
		if hostOnly[t.Name] || !k.keep(t.Decl.Doc) {
			continue
		}
		decl(t.Doc, k.stripFields(t.Decl))
		for _, m := range t.Methods {
			funcDecl(m)
		}
	}
	section("functions")
	funcs := pkg.Funcs
	for _, t := range pkg.Types {
		if k.keep(t.Decl.Doc) { // a type's constructors go with it
			funcs = append(funcs, t.Funcs...)
		}
	}
	sort.Slice(funcs, func(i, j int) bool { return funcs[i].Name < funcs[j].Name })
	for _, f := range funcs {
		funcDecl(f)
	}
	if view == nil {
		return "", fmt.Errorf("ssd API: no View type")
	}
	section("the View: what a policy reads of the state, and its helpers")
	decl(view.Doc, &ast.GenDecl{Tok: token.TYPE, Specs: []ast.Spec{&ast.TypeSpec{Name: ast.NewIdent("View"),
		Type: &ast.StructType{Fields: &ast.FieldList{}}}}})
	for _, m := range view.Methods {
		funcDecl(m)
	}
	return strings.TrimSpace(b.String()) + "\n", nil
}

// constants is a const declaration without the constants of the other
// game (nil when none is left).
func (k apiKey) constants(d *ast.GenDecl) *ast.GenDecl {
	g := *d
	g.Specs = nil
	for _, s := range d.Specs {
		if vs, ok := s.(*ast.ValueSpec); !ok || k.keep(vs.Doc) && k.keep(vs.Comment) {
			g.Specs = append(g.Specs, s)
		}
	}
	if len(g.Specs) == 0 {
		return nil
	}
	return &g
}

// signature is a function declaration without its body.
func signature(f *ast.FuncDecl) *ast.FuncDecl {
	g := *f
	g.Body, g.Doc = nil, nil
	return &g
}

// stripFields drops a struct's unexported fields, the fields of the other
// game (a group under a heading "// NAME." or a field marked itself) and
// the doc comment (printed separately).
func (k apiKey) stripFields(d *ast.GenDecl) *ast.GenDecl {
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
			var group *ast.CommentGroup // the heading of the fields' group
			for _, f := range st.Fields.List {
				if f.Doc != nil {
					group = f.Doc
				}
				if !k.keep(group) || !k.keep(f.Comment) {
					continue
				}
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
