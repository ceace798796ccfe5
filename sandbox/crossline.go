package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"sort"
	"strconv"
	"strings"

	"policyevolve/envs"
)

// Where the backends part. When the cross-check finds the first step
// and agent whose actions differ, it plays the episode again on both
// backends with the policy instrumented: before every statement, the
// statement's line is noted while that step and agent play, and the
// policy then stops with what it noted (the first and the last lines,
// and how many). The refusal names the line at which the two traces
// part, when it falls in their first lines, and the line each backend
// returned its action from. The instrumented programs serve this
// diagnosis only; the verdict is the uninstrumented comparison's.

// traceKeep is how many lines of the start and of the end of a trace
// the instrumented policy reports (within the worker's 4 KiB message).
const traceKeep = 250

const (
	tracePrefix = "policyevolve-trace "
	traceInner  = "policyevolveTracedPolicy"
	traceOn     = "policyevolveTraceOn"
	traceLines  = "policyevolveTraceLines"
	traceCount  = "policyevolveTraceCount"
)

// instrumentLines returns src with a note of its line before every
// statement, noted only while agent plays step, and a Policy that stops
// with the notes there (see lineTrace). Line numbers stay as in src.
func instrumentLines(src []byte, step, agent int) ([]byte, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, PolicyFileName, src, 0)
	if err != nil {
		return nil, err
	}
	var policy *ast.FuncDecl
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Name.Name == "Policy" {
			policy = fd
		}
	}
	if policy == nil || policy.Type.Params == nil {
		return nil, errors.New("no func Policy")
	}
	ssdName := "ssd"
	for _, im := range f.Imports {
		if p, _ := strconv.Unquote(im.Path.Value); p == "ssd" && im.Name != nil {
			ssdName = im.Name.Name
		}
	}
	type ins struct {
		off  int
		text string
		end  int // replaced up to, for the renames
	}
	var edits []ins
	mark := func(s ast.Stmt) {
		line := fset.Position(s.Pos()).Line
		edits = append(edits, ins{off: fset.Position(s.Pos()).Offset,
			text: fmt.Sprintf("if %s { %s(%d) }; ", traceOn, traceLines, line)})
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BlockStmt:
			for _, s := range n.List {
				mark(s)
			}
		case *ast.CaseClause:
			for _, s := range n.Body {
				mark(s)
			}
		case *ast.Ident:
			if n.Name == "Policy" && n.Obj != nil && n.Obj.Decl == policy {
				o := fset.Position(n.Pos()).Offset
				edits = append(edits, ins{off: o, end: o + len("Policy"), text: traceInner})
			}
		}
		return true
	})
	sort.SliceStable(edits, func(i, j int) bool { return edits[i].off < edits[j].off })
	var b bytes.Buffer
	at := 0
	for _, e := range edits {
		if e.off < at {
			continue
		}
		b.Write(src[at:e.off])
		b.WriteString(e.text)
		at = max(e.off, e.end)
	}
	b.Write(src[at:])
	fmt.Fprintf(&b, `

// Added by policyevolve to find where the backends part.

var %[1]s bool
var %[3]s int
var %[2]sHead, %[2]sTail []int

func %[2]s(line int) {
	%[3]s++
	if len(%[2]sHead) < %[4]d {
		%[2]sHead = append(%[2]sHead, line)
	}
	if len(%[2]sTail) == %[4]d {
		%[2]sTail = %[2]sTail[1:]
	}
	%[2]sTail = append(%[2]sTail, line)
}

func Policy(v *%[5]s.View, agent int) int {
	%[1]s = v.Step() == %[6]d && agent == %[7]d
	a := %[8]s(v, agent)
	if %[1]s {
		s := "%[9]s" + %[2]sItoa(%[3]s) + " head"
		for _, l := range %[2]sHead {
			s += " " + %[2]sItoa(l)
		}
		s += " tail"
		for _, l := range %[2]sTail {
			s += " " + %[2]sItoa(l)
		}
		panic(s)
	}
	return a
}

func %[2]sItoa(n int) string {
	s := ""
	for {
		s = string(rune('0'+n%%10)) + s
		n /= 10
		if n == 0 {
			return s
		}
	}
}
`, traceOn, traceLines, traceCount, traceKeep, ssdName, step, agent, traceInner, tracePrefix)
	return b.Bytes(), nil
}

// lineTrace is what an instrumented policy reported.
type lineTrace struct {
	count      int
	head, tail []int
}

// parseTrace finds a trace in a failure's message.
func parseTrace(msg string) (*lineTrace, bool) {
	i := strings.Index(msg, tracePrefix)
	if i < 0 {
		return nil, false
	}
	fields := strings.Fields(msg[i+len(tracePrefix):])
	t := &lineTrace{}
	into := (*[]int)(nil)
	for k, f := range fields {
		switch f {
		case "head":
			into = &t.head
			continue
		case "tail":
			into = &t.tail
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil {
			break
		}
		if k == 0 {
			t.count = n
		} else if into != nil {
			*into = append(*into, n)
		}
	}
	return t, len(t.tail) > 0
}

// traceOf plays cfg from seed on sb with src instrumented for step and
// agent, and returns the trace, or nil when it did not get there.
func traceOf(ctx context.Context, sb *Sandbox, src []byte, cfg envs.Config, seed uint64, step, agent int) *lineTrace {
	inst, err := instrumentLines(src, step, agent)
	if err != nil {
		return nil
	}
	p, err := sb.Compile(ctx, inst)
	if err != nil {
		return nil
	}
	defer p.Close()
	_, _, err = p.selfPlay(ctx, cfg, envs.Options{Seed: seed}, 4*sb.cfg.AdmissionCPU)
	var pe *PolicyError
	if !errors.As(err, &pe) {
		return nil
	}
	t, ok := parseTrace(pe.Detail)
	if !ok {
		return nil
	}
	return t
}

// partingNote says where two backends' traces of one step part, and the
// line each returned its action from; "" when it could not tell.
func partingNote(a, b *lineTrace, nameA, nameB Backend) string {
	if a == nil || b == nil {
		return ""
	}
	var parts []string
	for k := range min(len(a.head), len(b.head)) {
		if a.head[k] != b.head[k] {
			prev := "the step's start"
			if k > 0 {
				prev = fmt.Sprintf("line %d", a.head[k-1])
			}
			parts = append(parts, fmt.Sprintf("the two part after %s (statement %d of the step): the %s backend goes on to line %d, the %s backend to line %d",
				prev, k+1, nameA, a.head[k], nameB, b.head[k]))
			break
		}
	}
	ra, rb := a.tail[len(a.tail)-1], b.tail[len(b.tail)-1]
	if ra == rb {
		parts = append(parts, fmt.Sprintf("both returned from line %d (after %d and %d statements)", ra, a.count, b.count))
	} else {
		parts = append(parts, fmt.Sprintf("the %s backend returned from line %d, the %s backend from line %d", nameA, ra, nameB, rb))
	}
	return strings.Join(parts, "; ")
}
