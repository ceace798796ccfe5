package tune

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"math"
	"strconv"
	"strings"
)

// Literal is a numeric literal of a source that the tuner may change.
type Literal struct {
	Offset, End int // bytes of the source it spans (a leading minus included)
	Line, Col   int
	Text        string  // as written
	Value       float64 // its value (negative with a leading minus)
	Float       bool    // a floating-point literal; else an integer
	Lo, Hi      float64 // the range the tuner searches
	// Where says what the literal is: "const cleanAbove", "comparison",
	// "field Overlap"…
	Where string
}

func (l Literal) String() string {
	return fmt.Sprintf("line %d: %s (%s, searched in [%s, %s])", l.Line, l.Text, l.Where, l.format(l.Lo), l.format(l.Hi))
}

// Find returns the tunable numeric literals of a Go source, in source
// order: the values of constants and variables, the operands of ordering
// comparisons (<, <=, >, >=) outside for-loop conditions, the values of
// struct fields in composite literals, and floating-point operands of
// arithmetic. Literals elsewhere (indices, loop bounds, returned actions,
// switch cases, array lengths, shifts, integer arithmetic) are structure,
// not constants to tune; so are constants used as array lengths. 0 and 1
// are left alone where they are compared or counted with (they are
// usually structure too) unless they are the value of a named constant
// or a field.
func Find(src []byte) ([]Literal, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "policy.go", src, 0)
	if err != nil {
		return nil, fmt.Errorf("parse: %w", err)
	}
	lengths := arrayLengthNames(f)
	var out []Literal
	add := func(e ast.Expr, where string, named bool) {
		start, neg := e.Pos(), false
		if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.SUB {
			e, neg = u.X, true
		}
		lit, ok := e.(*ast.BasicLit)
		if !ok || (lit.Kind != token.INT && lit.Kind != token.FLOAT) {
			return
		}
		v, err := strconv.ParseFloat(strings.ReplaceAll(lit.Value, "_", ""), 64)
		if err != nil || math.IsInf(v, 0) {
			if lit.Kind == token.INT { // hex, octal, binary
				n, err := strconv.ParseInt(lit.Value, 0, 64)
				if err != nil {
					return
				}
				v = float64(n)
			} else {
				return
			}
		}
		if !named && (v == 0 || v == 1) {
			return
		}
		if neg {
			v = -v
		}
		pos := fset.Position(start)
		l := Literal{Offset: pos.Offset, End: fset.Position(lit.End()).Offset, Line: pos.Line, Col: pos.Column,
			Value: v, Float: lit.Kind == token.FLOAT, Where: where}
		l.Text = string(src[l.Offset:l.End])
		l.Lo, l.Hi = searchRange(v, l.Float)
		out = append(out, l)
	}
	var loopConds []ast.Node
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ForStmt:
			if n.Cond != nil {
				loopConds = append(loopConds, n.Cond)
			}
		case *ast.GenDecl:
			if n.Tok != token.CONST && n.Tok != token.VAR {
				return true
			}
			for _, spec := range n.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, val := range vs.Values {
					if i < len(vs.Names) && !lengths[vs.Names[i].Name] {
						add(val, n.Tok.String()+" "+vs.Names[i].Name, true)
					}
				}
			}
		case *ast.KeyValueExpr:
			if k, ok := n.Key.(*ast.Ident); ok {
				add(n.Value, "field "+k.Name, true)
			}
		case *ast.BinaryExpr:
			if inside(n, loopConds) {
				return true
			}
			switch n.Op {
			case token.LSS, token.LEQ, token.GTR, token.GEQ:
				add(n.X, "comparison", false)
				add(n.Y, "comparison", false)
			case token.ADD, token.SUB, token.MUL, token.QUO:
				for _, e := range []ast.Expr{n.X, n.Y} {
					if isFloatLit(e) {
						add(e, "arithmetic", false)
					}
				}
			}
		}
		return true
	})
	return dedupe(out), nil
}

// inside reports whether n lies within one of the nodes.
func inside(n ast.Node, nodes []ast.Node) bool {
	for _, m := range nodes {
		if n.Pos() >= m.Pos() && n.End() <= m.End() {
			return true
		}
	}
	return false
}

func isFloatLit(e ast.Expr) bool {
	if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.SUB {
		e = u.X
	}
	lit, ok := e.(*ast.BasicLit)
	return ok && lit.Kind == token.FLOAT
}

// arrayLengthNames are the names used as array lengths or in constant
// expressions that size arrays: changing them changes types.
func arrayLengthNames(f *ast.File) map[string]bool {
	out := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if at, ok := n.(*ast.ArrayType); ok && at.Len != nil {
			ast.Inspect(at.Len, func(m ast.Node) bool {
				if id, ok := m.(*ast.Ident); ok {
					out[id.Name] = true
				}
				return true
			})
		}
		return true
	})
	return out
}

// dedupe keeps the first of literals found twice (a field value inside a
// comparison, say), in source order.
func dedupe(ls []Literal) []Literal {
	seen := map[int]bool{}
	var out []Literal
	for _, l := range ls {
		if !seen[l.Offset] {
			seen[l.Offset] = true
			out = append(out, l)
		}
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].Offset < out[j-1].Offset; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// searchRange is where a constant is searched: a share or probability in
// [0, 1] stays there; other values range from 0 to twice their size (at
// least 4 past it for integers), keeping their sign.
func searchRange(v float64, isFloat bool) (lo, hi float64) {
	a := math.Abs(v)
	var top float64
	switch {
	case isFloat && a <= 1:
		top = 1
	case isFloat:
		top = 2 * a
	default:
		top = math.Max(2*a, a+4)
	}
	if v < 0 {
		return -top, 0
	}
	return 0, top
}

// format writes a value as the literal's kind: integers plainly, floats
// with at most three decimals and always a point, so that the constant
// keeps its kind.
func (l Literal) format(v float64) string {
	if !l.Float {
		return strconv.FormatInt(int64(math.Round(v)), 10)
	}
	s := strconv.FormatFloat(math.Round(v*1000)/1000, 'f', -1, 64)
	if !strings.ContainsAny(s, ".eE") {
		s += ".0"
	}
	return s
}

// value rounds v to what format writes.
func (l Literal) value(v float64) float64 {
	if !l.Float {
		return math.Round(v)
	}
	return math.Round(v*1000) / 1000
}

// Apply returns src with the literals set to values (one per literal).
// A literal whose value is unchanged keeps its text; a negative value
// replacing a literal written without a minus is parenthesised.
func Apply(src []byte, lits []Literal, values []float64) []byte {
	var b strings.Builder
	last := 0
	for i, l := range lits {
		b.Write(src[last:l.Offset])
		s := l.Text
		if values[i] != l.Value {
			s = l.format(values[i])
		}
		if values[i] != l.Value && l.value(values[i]) < 0 && !strings.HasPrefix(l.Text, "-") {
			s = "(" + s + ")"
		}
		b.WriteString(s)
		last = l.End
	}
	b.Write(src[last:])
	return []byte(b.String())
}
