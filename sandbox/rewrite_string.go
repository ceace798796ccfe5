package sandbox

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
)

// Ranging over a string. yaegi v0.16.1 converts the string to runes and
// computes each index from the runes before it, re-encoded: for i :=
// range "aéb" gives 0 1 2 (Go: 0 1 3), and invalid UTF-8 (a string cut
// inside a character) shifts every index after it. The rewrite decodes
// the string itself, as Go does:
//
//	for i, r := range s { … }
//
// becomes, on the same lines,
//
//	for s1, i1, w1, r1 := s, 0, 0, rune(0); i1 < len(s1); i1 += w1 {
//		r1, w1 = decode(s1, i1); i, r := i1, r1; { … } }
//
// which evaluates s once and gives each iteration its own variables.

// rangeOverString rewrites a range over a string; it reports whether it
// did.
func (rw *rewriter) rangeOverString(r *ast.RangeStmt, xt types.Type) bool {
	if xt == nil {
		return false
	}
	b, ok := xt.Underlying().(*types.Basic)
	if !ok || b.Info()&types.IsString == 0 {
		return false
	}
	rw.loops++
	n := rw.loops
	v := func(name string) string { return fmt.Sprintf("%s%s%d", reservedPrefix, name, n) }
	s, i, w, ru := v("s"), v("i"), v("w"), v("r")
	start := r.Range
	if r.Key != nil {
		start = r.Key.Pos()
	}
	rw.edits = append(rw.edits, edit{start: rw.off(start), end: rw.off(r.X.Pos()),
		text: fmt.Sprintf("%s, %s, %s, %s := string(", s, i, w, ru)})
	c, cw := v("c"), v("cw")
	header := fmt.Sprintf("), 0, 0, rune(0); %s < len(%s); %s += %s { %s, %s := %s(%s, %s); %s, %s = %s, %s;",
		i, s, i, w, c, cw, rw.decodeHelper(), s, i, ru, w, c, cw)
	key, val := r.Key, r.Value
	if key != nil && isBlank(key) {
		key = nil
	}
	if val != nil && isBlank(val) {
		val = nil
	}
	op := " := "
	if r.Tok == token.ASSIGN {
		op = " = "
	}
	switch {
	case key != nil && val != nil:
		header += fmt.Sprintf(" %s, %s%s%s, %s;", rw.text(key), rw.text(val), op, i, ru)
	case key != nil:
		header += fmt.Sprintf(" %s%s%s;", rw.text(key), op, i)
	case val != nil:
		header += fmt.Sprintf(" %s%s%s;", rw.text(val), op, ru)
	}
	header += " {"
	rw.edits = append(rw.edits,
		edit{start: rw.off(r.X.End()), end: rw.off(r.Body.Lbrace) + 1, text: header},
		edit{start: rw.off(r.Body.Rbrace), end: rw.off(r.Body.Rbrace), text: "}"})
	return true
}

// decodeHelper is a function that decodes the UTF-8 character at s[i]
// like utf8.DecodeRuneInString(s[i:]): an invalid byte is (RuneError, 1).
// Helpers are not rewritten: it uses only constructs yaegi runs right.
func (rw *rewriter) decodeHelper() string {
	name := reservedPrefix + "decode"
	if _, ok := rw.helperIdx["decode"]; ok {
		return name
	}
	rw.helperIdx["decode"] = name
	rw.helpers = append(rw.helpers, "func "+name+decodeBody)
	return name
}

const decodeBody = `(s string, i int) (rune, int) {
	c := s[i]
	if c < 0x80 {
		return rune(c), 1
	}
	n := 0
	lo := byte(0x80)
	hi := byte(0xBF)
	var r rune
	switch {
	case c >= 0xC2 && c <= 0xDF:
		n = 1
		r = rune(c & 0x1F)
	case c >= 0xE0 && c <= 0xEF:
		n = 2
		r = rune(c & 0x0F)
		if c == 0xE0 {
			lo = 0xA0
		}
		if c == 0xED {
			hi = 0x9F
		}
	case c >= 0xF0 && c <= 0xF4:
		n = 3
		r = rune(c & 0x07)
		if c == 0xF0 {
			lo = 0x90
		}
		if c == 0xF4 {
			hi = 0x8F
		}
	default:
		return 0xFFFD, 1
	}
	if i+n >= len(s) {
		return 0xFFFD, 1
	}
	for k := 1; k <= n; k++ {
		b := s[i+k]
		if k == 1 {
			if b < lo || b > hi {
				return 0xFFFD, 1
			}
		} else if b < 0x80 || b > 0xBF {
			return 0xFFFD, 1
		}
		r = r<<6 | rune(b&0x3F)
	}
	return r, n + 1
}`

// rangeAssign rewrites for k, v = range x (assigning to variables
// declared before): yaegi v0.16.1 assigns nothing. The loop ranges with
// variables of its own and assigns them at the top of each iteration:
//
//	for k1, v1 := range x { k, v = k1, v1; { … } }
func (rw *rewriter) rangeAssign(r *ast.RangeStmt) {
	if r.Key == nil {
		return
	}
	rw.loops++
	k := fmt.Sprintf("%sk%d", reservedPrefix, rw.loops)
	val := fmt.Sprintf("%sv%d", reservedPrefix, rw.loops)
	vars, assign := k, rw.text(r.Key)+" = "+k+";"
	if r.Value != nil {
		vars = k + ", " + val
		assign = rw.text(r.Key) + ", " + rw.text(r.Value) + " = " + k + ", " + val + ";"
	}
	if r.Value != nil && isBlank(r.Key) {
		vars, assign = "_, "+val, rw.text(r.Value)+" = "+val+";"
	}
	rw.edits = append(rw.edits,
		edit{start: rw.off(r.Key.Pos()), end: rw.off(r.TokPos) + 1, text: vars + " :="},
		edit{start: rw.off(r.Body.Lbrace) + 1, end: rw.off(r.Body.Lbrace) + 1, text: " " + assign + " {"},
		edit{start: rw.off(r.Body.Rbrace), end: rw.off(r.Body.Rbrace), text: "}"})
}
