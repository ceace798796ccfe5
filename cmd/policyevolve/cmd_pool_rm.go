package main

import (
	"context"
	"fmt"
	"io"

	"policyevolve/store"
)

func cmdPoolRm(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var so storeOptions
	fs := newFlagSet("pool rm", "ID [flags]", `
Remove a policy from every pool it is in, with its ratings there. The
policy itself, its evaluations and matches stay in the store (its lineage
and history remain).`, stdout)
	so.register(fs)
	pos, err := policyArgs(fs, args, 1)
	if err != nil {
		return err
	}
	s, err := so.open(writeStore)
	if err != nil {
		return err
	}
	var id string
	var pools []string
	err = s.Update(func(tx *store.Tx) error {
		if id, err = tx.ResolvePolicy(pos[0]); err != nil {
			return err
		}
		if pools, err = tx.PoolsOf(id); err != nil {
			return err
		}
		if len(pools) == 0 {
			return fmt.Errorf("policy %.12s is in no pool", id)
		}
		for _, p := range pools {
			if err := tx.RemoveMember(p, id); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, p := range pools {
		fmt.Fprintf(stdout, "removed %.12s from %s\n", id, p)
	}
	return nil
}
