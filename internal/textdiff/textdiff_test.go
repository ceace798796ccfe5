package textdiff

import (
	"fmt"
	"strings"
	"testing"
)

func render(ls []Line) string {
	var b strings.Builder
	for _, l := range ls {
		if l.Op == '@' {
			fmt.Fprintf(&b, "@%d\n", l.Skipped)
			continue
		}
		fmt.Fprintf(&b, "%c%s\n", l.Op, l.Text)
	}
	return b.String()
}

func TestLinesAndContext(t *testing.T) {
	a := "1\n2\n3\n4\n5\n6\n7\n8\n"
	b := "1\n2\n3\n4\nfive\n6\n7\n8\n9\n"
	for _, tc := range []struct {
		name    string
		a, b    string
		context int
		want    string
		changed bool
	}{
		{"same", a, a, 1, "", false},
		// A replaced line: the removed one first, as in a unified diff.
		{"one changed, one added", a, b, 1, "@3\n 4\n-5\n+five\n 6\n@1\n 8\n+9\n", true},
		{"no context", a, b, 0, "@4\n-5\n+five\n@3\n+9\n", true},
		{"from nothing", "", "x\n", 2, "-\n+x\n", true},
		{"a block replaced", "k\na\nb\nk2\n", "k\nc\nd\nk2\n", 1, " k\n-a\n-b\n+c\n+d\n k2\n", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, changed := Context(Lines(tc.a, tc.b), tc.context)
			if render(got) != tc.want || changed != tc.changed {
				t.Errorf("got (changed %v)\n%s\nwant (changed %v)\n%s", changed, render(got), tc.changed, tc.want)
			}
		})
	}
}

// TestLinesKeepsEveryLine: without elision, the unchanged and removed
// lines spell a, the unchanged and added ones b.
func TestLinesKeepsEveryLine(t *testing.T) {
	a, b := "p\nq\nr\ns\n", "q\nx\ns\nt\n"
	var ga, gb []string
	for _, l := range Lines(a, b) {
		if l.Op != '+' {
			ga = append(ga, l.Text)
		}
		if l.Op != '-' {
			gb = append(gb, l.Text)
		}
	}
	if strings.Join(ga, "\n")+"\n" != a || strings.Join(gb, "\n")+"\n" != b {
		t.Errorf("a %q, b %q", ga, gb)
	}
}
