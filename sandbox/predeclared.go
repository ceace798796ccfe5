package sandbox

import (
	"fmt"
	"go/scanner"
	"go/token"
	"go/types"
	"slices"
)

// The code the sandbox adds to a policy (the rewrites for each backend,
// their helpers) names Go's predeclared identifiers: len, new, string,
// nil, panic… Go lets a program declare its own new, or a local len, and
// then the added code would mean something else, or fail to compile with
// a message about a line the author never wrote. So every piece of added
// code is checked where it goes: a predeclared name it uses must be the
// predeclared one there; if the policy hides it, the policy is refused
// with a message at the policy's own declaration. The generated reset
// (withReset) uses no predeclared name at all, so a policy may declare
// its own new, len or max as long as no rewrite of it needs the builtin.

// hiddenUniverse reports, as issues at the policy's declarations, the
// predeclared identifiers that code would use but that the policy hides
// at pos (token.NoPos: at package level). It needs type information; what
// uses says what the code is for, in the message.
func hiddenUniverse(c *Checked, pos token.Pos, code, what string) []Issue {
	if c.Types == nil {
		return nil
	}
	scope := c.Types.Scope()
	if pos.IsValid() {
		if inner := scope.Innermost(pos); inner != nil {
			scope = inner
		}
	}
	var issues []Issue
	var seen []string
	for _, name := range universeNames(code) {
		if slices.Contains(seen, name) {
			continue
		}
		seen = append(seen, name)
		_, obj := scope.LookupParent(name, pos)
		if obj == nil || obj.Parent() == types.Universe {
			continue
		}
		p := c.Fset.Position(obj.Pos())
		issues = append(issues, Issue{Line: p.Line, Col: p.Column, Snippet: sourceLine(c.Source, p.Line),
			Msg: fmt.Sprintf("this %s named %s hides Go's predeclared %s, which the code the sandbox adds %s needs; rename it",
				objectKind(obj), name, name, what)})
	}
	return issues
}

// universeNames returns the identifiers of code that name predeclared
// objects, in order, selectors excluded (x.len is a field).
func universeNames(code string) []string {
	var s scanner.Scanner
	fset := token.NewFileSet()
	src := []byte(code)
	s.Init(fset.AddFile("", -1, len(src)), src, nil, 0)
	var out []string
	prev := token.ILLEGAL
	for {
		_, tok, lit := s.Scan()
		if tok == token.EOF {
			return out
		}
		if tok == token.IDENT && prev != token.PERIOD && types.Universe.Lookup(lit) != nil {
			out = append(out, lit)
		}
		prev = tok
	}
}

// checkAdded checks every piece of code the rewriter adds (see
// hiddenUniverse): edits where they go, helpers at package level.
func (rw *rewriter) checkAdded() {
	if rw.c.Types == nil {
		return
	}
	what := "to run this policy on the yaegi backend"
	if rw.note != "" {
		what = rw.note
	}
	file := rw.c.Fset.File(rw.c.File.Pos())
	for _, e := range rw.edits {
		if e.text != "" {
			rw.hidden = append(rw.hidden, hiddenUniverse(rw.c, file.Pos(e.start), e.text, what)...)
		}
	}
	for _, h := range rw.helpers {
		rw.hidden = append(rw.hidden, hiddenUniverse(rw.c, token.NoPos, h, what)...)
	}
}
