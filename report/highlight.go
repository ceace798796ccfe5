package report

import (
	"go/scanner"
	"go/token"
	"html/template"
	"strings"
)

// Token classes of the highlighted source, as CSS classes.
const (
	classKeyword  = "k" // func, if, return…
	classString   = "s" // string and rune literals
	classNumber   = "n"
	classComment  = "c"
	classBuiltin  = "b" // predeclared identifiers: int, len, nil, true…
	classFunction = "f" // an identifier called or declared as a function
)

// predeclared are Go's predeclared identifiers.
var predeclared = map[string]bool{}

func init() {
	for _, s := range strings.Fields(`any bool byte comparable complex64 complex128 error float32 float64 int int8
		int16 int32 int64 rune string uint uint8 uint16 uint32 uint64 uintptr true false iota nil append cap
		clear close complex copy delete imag len make max min new panic print println real recover`) {
		predeclared[s] = true
	}
}

// Highlight returns Go source as HTML: the text escaped, each token of a
// class that reads better coloured (keywords, literals, comments,
// predeclared identifiers, function names) in a span of that class.
// Whatever go/scanner cannot read (not Go at all) stays plain text: the
// result, stripped of its spans and unescaped, is always src with its
// carriage returns removed.
func Highlight(src string) template.HTML {
	src = strings.ReplaceAll(src, "\r", "")
	type tok struct {
		off, end int
		tok      token.Token
		lit      string
	}
	var toks []tok
	fset := token.NewFileSet()
	file := fset.AddFile("policy.go", -1, len(src))
	var s scanner.Scanner
	s.Init(file, []byte(src), func(token.Position, string) {}, scanner.ScanComments)
	for {
		pos, t, lit := s.Scan()
		if t == token.EOF {
			break
		}
		if t == token.SEMICOLON && lit != ";" {
			continue // inserted at a newline or the end, not in the text
		}
		off := file.Offset(pos)
		text := lit
		if text == "" {
			text = t.String()
		}
		end := off + len(text)
		if end > len(src) || src[off:end] != text {
			continue // not the text itself (cannot happen once \r is gone); leave it plain
		}
		toks = append(toks, tok{off, end, t, lit})
	}
	var b strings.Builder
	at := 0
	for i, t := range toks {
		if t.off < at {
			continue
		}
		class := ""
		switch {
		case t.tok.IsKeyword():
			class = classKeyword
		case t.tok == token.STRING || t.tok == token.CHAR:
			class = classString
		case t.tok == token.INT || t.tok == token.FLOAT || t.tok == token.IMAG:
			class = classNumber
		case t.tok == token.COMMENT:
			class = classComment
		case t.tok == token.IDENT && i+1 < len(toks) && toks[i+1].tok == token.LPAREN && !predeclared[t.lit]:
			class = classFunction
		case t.tok == token.IDENT && predeclared[t.lit]:
			class = classBuiltin
		}
		if class == "" {
			continue
		}
		b.WriteString(template.HTMLEscapeString(src[at:t.off]))
		b.WriteString(`<span class="` + class + `">`)
		b.WriteString(template.HTMLEscapeString(src[t.off:t.end]))
		b.WriteString(`</span>`)
		at = t.end
	}
	b.WriteString(template.HTMLEscapeString(src[at:]))
	return template.HTML(b.String())
}
