package sandbox

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"regexp"
	"strconv"
	"strings"
)

// The interpreter's own failures. Inside the subset yaegi should neither
// fail to load a policy nor fail inside its own machinery while running
// it; when it does (a type inference failure, a panic of its control
// flow graph, "internal error", a reflect panic of its evaluator), the
// raw message says nothing a policy's author can act on. Such a failure
// becomes a refusal of the yaegi backend naming the construct at the
// line yaegi reports, under subset row X3: never a raw interpreter
// message, and, like every refusal, not a disagreement of the backends
// (the cross-check admits the policy on the native backend).

// yaegiPosRe finds the first position in a yaegi message: "12:5: …",
// or "_.go:12:5: …".
var yaegiPosRe = regexp.MustCompile(`(?:^|[\s:(])(\d+):(\d+): `)

// interpreterFailure is the refusal for a raw message of the
// interpreter about src (the policy as written; the rewrite keeps its
// lines). when says when it happened ("load", "run").
func interpreterFailure(src []byte, msg, when string) string {
	line := 0
	if m := yaegiPosRe.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
	}
	what := "the policy"
	if line > 0 {
		what = fmt.Sprintf("%s at line %d (%s)", constructAt(src, line), line, sourceLine(src, line))
	}
	row := rowByID(rowInterpFail)
	return fmt.Sprintf("%s: the interpreter failed to %s %s, an internal error of yaegi (%s) (subset row %s); write it another way, or run it on the native backend",
		refusalPrefix, when, what, shortInterp(msg), row.ID)
}

// shortInterp keeps the gist of an interpreter message: its last clause,
// without positions and Go internals, at most 80 characters.
func shortInterp(msg string) string {
	msg = yaegiPosRe.ReplaceAllString(msg, " ")
	if i := strings.LastIndex(msg, ": "); i >= 0 && len(msg)-i > 12 {
		msg = msg[i+2:]
	}
	msg = strings.TrimSpace(msg)
	if len(msg) > 80 {
		msg = msg[:77] + "..."
	}
	return msg
}

// constructAt names the outermost statement or declaration that starts
// on line of src, or the innermost node that spans it.
func constructAt(src []byte, line int) string {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, PolicyFileName, src, parser.SkipObjectResolution)
	if err != nil {
		return "the code"
	}
	var found ast.Node
	ast.Inspect(f, func(n ast.Node) bool {
		if n == nil || found != nil {
			return false
		}
		start, end := fset.Position(n.Pos()).Line, fset.Position(n.End()).Line
		if line < start || line > end {
			return false
		}
		switch n.(type) {
		case ast.Stmt, ast.Decl, ast.Spec:
			if start == line {
				if _, block := n.(*ast.BlockStmt); !block {
					found = n
					return false
				}
			}
		}
		return true
	})
	if found == nil {
		return "the code"
	}
	return nodeName(found)
}

// nodeName says what kind of construct n is, in words.
func nodeName(n ast.Node) string {
	switch n := n.(type) {
	case *ast.FuncDecl:
		if n.Recv != nil {
			return "the method " + n.Name.Name
		}
		return "the function " + n.Name.Name
	case *ast.GenDecl:
		return "the " + n.Tok.String() + " declaration"
	case *ast.TypeSpec:
		return "the type " + n.Name.Name
	case *ast.ValueSpec:
		return "the declaration of " + n.Names[0].Name
	case *ast.AssignStmt:
		return "the assignment"
	case *ast.ReturnStmt:
		return "the return statement"
	case *ast.IfStmt:
		return "the if statement"
	case *ast.ForStmt:
		return "the for loop"
	case *ast.RangeStmt:
		return "the range loop"
	case *ast.SwitchStmt:
		return "the switch"
	case *ast.TypeSwitchStmt:
		return "the type switch"
	case *ast.ExprStmt:
		return "the call"
	case *ast.DeferStmt:
		return "the defer statement"
	case *ast.DeclStmt:
		return "the declaration"
	case *ast.IncDecStmt:
		return "the " + n.Tok.String() + " statement"
	}
	return "the statement"
}

// interpreterInternal reports whether a panic message at run time comes
// from the interpreter's own machinery, not from the policy: a policy
// cannot reach reflect, and yaegi's own failures say where they are.
func interpreterInternal(msg string) bool {
	if _, ok := yaegiRuntimeError(msg); ok {
		return false
	}
	for _, s := range []string{"reflect: ", "reflect.", "internal error", "interp.", "CFG"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// yaegiRuntimeErrors are the messages yaegi v0.16.1 panics with where
// the policy itself made a run-time error Go panics on too: an index
// out of range, a slice out of bounds, a nil pointer or function. They
// come from reflect, which yaegi evaluates with; they are the policy's
// errors, not the interpreter's, and are reported as Go words them.
var yaegiRuntimeErrors = []struct{ raw, goMsg string }{
	{"reflect: slice index out of range", "runtime error: index out of range"},
	{"reflect: array index out of range", "runtime error: index out of range"},
	{"reflect: string index out of range", "runtime error: index out of range"},
	{"reflect.Value.Slice: slice index out of bounds", "runtime error: slice bounds out of range"},
	{"reflect.Value.Slice3: slice index out of bounds", "runtime error: slice bounds out of range"},
	{"reflect.Value.Slice: string slice index out of bounds", "runtime error: slice bounds out of range"},
	{"reflect.Value.Call: call of nil function", "runtime error: invalid memory address or nil pointer dereference (a nil function called)"},
	{"reflect: call of reflect.Value.Field on zero Value", "runtime error: invalid memory address or nil pointer dereference"},
}

// yaegiRuntimeError rewords a panic message of the yaegi backend that
// is the policy's own run-time error (see yaegiRuntimeErrors), naming
// what yaegi said.
func yaegiRuntimeError(msg string) (string, bool) {
	for _, e := range yaegiRuntimeErrors {
		if strings.Contains(msg, e.raw) {
			return e.goMsg + " (the yaegi backend reports it as " + strconv.Quote(e.raw) + ")", true
		}
	}
	return "", false
}
