package report

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"strings"
	"unicode/utf8"
)

//go:embed page.html
var pageText string

//go:embed site.html
var siteText string

// pageTemplate renders every page: page.html frames it and holds a run's
// and a comparison's report, site.html the pages only the live view
// links to (they can be written to a file all the same).
var pageTemplate = template.Must(template.Must(template.New("page").Parse(pageText)).Parse(siteText))

// Write renders the report as one self-contained HTML page (WritePage
// with the zero Frame).
func (r *Report) Write(w io.Writer) error { return WritePage(w, r, Frame{}) }

func (r *Report) page(f *Frame) *page { return newPage(r, f) }

func execute(w io.Writer, p *page) error {
	var buf bytes.Buffer
	if err := pageTemplate.Execute(&buf, p); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	_, err := io.WriteString(w, xmlSafe(buf.String()))
	return err
}

// xmlSafe replaces what XML 1.0 forbids (control characters other than
// tab, newline and carriage return; invalid UTF-8) with U+FFFD: stored
// text (an error message, a policy's name) may hold anything.
func xmlSafe(s string) string {
	ok := func(r rune) bool {
		return r == '\t' || r == '\n' || r == '\r' || (r >= 0x20 && r != utf8.RuneError && r != 0xFFFE && r != 0xFFFF)
	}
	clean := true
	for _, r := range s {
		if !ok(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	return strings.Map(func(r rune) rune {
		if ok(r) {
			return r
		}
		return utf8.RuneError
	}, s)
}
