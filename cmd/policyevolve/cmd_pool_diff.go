package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"policyevolve/store"
)

func cmdPoolDiff(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var so storeOptions
	fs := newFlagSet("pool diff", "A B [flags]", "Show how the source of policy B differs from policy A's, line by line.", stdout)
	so.register(fs)
	pos, err := policyArgs(fs, args, 2)
	if err != nil {
		return err
	}
	s, err := so.open(readStore)
	if err != nil {
		return err
	}
	var a, b *store.Policy
	err = s.View(func(tx *store.Tx) error {
		for k, pre := range pos {
			p, err := findPolicy(tx, pre)
			if err != nil {
				return err
			}
			if k == 0 {
				a = p
			} else {
				b = p
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "--- %.12s %s\n+++ %.12s %s\n", a.ID, a.Name, b.ID, b.Name)
	if !lineDiff(stdout, a.Source, b.Source, 3) {
		fmt.Fprintln(stdout, "(identical)")
	}
	return nil
}

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
