package main

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// termSafe makes text that a policy or a model wrote — a panic's message,
// a refusal quoting the source, a comment, a policy's name — safe to
// print on a terminal: every control character but newline and tab (the
// C0 and C1 controls, DEL, among them ESC, which starts the escape
// sequences that move the cursor, retitle the window or write the
// clipboard), every character that reorders the text around it (the
// bidirectional overrides and isolates) and every byte that is not
// UTF-8 is shown as an escape (\x1b, \u202e), never sent raw. Text
// without any is returned as it is.
func termSafe(s string) string {
	i := strings.IndexFunc(s, unsafeRune)
	if i < 0 && utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for len(s) > 0 {
		r, n := utf8.DecodeRuneInString(s)
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[0])
		case unsafeRune(r) && r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		case unsafeRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[:n])
		}
		s = s[n:]
	}
	return b.String()
}

// unsafeRune reports whether r must not reach a terminal raw.
func unsafeRune(r rune) bool {
	switch {
	case r == '\n', r == '\t':
		return false
	case r < 0x20, r == 0x7f, 0x80 <= r && r < 0xa0:
		return true
	case 0x202a <= r && r <= 0x202e, 0x2066 <= r && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
		return true
	}
	return false
}

// termSafeWriter passes what is written through termSafe: the writer of
// a command whose output shows what policies wrote (runs show, pool
// show, play's table). Each Write is taken whole (fmt and tabwriter write
// whole strings), so a character is never split between two.
type termSafeWriter struct{ w io.Writer }

func (t termSafeWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(t.w, termSafe(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}
