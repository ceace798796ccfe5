// Package textdiff compares two texts line by line, for the places that
// show how one policy's source differs from another's: `pool diff` in a
// terminal and the diff page of the web view (report).
package textdiff

import "strings"

// DefaultContext is how many unchanged lines a diff shows around each
// change, in the terminal (pool diff) and on the web (the diff page)
// alike: unified diff's usual three.
const DefaultContext = 3

// Line is one line of a diff: Op is ' ' for a line of both texts, '-'
// for a line only in the first, '+' for one only in the second, and '@'
// for a run of Skipped unchanged lines left out (Text empty).
type Line struct {
	Op      byte
	Text    string
	Skipped int
}

// Lines is the diff of a and b with every unchanged line kept. It uses a
// longest common subsequence, quadratic in the number of lines, which
// policy sources (a few hundred lines) keep cheap. Where lines are
// replaced, the removed lines come before the added ones, as in a
// unified diff.
func Lines(a, b string) []Line {
	x, y := strings.Split(strings.TrimRight(a, "\n"), "\n"), strings.Split(strings.TrimRight(b, "\n"), "\n")
	n, m := len(x), len(y)
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if x[i] == y[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var ops []Line
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && x[i] == y[j]:
			ops = append(ops, Line{Op: ' ', Text: x[i]})
			i++
			j++
		case i < n && (j == m || lcs[i+1][j] >= lcs[i][j+1]):
			ops = append(ops, Line{Op: '-', Text: x[i]})
			i++
		default:
			ops = append(ops, Line{Op: '+', Text: y[j]})
			j++
		}
	}
	return ops
}

// Context keeps the changed lines of a diff and up to context unchanged
// lines around each; every run of unchanged lines it leaves out becomes
// one '@' line saying how many. changed reports whether the texts differ
// at all (when they do not, the result is empty).
func Context(lines []Line, context int) (out []Line, changed bool) {
	near := make([]bool, len(lines))
	for k, l := range lines {
		if l.Op != ' ' {
			changed = true
			for d := max(0, k-context); d <= min(len(lines)-1, k+context); d++ {
				near[d] = true
			}
		}
	}
	if !changed {
		return nil, false
	}
	skipped := 0
	for k, l := range lines {
		if !near[k] {
			skipped++
			continue
		}
		if skipped > 0 {
			out = append(out, Line{Op: '@', Skipped: skipped})
			skipped = 0
		}
		out = append(out, l)
	}
	if skipped > 0 {
		out = append(out, Line{Op: '@', Skipped: skipped})
	}
	return out, true
}
