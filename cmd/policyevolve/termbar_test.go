package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// TestTermBarRender: the line fits the terminal, whatever the
// description; the percentage and count are the iterations completed;
// the elapsed time is the clock's.
func TestTermBarRender(t *testing.T) {
	c := &stepClock{t: time.Unix(1000, 0)}
	long := "iteration 1 done (2 of 3) — champion by welfare 01234567 efficiency 1.500 (1.475 rechecked) Elo 1523 — 12 calls, 12 LLM, $0.0312" + strings.Repeat(" and more", 20)
	for _, tc := range []struct {
		name        string
		width, done int
		desc        string
		want        []string
	}{
		{"start", 120, 0, "iteration 0 (1 of 3) propose", []string{"iteration 0 (1 of 3) propose [", "  0% (0/3 iterations) 2m5s"}},
		{"one of three", 120, 1, "iteration 1 (2 of 3) playing", []string{" 33% (1/3 iterations) 2m5s"}},
		{"long description in 120 columns", 120, 2, long, []string{"iteration 1 done (2 of 3) — champion", "… [", " 66% (2/3 iterations) 2m5s"}},
		{"long description in 80 columns", 80, 3, long, []string{"…", "100% (3/3 iterations)"}},
		{"narrow", 30, 1, long, []string{"…"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newTermBar(&bytes.Buffer{}, func() int { return tc.width }, c, 3)
			b.done, b.desc = tc.done, tc.desc
			line := b.render(tc.width, c.Now().Add(125*time.Second))
			if n := utf8.RuneCountInString(line); n > tc.width-1 {
				t.Errorf("%d columns in a terminal of %d: %q", n, tc.width, line)
			}
			for _, w := range tc.want {
				if !strings.Contains(line, w) {
					t.Errorf("%q lacks %q", line, w)
				}
			}
			if tc.width >= 60 {
				if bar := strings.Count(line, "█") + strings.Count(line, "░"); bar < barMinWidth {
					t.Errorf("a bar of %d columns: %q", bar, line)
				}
				if filled, bar := strings.Count(line, "█"), strings.Count(line, "█")+strings.Count(line, "░"); filled != bar*tc.done/3 {
					t.Errorf("%d of %d filled for %d of 3: %q", filled, bar, tc.done, line)
				}
			}
		})
	}
}
