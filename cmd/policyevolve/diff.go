package main

import (
	"fmt"
	"io"

	"policyevolve/internal/textdiff"
)

// lineDiff writes a unified-style diff of two texts: lines only in a
// marked "-", only in b "+", common ones " ", with runs of more than
// 2*context unchanged lines elided.
func lineDiff(w io.Writer, a, b string, context int) (changed bool) {
	lines, changed := textdiff.Context(textdiff.Lines(a, b), context)
	for _, l := range lines {
		if l.Op == '@' {
			fmt.Fprintf(w, "@@ %d unchanged lines @@\n", l.Skipped)
			continue
		}
		fmt.Fprintf(w, "%c %s\n", l.Op, l.Text)
	}
	return changed
}
