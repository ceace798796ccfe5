package main

import (
	"context"
	"fmt"
	"io"

	"policyevolve/internal/plural"
	"policyevolve/internal/textdiff"
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
	if !lineDiff(stdout, a.Source, b.Source, textdiff.DefaultContext) {
		fmt.Fprintln(stdout, "(identical)")
	}
	return nil
}

// lineDiff writes a unified-style diff of two texts: lines only in a
// marked "-", only in b "+", common ones " ", with runs of more than
// 2*context unchanged lines elided.
func lineDiff(w io.Writer, a, b string, context int) (changed bool) {
	lines, changed := textdiff.Context(textdiff.Lines(a, b), context)
	for _, l := range lines {
		if l.Op == '@' {
			fmt.Fprintf(w, "@@ %s @@\n", plural.N(l.Skipped, "unchanged line"))
			continue
		}
		fmt.Fprintf(w, "%c %s\n", l.Op, l.Text)
	}
	return changed
}
