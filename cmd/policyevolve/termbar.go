package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/term"
)

// termBar is the progress bar of a job on a terminal: one line, redrawn
// in place, that reads
//
//	iteration 1 (2 of 3) playing — champion … — 9 calls   33% [███░░░░░] 1/3 iterations 2m05s
//
// The percentage and the count are the iterations completed (never the
// one in hand); the elapsed time is the job's, so that a redraw every
// second (redraw) shows it moving while nothing else happens. The line
// always fits the terminal: the description is cut to the width left
// beside the bar and the figures, never the bar cut to nothing.
//
// A termBar is not safe for concurrent use; evolveProgress calls it under
// its mutex.
type termBar struct {
	w      io.Writer
	width  func() int // the terminal's columns at the moment
	clock  clock
	begun  time.Time
	total  int
	done   int
	desc   string
	drawn  bool // a line of the bar is on screen (to clear before a line)
	closed bool
}

func newTermBar(w io.Writer, width func() int, c clock, total int) *termBar {
	return &termBar{w: w, width: width, clock: c, begun: c.Now(), total: max(total, 1)}
}

// set records how many iterations are complete, and redraws.
func (b *termBar) set(done int) {
	b.done = min(max(done, 0), b.total)
	b.draw()
}

// describe sets the description, and redraws.
func (b *termBar) describe(s string) {
	b.desc = s
	b.draw()
}

// draw writes the bar over the current line.
func (b *termBar) draw() {
	if b.closed {
		return
	}
	fmt.Fprint(b.w, "\r"+b.render(b.width(), b.clock.Now())+"\x1b[K")
	b.drawn = true
}

// clear blanks the bar's line, so that a line can be printed in its
// place (the next draw puts the bar back below it).
func (b *termBar) clear() {
	if b.drawn {
		fmt.Fprint(b.w, "\r\x1b[K")
		b.drawn = false
	}
}

// finish draws the bar as it stands — a run stopped after 1 of 3
// iterations stays at 33% — and ends its line. Later calls do nothing.
func (b *termBar) finish() {
	if b.closed {
		return
	}
	b.draw()
	fmt.Fprintln(b.w)
	b.closed, b.drawn = true, false
}

// Bounds of the bar's drawn part, in columns.
const (
	barMinWidth = 10
	barMaxWidth = 30
)

// render is the bar's line for a terminal of width columns at now: at
// most width-1 columns (a line as wide as the terminal wraps in some).
func (b *termBar) render(width int, now time.Time) string {
	width = max(width, 20) - 1
	pct := 100 * b.done / b.total
	figures := fmt.Sprintf(" %3d%% (%d/%d iterations) %s", pct, b.done, b.total, shortDuration(now.Sub(b.begun).Round(time.Second)))
	// The bar takes what the description leaves, within its bounds; the
	// description what the bar's least leaves.
	room := width - len(figures) - 3 // " [" and "]" beside the bar
	if room < barMinWidth {
		// Too narrow for a bar: the description and figures, cut.
		return cut(strings.TrimSpace(b.desc+figures), width)
	}
	barW := min(max(room-utf8.RuneCountInString(b.desc), barMinWidth), barMaxWidth)
	filled := barW * b.done / b.total
	bar := "[" + strings.Repeat("█", filled) + strings.Repeat("░", barW-filled) + "]"
	line := bar
	if desc := cut(b.desc, room-barW); desc != "" {
		line = desc + " " + bar
	}
	return line + figures
}

// cut shortens s to at most n columns (runes), ending it with "…" when it
// was longer.
func cut(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// terminalWidth is the number of columns of the terminal w writes to, or
// 80 when it cannot be told.
func terminalWidth(w io.Writer) int {
	if f, ok := w.(*os.File); ok {
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols > 0 {
			return cols
		}
	}
	return 80
}
