package main

import (
	"strings"
)

// oneLine is s on one line, its runs of white space made one space, cut
// after n bytes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}

// outcomeWord names a match outcome from side A's view.
func outcomeWord(o float64) string {
	switch o {
	case 1:
		return "win"
	case 0:
		return "loss"
	}
	return "draw"
}
