package sandbox

import (
	"fmt"
	"unicode/utf8"
)

// isBidiControl reports whether r is a Unicode bidirectional embedding,
// override or isolate control (U+202A–U+202E, U+2066–U+2069). In a
// comment or a string they reorder how the text around them is displayed,
// so that the code a reviewer reads is not the code that runs ("Trojan
// Source", CVE-2021-42574). Go compiles them without a word; a policy
// may not contain them anywhere.
func isBidiControl(r rune) bool {
	return r >= 0x202A && r <= 0x202E || r >= 0x2066 && r <= 0x2069
}

// checkBidi refuses bidirectional control characters, each at its line
// and column (columns count bytes, as Go's do). src is valid UTF-8.
func (v *validation) checkBidi() {
	line, col := 1, 1
	for i := 0; i < len(v.src); {
		r, n := utf8.DecodeRune(v.src[i:])
		if isBidiControl(r) {
			v.addAt(line, col, fmt.Sprintf("bidirectional control character U+%04X is not allowed in a policy: "+
				"it makes the code display differently from how it runs", r))
		}
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col += n
		}
		i += n
	}
}
