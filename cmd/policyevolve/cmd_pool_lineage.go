package main

import (
	"context"
	"fmt"
	"io"

	"policyevolve/store"
)

// withoutParents is o without its parents: the tree shows them.
func withoutParents(o store.Origin) store.Origin {
	o.Parents = nil
	return o
}

func cmdPoolLineage(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var so storeOptions
	fs := newFlagSet("pool lineage", "ID [flags]", "Show a policy's ancestry: its parents, their parents, and so on, as a tree.", stdout)
	so.register(fs)
	pos, err := policyArgs(fs, args, 1)
	if err != nil {
		return err
	}
	s, err := so.open(readStore)
	if err != nil {
		return err
	}
	return s.View(func(tx *store.Tx) error {
		id, err := tx.ResolvePolicy(pos[0])
		if err != nil {
			return err
		}
		seen := map[string]bool{}
		var walk func(id, prefix string, last, root bool) error
		walk = func(id, prefix string, last, root bool) error {
			branch, next := "", ""
			if !root {
				branch, next = "├─ ", "│  "
				if last {
					branch, next = "└─ ", "   "
				}
			}
			p, err := tx.Policy(id)
			if err != nil {
				fmt.Fprintf(stdout, "%s%s%.12s (not in the store)\n", prefix, branch, id)
				return nil
			}
			label := fmt.Sprintf("%.12s", id)
			if p.Name != "" {
				label += " " + p.Name
			}
			fmt.Fprintf(stdout, "%s%s%s  [%s]\n", prefix, branch, label, withoutParents(p.Origin).Describe(12))
			if seen[id] {
				return nil
			}
			seen[id] = true
			for k, parent := range p.Origin.Parents {
				if err := walk(parent, prefix+next, k == len(p.Origin.Parents)-1, false); err != nil {
					return err
				}
			}
			return nil
		}
		return walk(id, "", true, true)
	})
}
