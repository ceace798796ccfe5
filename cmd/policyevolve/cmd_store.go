package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"policyevolve/internal/plural"
	"policyevolve/store"
)

var storeCommands = map[string]command{
	"check":   {"verify the store's pages and the invariants of its records", cmdStoreCheck},
	"compact": {"rewrite the store without its free pages", cmdStoreCompact},
}

func cmdStore(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return runGroup(ctx, "store", "Maintenance of the store file.", storeCommands, args, stdout, stderr)
}

func cmdStoreCheck(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var so storeOptions
	fs := newFlagSet("store check", "[flags]", `
Verify the store: bbolt's own page consistency, then every record: it
decodes, sits under its own key, policies are content-addressed, and every
evaluation, match, pool member and rating refers to a stored policy.
Prints OK, or the problems (exit status 1). Reads only.`, stdout)
	so.register(fs)
	if err := parseFlags(fs, args, false); err != nil {
		return err
	}
	if _, err := os.Stat(so.path); err != nil {
		return fmt.Errorf("no store at %s (pass --store)", so.path)
	}
	// A damaged store does not open: check the file, not a Store.
	problems, err := store.CheckFile(so.path, store.Options{})
	if err != nil {
		return err
	}
	if len(problems) > 0 {
		for _, p := range problems {
			fmt.Fprintln(stdout, p)
		}
		n := len(problems)
		if strings.HasPrefix(problems[n-1], "…") {
			n--
		}
		return fmt.Errorf("%w: %s: %s (listed above), the first: %s", store.ErrDamaged, so.path, plural.N(n, "problem"), problems[0])
	}
	s, err := so.open(readStore)
	if err != nil {
		return err
	}
	var np, npools int
	var schema uint64
	err = s.View(func(tx *store.Tx) error {
		schema = tx.Schema()
		ps, err := tx.Policies()
		if err != nil {
			return err
		}
		pools, err := tx.Pools()
		np, npools = len(ps), len(pools)
		return err
	})
	if err != nil {
		return err
	}
	older := ""
	if schema < store.SchemaVersion {
		older = fmt.Sprintf(" (a command that writes migrates it to %d)", store.SchemaVersion)
	}
	fmt.Fprintf(stdout, "OK %s: schema %d%s, %s, %s\n", so.path, schema, older, plural.N(np, "policy"), plural.N(npools, "pool"))
	return nil
}

func cmdStoreCompact(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var so storeOptions
	fs := newFlagSet("store compact", "[flags]", `
Rewrite the store without its free pages (bbolt files never shrink by
themselves). The copy is checked before it replaces the original; other
processes wait for the store meanwhile.`, stdout)
	so.register(fs)
	if err := parseFlags(fs, args, false); err != nil {
		return err
	}
	s, err := so.open(writeStore)
	if err != nil {
		return err
	}
	before, after, err := s.Compact()
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "compacted %s: %d -> %d bytes\n", so.path, before, after)
	return nil
}
