package planner

import (
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"policyevolve/sandbox"
)

// ErrNoPolicy: an answer held no Go code defining the policy function.
var ErrNoPolicy = errors.New("no policy in the answer")

var policyFunc = regexp.MustCompile(`func\s+Policy\s*\(`)

// Extract finds the policy in a model's answer: the fenced code block
// that defines func Policy( — with several blocks, that one (the last, if
// several do) — tolerating prose around it, CRLF line ends, a missing
// closing fence (a truncated answer) and, failing any fence, unfenced
// code. It adds what the model commonly leaves out: the package clause
// (renaming another package to policy) and imports of the allowed
// packages the code uses. Additions go on the block's first line, so
// that line numbers in validation errors match the code the model wrote.
// notes is the prose before the code: the model's explanation.
//
// An answer without such code is ErrNoPolicy, with words the fix prompt
// feeds back.
func Extract(answer string) (src []byte, notes string, err error) {
	text := strings.ReplaceAll(answer, "\r\n", "\n")
	lines := strings.Split(text, "\n")
	code, start, _ := pickBlock(lines)
	if code == nil {
		return nil, strings.TrimSpace(text), fmt.Errorf("%w: found no ```go code block defining %s", ErrNoPolicy, sandbox.Signature)
	}
	notes = strings.TrimSpace(strings.Join(lines[:start], "\n"))
	return complete(code), notes, nil
}

// fence reports whether line opens or closes a fenced block (``` or ~~~,
// indented by at most three spaces) and returns its info string.
func fence(line string) (info string, ok bool) {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 {
		return "", false
	}
	for _, f := range []string{"```", "~~~"} {
		if strings.HasPrefix(t, f) {
			return strings.TrimSpace(strings.TrimLeft(t, f[:1])), true
		}
	}
	return "", false
}

// fencedBlock is a fenced block of an answer: the index of its opening
// fence, its info string's first word (lowercased; "" for none) and its
// lines (to the end of the answer when the closing fence is missing).
type fencedBlock struct {
	start int
	lang  string
	body  []string
}

// fencedBlocks lists the fenced blocks of an answer's lines, in order.
func fencedBlocks(lines []string) []fencedBlock {
	var blocks []fencedBlock
	for i := 0; i < len(lines); i++ {
		info, ok := fence(lines[i])
		if !ok {
			continue
		}
		b := fencedBlock{start: i, lang: strings.ToLower(strings.Fields(info + " x")[0])}
		if b.lang == "x" {
			b.lang = ""
		}
		j := i + 1
		for ; j < len(lines); j++ {
			if info, ok := fence(lines[j]); ok && info == "" {
				break
			}
		}
		b.body = lines[i+1 : min(j, len(lines))]
		blocks = append(blocks, b)
		i = j
	}
	return blocks
}

// pickBlock returns the lines of the block that defines Policy, the
// index of the line where it starts (its fence) and that of its first
// line of code.
func pickBlock(lines []string) (code []string, start, first int) {
	type block struct {
		fencedBlock
		goish bool
	}
	var blocks []block
	for _, b := range fencedBlocks(lines) {
		blocks = append(blocks, block{b, b.lang == "go" || b.lang == "golang" || b.lang == ""})
	}
	var best *block
	for k := range blocks {
		b := &blocks[k]
		if policyFunc.MatchString(strings.Join(b.body, "\n")) && (best == nil || b.goish || !best.goish) {
			best = b
		}
	}
	if best != nil {
		return best.body, best.start, best.start + 1
	}
	// No fence: code written straight into the prose. Take it from its
	// package clause (or the function) to the end.
	for i, l := range lines {
		if !policyFunc.MatchString(l) {
			continue
		}
		start := i
		for k := i; k >= 0; k-- {
			if strings.HasPrefix(strings.TrimSpace(lines[k]), "package ") {
				start = k
				break
			}
		}
		return lines[start:], start, start
	}
	return nil, 0, 0
}

// packageNames maps the name a policy uses for an allowed package to its
// import path.
var packageNames = func() map[string]string {
	m := map[string]string{}
	for _, p := range sandbox.AllowedImports {
		m[p[strings.LastIndex(p, "/")+1:]] = p
	}
	return m
}()

// packageClause matches a line that is a package clause (with perhaps a
// comment or more statements after it).
var packageClause = regexp.MustCompile(`^(\s*)package\s+([A-Za-z_]\w*)(?:\s*(?:;|//|/\*)|\s*$)`)

// packageName matches the clause itself.
var packageName = regexp.MustCompile(`^\s*package\s+[A-Za-z_]\w*`)

// complete adds a missing package clause and missing imports of allowed
// packages, on the first line or at the end of the package clause's line.
func complete(code []string) []byte {
	code = slices.Clone(code)
	pkgLine := -1
	for i, l := range code {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "//") {
			continue
		}
		if m := packageClause.FindStringSubmatch(l); m != nil && !token.IsKeyword(m[2]) {
			pkgLine = i
			if m[2] != "policy" {
				n := packageName.FindString(l)
				code[i] = m[1] + "package policy" + l[len(n):]
			}
		}
		break
	}
	missing := missingImports(code, pkgLine)
	var add string
	if len(missing) > 0 {
		quoted := make([]string, len(missing))
		for i, p := range missing {
			quoted[i] = strconv.Quote(p)
		}
		add = "import " + quoted[0]
		if len(quoted) > 1 {
			add = "import (" + strings.Join(quoted, "; ") + ")"
		}
	}
	switch {
	case pkgLine < 0 && len(code) > 0:
		prefix := "package policy; "
		if add != "" {
			prefix += add + "; "
		}
		code[0] = prefix + code[0]
	case pkgLine < 0:
		code = []string{"package policy"}
	case add != "":
		// After the clause; a comment that ends the line stays after.
		l := code[pkgLine]
		m := packageName.FindString(l) // "package policy" by now
		code[pkgLine] = m + "; " + add + l[len(m):]
	}
	return []byte(strings.Join(code, "\n") + "\n")
}

// missingImports lists the allowed packages the code refers to without
// importing them, sorted.
func missingImports(code []string, pkgLine int) []string {
	src := strings.Join(code, "\n")
	if pkgLine < 0 {
		src = "package policy; " + src
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "policy.go", src, parser.AllErrors)
	if f == nil {
		return nil
	}
	imported := map[string]bool{}
	for _, im := range f.Imports {
		p, _ := strconv.Unquote(im.Path.Value)
		name := p[strings.LastIndex(p, "/")+1:]
		if im.Name != nil {
			name = im.Name.Name
		}
		imported[name] = true
	}
	need := map[string]bool{}
	for _, id := range f.Unresolved {
		if p, ok := packageNames[id.Name]; ok && !imported[id.Name] {
			need[p] = true
		}
	}
	if err != nil && len(f.Imports) == 0 && !imported["ssd"] && strings.Contains(src, "ssd.") {
		need["ssd"] = true // unparsable code: at least the API
	}
	var out []string
	for p := range need {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}
