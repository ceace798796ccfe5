package sandbox

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"regexp"
	"strconv"
	"strings"
)

// resetName is the function withReset adds: it puts the policy's
// package-level state back where a fresh process starts it.
const resetName = reservedPrefix + "reset"

// withReset makes a policy's package-level state resettable, so that one
// worker can play many episodes, each starting exactly as a fresh process
// would: a zone table computed at the first call, a step counter or a
// cache must not survive into the next episode.
//
// It renames every `func init()` to a function of its own and appends
// resetName, which, as Go initialises a package, first gives every
// package-level variable its zero value — those with an initializer too:
// an initializer may read a variable initialised after it, through a
// call Go's initialisation order does not follow (an interface method, a
// closure, a method value), and must then see its zero value as in a
// fresh process, not the last episode's — then runs the initializers in
// the order the type checker gives (Info.InitOrder), then the init
// functions in source order. The policy's lines keep their numbers.
//
// It returns c itself and false when the policy keeps no package-level
// state, when there is no type information to order the initializers
// (no Go toolchain), or when the type of a variable cannot be written in
// the policy's file (a type of a package it does not import, a
// predeclared name the policy redeclares): such a policy gets a fresh
// worker per episode.
func withReset(c *Checked) (*Checked, bool, error) {
	if c.Info == nil {
		return c, false, nil
	}
	var edits []edit
	var inits, zero []string
	qualify, unnamed := typeQualifier(c)
	ok := true
	for _, d := range c.File.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil && d.Name.Name == "init" {
				name := fmt.Sprintf("%sinit%d", reservedPrefix, len(inits))
				inits = append(inits, name)
				edits = append(edits, edit{start: offset(c, d.Name.Pos()), end: offset(c, d.Name.End()), text: name})
			}
		case *ast.GenDecl:
			if d.Tok != token.VAR {
				continue
			}
			for _, spec := range d.Specs {
				vs := spec.(*ast.ValueSpec)
				for _, n := range vs.Names {
					if n.Name == "_" {
						continue
					}
					// No predeclared name (new) in the added code: the
					// policy may declare its own (see hiddenUniverse).
					var typ string
					if vs.Type != nil {
						typ = string(c.Source[offset(c, vs.Type.Pos()):offset(c, vs.Type.End())])
					} else if obj := c.Info.Defs[n]; obj != nil {
						typ = types.TypeString(obj.Type(), qualify)
						ok = ok && writable(c, typ)
					} else {
						ok = false
					}
					zero = append(zero, fmt.Sprintf("\t{\n\t\tvar %szero %s\n\t\t%s = %szero\n\t}\n", reservedPrefix, typ, n.Name, reservedPrefix))
				}
			}
		}
	}
	if len(zero) == 0 && len(c.Info.InitOrder) == 0 && len(inits) == 0 {
		return c, false, nil
	}
	if !ok || *unnamed {
		return c, false, nil
	}
	var b strings.Builder
	b.WriteString("\n\n// Added by policyevolve: puts the package-level state back where a fresh\n// process starts it, before every episode a worker plays.\n")
	fmt.Fprintf(&b, "func %s() {\n", resetName)
	for _, z := range zero {
		b.WriteString(z)
	}
	for _, in := range c.Info.InitOrder {
		lhs := make([]string, len(in.Lhs))
		for i, v := range in.Lhs {
			lhs[i] = v.Name()
		}
		rhs := string(c.Source[offset(c, in.Rhs.Pos()):offset(c, in.Rhs.End())])
		fmt.Fprintf(&b, "\t%s = %s\n", strings.Join(lhs, ", "), rhs)
	}
	for _, name := range inits {
		fmt.Fprintf(&b, "\t%s()\n", name)
	}
	b.WriteString("}\n")

	var src strings.Builder
	at := 0
	for _, e := range edits {
		src.Write(c.Source[at:e.start])
		src.WriteString(e.text)
		at = e.end
	}
	src.Write(c.Source[at:])
	src.WriteString(b.String())
	out, err := recheck([]byte(src.String()), c.ID)
	if err != nil {
		// The policy passed type checking: the added code is at fault.
		// Refuse the policy, saying so, rather than fail the system.
		return nil, false, &ValidationError{File: PolicyFileName, Issues: []Issue{{Line: 1, Col: 1,
			Msg: fmt.Sprintf("the sandbox could not make this policy's package-level state resettable (%v); "+
				"write its package-level declarations another way (and please report it)", err)}}}
	}
	return out, true, nil
}

// typeQualifier writes the packages of types as the policy's file names
// them (its import names); *unnamed becomes true when a type it wrote
// names a package the file does not import under a usable name.
func typeQualifier(c *Checked) (types.Qualifier, *bool) {
	names := map[string]string{}
	for _, im := range c.File.Imports {
		p, err := strconv.Unquote(im.Path.Value)
		if err != nil {
			continue
		}
		name := path_base(p)
		if im.Name != nil {
			name = im.Name.Name
		}
		names[p] = name
	}
	unnamed := false
	return func(p *types.Package) string {
		if p == c.Types {
			return ""
		}
		name, found := names[p.Path()]
		if !found || name == "_" || name == "." {
			unnamed = true
			return p.Name()
		}
		return name
	}, &unnamed
}

var (
	identRe    = regexp.MustCompile(`(^|[^.\w])([\pL_][\pL\pN_]*)`)
	selectorRe = regexp.MustCompile(`\.([\pL_][\pL\pN_]*)`)
)

// writable reports whether a type written by typeQualifier means the same
// in the policy's file: no predeclared name in it that the policy
// redeclares at package level, and no unexported name of another package.
func writable(c *Checked, typ string) bool {
	for _, m := range identRe.FindAllStringSubmatch(typ, -1) {
		if types.Universe.Lookup(m[2]) != nil && c.Types.Scope().Lookup(m[2]) != nil {
			return false
		}
	}
	for _, sel := range selectorRe.FindAllStringSubmatch(typ, -1) {
		if !token.IsExported(sel[1]) {
			return false
		}
	}
	return true
}

func offset(c *Checked, p token.Pos) int { return c.Fset.Position(p).Offset }

// recheck parses and type-checks a source the sandbox derived from a
// validated one (the policy rules are not applied again: what was added is
// the sandbox's own code). id stays the original policy's.
func recheck(src []byte, id string) (*Checked, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, PolicyFileName, src, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	pkg, info, err := typeCheck(fset, f, nil)
	if err != nil {
		return nil, err
	}
	return &Checked{Source: src, ID: id, Fset: fset, File: f, Types: pkg, Info: info}, nil
}
