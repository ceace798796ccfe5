package main

import (
	"fmt"
	"io"
	"strings"
)

// lineDiff writes a unified-style diff of two texts: lines only in a
// marked "-", only in b "+", common ones " ", with runs of more than
// 2*context unchanged lines elided. It uses a longest common subsequence,
// which policy sources (a few hundred lines) keep cheap.
func lineDiff(w io.Writer, a, b string, context int) (changed bool) {
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
	type line struct {
		op   byte
		text string
	}
	var ops []line
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && x[i] == y[j]:
			ops = append(ops, line{' ', x[i]})
			i++
			j++
		case j < m && (i == n || lcs[i][j+1] >= lcs[i+1][j]):
			ops = append(ops, line{'+', y[j]})
			j++
		default:
			ops = append(ops, line{'-', x[i]})
			i++
		}
	}
	near := make([]bool, len(ops))
	for k, o := range ops {
		if o.op != ' ' {
			changed = true
			for d := max(0, k-context); d <= min(len(ops)-1, k+context); d++ {
				near[d] = true
			}
		}
	}
	skipped := 0
	for k, o := range ops {
		if !near[k] {
			skipped++
			continue
		}
		if skipped > 0 {
			fmt.Fprintf(w, "@@ %d unchanged lines @@\n", skipped)
			skipped = 0
		}
		fmt.Fprintf(w, "%c %s\n", o.op, o.text)
	}
	if skipped > 0 && changed {
		fmt.Fprintf(w, "@@ %d unchanged lines @@\n", skipped)
	}
	return changed
}
