package sandbox

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"go/types"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// AllowedImports are the only packages a policy may import: the policy API
// and a few pure standard-library packages.
var AllowedImports = []string{"ssd", "math", "math/bits", "sort", "strings", "strconv", "errors", "container/heap"}

// MaxSourceSize bounds a policy's source.
const MaxSourceSize = 256 << 10

// PolicyFileName is the name validation messages give the source.
const PolicyFileName = "policy.go"

// reservedPrefix starts the names the sandbox's own rewrites introduce.
const reservedPrefix = "__pe_"

// Signature is the one a policy's Policy function must have.
const Signature = "func Policy(v *ssd.View, agent int) int"

// Checked is a policy source that passed validation.
type Checked struct {
	Source []byte
	ID     string // hex SHA-256 of Source
	Fset   *token.FileSet
	File   *ast.File
	// Types and Info are nil when no type information is available (no Go
	// toolchain); the rules were then checked on the syntax alone.
	Types *types.Package
	Info  *types.Info
}

// SourceID returns the content address of a policy source: hex SHA-256.
func SourceID(src []byte) string {
	sum := sha256.Sum256(src)
	return hex.EncodeToString(sum[:])
}

// Validate checks a policy source against the contract: package policy; a
// function Policy(v *ssd.View, agent int) int; imports only from
// AllowedImports, none of them dot imports; no go statements, channels or
// select; no cgo and no compiler directives (//go:linkname, //go:embed,
// …); and it must type-check against the ssd API. Every problem is
// reported at once, with line, column and the offending line.
//
// A panic while checking (see refusePanic) refuses the source.
func Validate(src []byte) (_ *Checked, err error) {
	defer refusePanic("checker", &err)
	enterStage("checker")
	v := &validation{src: src, fset: token.NewFileSet()}
	c, err := v.run()
	if err != nil {
		return nil, err
	}
	if len(v.issues) > 0 {
		return nil, v.error()
	}
	return c, nil
}

type validation struct {
	src     []byte
	fset    *token.FileSet
	issues  []Issue
	dropped int // problems past maxIssues
}

func (v *validation) add(pos token.Pos, format string, args ...any) {
	p := v.fset.Position(pos)
	v.addAt(p.Line, p.Column, fmt.Sprintf(format, args...))
}

// maxIssues bounds the problems collected from one source: a hostile
// source can make the parser or checker report one per line.
const maxIssues = 200

func (v *validation) addAt(line, col int, msg string) {
	if len(v.issues) >= maxIssues {
		v.dropped++
		return
	}
	v.issues = append(v.issues, Issue{Line: line, Col: col, Msg: msg})
}

// sourceLine returns line n (1-based) of src, trimmed and shortened.
func sourceLine(src []byte, n int) string {
	if n < 1 {
		return ""
	}
	for ; n > 1; n-- {
		i := bytes.IndexByte(src, '\n')
		if i < 0 {
			return ""
		}
		src = src[i+1:]
	}
	if i := bytes.IndexByte(src, '\n'); i >= 0 {
		src = src[:i]
	}
	s := strings.TrimSpace(string(src))
	if len(s) > 120 {
		s = s[:117] + "..."
	}
	return quoteControl(s)
}

// shownIssues is how many problems a ValidationError lists.
const shownIssues = 25

func (v *validation) error() error {
	sort.SliceStable(v.issues, func(i, j int) bool {
		a, b := v.issues[i], v.issues[j]
		return a.Line < b.Line || a.Line == b.Line && a.Col < b.Col
	})
	v.issues = slices.CompactFunc(v.issues, func(a, b Issue) bool { return a == b })
	more := v.dropped
	if len(v.issues) > shownIssues {
		more += len(v.issues) - shownIssues
		v.issues = v.issues[:shownIssues]
	}
	for i := range v.issues {
		v.issues[i].Snippet = sourceLine(v.src, v.issues[i].Line)
	}
	if more > 0 {
		v.issues = append(v.issues, Issue{Msg: fmt.Sprintf("… and %d more problems", more)})
	}
	return &ValidationError{File: PolicyFileName, Issues: v.issues}
}

func (v *validation) run() (*Checked, error) {
	if len(v.src) == 0 || len(bytes.TrimSpace(v.src)) == 0 {
		v.addAt(1, 1, "empty source: want a Go file with package policy and "+Signature)
		return nil, nil
	}
	if len(v.src) > MaxSourceSize {
		v.addAt(1, 1, fmt.Sprintf("source is %d bytes; the limit is %d", len(v.src), MaxSourceSize))
		return nil, nil
	}
	if !utf8.Valid(v.src) {
		v.addAt(1, 1, "source is not valid UTF-8")
		return nil, nil
	}
	v.checkBidi()
	f, err := parser.ParseFile(v.fset, PolicyFileName, v.src, parser.ParseComments|parser.AllErrors)
	if err != nil {
		var list scanner.ErrorList
		if errors.As(err, &list) {
			for _, e := range list {
				v.addAt(e.Pos.Line, e.Pos.Column, "syntax error: "+e.Msg)
			}
		} else {
			v.addAt(1, 1, err.Error())
		}
		return nil, nil
	}
	if !skipPrechecks && !v.checkNesting(f) {
		return nil, nil
	}
	if f.Name.Name != "policy" {
		v.add(f.Name.Pos(), "package is %s; a policy must be in package policy", f.Name.Name)
	}
	v.checkDirectives(f)
	ssdName := v.checkImports(f)
	v.checkSyntax(f)
	if !skipPrechecks {
		v.checkConstantStrings(f)
	}

	c := &Checked{Source: v.src, ID: SourceID(v.src), Fset: v.fset, File: f}
	loadTypeEnv()
	if typeEnv.err != nil || len(v.issues) > 0 {
		// No type information, or imports the type checker must not see:
		// check the signature on the syntax.
		v.checkSignatureSyntax(f, ssdName)
		v.checkForeignWrites(f, nil)
		return c, nil
	}
	pkg, info, _ := typeCheck(v.fset, f, func(te types.Error) { v.add(te.Pos, "%s", te.Msg) })
	if len(v.issues) > 0 {
		return nil, nil
	}
	v.checkSignature(pkg)
	v.checkSizes(f, info)
	v.checkFoldedStrings(f, info)
	v.checkForeignWrites(f, info)
	c.Types, c.Info = pkg, info
	return c, nil
}

// checkDirectives refuses compiler directives in comments: //go:linkname
// reaches into the runtime, //go:embed reads files, //line rewrites
// positions.
func (v *validation) checkDirectives(f *ast.File) {
	for _, g := range f.Comments {
		for _, c := range g.List {
			text := c.Text
			switch {
			case strings.HasPrefix(text, "//go:"), strings.HasPrefix(text, "/*go:"):
				name := strings.Fields(text[2:])[0]
				v.add(c.Pos(), "compiler directive %s is not allowed in a policy", name)
			case strings.HasPrefix(text, "//line "), strings.HasPrefix(text, "/*line "):
				v.add(c.Pos(), "line directives are not allowed in a policy")
			case strings.HasPrefix(strings.TrimLeft(text[2:], " \t"), "+build"):
				v.add(c.Pos(), "build constraints (+build) are not allowed in a policy")
			case strings.HasPrefix(text, "//yaegi:"):
				v.add(c.Pos(), "interpreter directives (//yaegi:) are not allowed in a policy")
			}
		}
	}
}

// checkImports refuses imports outside the allow-list, dot imports and cgo,
// and returns the name under which ssd is imported ("" if it is not).
func (v *validation) checkImports(f *ast.File) string {
	ssdName := ""
	for _, im := range f.Imports {
		p, err := strconv.Unquote(im.Path.Value)
		if err != nil {
			v.add(im.Path.Pos(), "malformed import path %s", im.Path.Value)
			continue
		}
		switch {
		case p == "C":
			v.add(im.Pos(), `cgo (import "C") is not allowed in a policy`)
			continue
		case !slices.Contains(AllowedImports, p):
			v.add(im.Pos(), "import %q is not allowed; a policy may import only %s", p, strings.Join(AllowedImports, ", "))
			continue
		}
		if im.Name != nil && im.Name.Name == "." {
			v.add(im.Pos(), "dot import of %q is not allowed; refer to its names as %s.Name", p, path_base(p))
		}
		if p == "ssd" {
			ssdName = "ssd"
			if im.Name != nil {
				ssdName = im.Name.Name
			}
		}
	}
	return ssdName
}

func path_base(p string) string {
	if i := strings.LastIndex(p, "/"); i >= 0 {
		return p[i+1:]
	}
	return p
}

// checkSyntax refuses concurrency (a policy is a function of the state;
// goroutines and channels could outlive a step and cannot be stopped) and
// the names the sandbox reserves.
func (v *validation) checkSyntax(f *ast.File) {
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Name.Name == "main" {
			v.add(fd.Name.Pos(), "the name main is reserved; rename this function")
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.GoStmt:
			v.add(n.Pos(), "go statements are not allowed: a policy must not start goroutines")
		case *ast.SelectStmt:
			v.add(n.Pos(), "select is not allowed: a policy must not use channels")
		case *ast.ChanType:
			v.add(n.Pos(), "channels are not allowed in a policy")
		case *ast.SendStmt:
			v.add(n.Pos(), "channel sends are not allowed in a policy")
		case *ast.UnaryExpr:
			if n.Op == token.ARROW {
				v.add(n.Pos(), "channel receives are not allowed in a policy")
			}
		case *ast.Ident:
			if strings.HasPrefix(n.Name, reservedPrefix) {
				v.add(n.Pos(), "names starting with %s are reserved for the sandbox", reservedPrefix)
			}
		}
		return true
	})
}

// checkSignature checks Policy with full type information.
func (v *validation) checkSignature(pkg *types.Package) {
	obj := pkg.Scope().Lookup("Policy")
	if obj == nil {
		v.addAt(1, 1, "no function Policy: a policy must declare "+Signature)
		return
	}
	fn, ok := obj.(*types.Func)
	if !ok {
		v.add(obj.Pos(), "Policy is a %s; it must be declared as %s", objectKind(obj), Signature)
		return
	}
	sig := fn.Type().(*types.Signature)
	ok = sig.TypeParams() == nil && !sig.Variadic() && sig.Params().Len() == 2 && sig.Results().Len() == 1 &&
		isSSDView(sig.Params().At(0).Type()) &&
		types.Identical(sig.Params().At(1).Type(), types.Typ[types.Int]) &&
		types.Identical(sig.Results().At(0).Type(), types.Typ[types.Int])
	if !ok {
		v.add(obj.Pos(), "Policy has type %s; want %s",
			types.TypeString(sig, func(p *types.Package) string { return p.Name() }), Signature)
	}
}

func objectKind(o types.Object) string {
	switch o.(type) {
	case *types.Var:
		return "variable"
	case *types.Const:
		return "constant"
	case *types.TypeName:
		return "type"
	case *types.Func:
		return "function"
	}
	return "declaration"
}

func isSSDView(t types.Type) bool {
	p, ok := t.(*types.Pointer)
	if !ok {
		return false
	}
	n, ok := p.Elem().(*types.Named)
	return ok && n.Obj().Name() == "View" && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "ssd"
}

// checkSignatureSyntax checks Policy on the syntax alone.
func (v *validation) checkSignatureSyntax(f *ast.File, ssdName string) {
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv != nil || d.Name.Name != "Policy" {
				continue
			}
			if !syntaxSignatureOK(d.Type, ssdName) {
				v.add(d.Name.Pos(), "Policy must be declared as %s", Signature)
			}
			return
		case *ast.GenDecl:
			for _, s := range d.Specs {
				var names []*ast.Ident
				switch s := s.(type) {
				case *ast.ValueSpec:
					names = s.Names
				case *ast.TypeSpec:
					names = []*ast.Ident{s.Name}
				}
				for _, n := range names {
					if n.Name == "Policy" {
						v.add(n.Pos(), "Policy must be a function declared as %s", Signature)
						return
					}
				}
			}
		}
	}
	v.addAt(1, 1, "no function Policy: a policy must declare "+Signature)
}

func syntaxSignatureOK(ft *ast.FuncType, ssdName string) bool {
	if ft.TypeParams != nil || ft.Results == nil || ssdName == "" {
		return false
	}
	var params []ast.Expr
	for _, fl := range ft.Params.List {
		n := max(len(fl.Names), 1)
		for range n {
			params = append(params, fl.Type)
		}
	}
	var results []ast.Expr
	for _, fl := range ft.Results.List {
		n := max(len(fl.Names), 1)
		for range n {
			results = append(results, fl.Type)
		}
	}
	if len(params) != 2 || len(results) != 1 {
		return false
	}
	star, ok := params[0].(*ast.StarExpr)
	if !ok {
		return false
	}
	sel, ok := star.X.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "View" {
		return false
	}
	if id, ok := sel.X.(*ast.Ident); !ok || id.Name != ssdName {
		return false
	}
	isInt := func(e ast.Expr) bool { id, ok := e.(*ast.Ident); return ok && id.Name == "int" }
	return isInt(params[1]) && isInt(results[0])
}

// typeCheck type-checks a policy file against the ssd API and the allowed
// packages, reporting each error to onErr (nil: only the first is
// returned). The type environment must be loaded (loadTypeEnv).
func typeCheck(fset *token.FileSet, f *ast.File, onErr func(types.Error)) (*types.Package, *types.Info, error) {
	loadTypeEnv()
	if typeEnv.err != nil {
		return nil, nil, typeEnv.err
	}
	typeEnv.mu.Lock()
	defer typeEnv.mu.Unlock()
	return typeCheckWith(policyImporter{typeEnv.std, typeEnv.ssd}, fset, f, onErr)
}

// typeCheckWith is typeCheck with the importer given.
func typeCheckWith(imp types.Importer, fset *token.FileSet, f *ast.File, onErr func(types.Error)) (*types.Package, *types.Info, error) {
	info := &types.Info{
		Types:      map[ast.Expr]types.TypeAndValue{},
		Defs:       map[*ast.Ident]types.Object{},
		Uses:       map[*ast.Ident]types.Object{},
		Selections: map[*ast.SelectorExpr]*types.Selection{},
		Scopes:     map[ast.Node]*types.Scope{},
		Implicits:  map[ast.Node]types.Object{},
	}
	conf := types.Config{
		Importer:  imp,
		GoVersion: "go1.25",
	}
	if onErr != nil {
		conf.Error = func(err error) {
			var te types.Error
			if errors.As(err, &te) {
				onErr(te)
			}
		}
	}
	pkg, err := conf.Check("policy", fset, []*ast.File{f}, info)
	return pkg, info, err
}
