package main

import (
	"context"
	"fmt"
	"io"

	"policyevolve/internal/outfile"
	"policyevolve/store"
)

func cmdPoolExport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var so storeOptions
	var out string
	fs := newFlagSet("pool export", "ID [-o FILE] [flags]", "Write a policy's source to stdout, or to FILE.", stdout)
	so.register(fs)
	fs.StringVar(&out, "o", "", "write to this file instead of stdout")
	pos, err := policyArgs(fs, args, 1)
	if err != nil {
		return err
	}
	s, err := so.open(readStore)
	if err != nil {
		return err
	}
	var p *store.Policy
	err = s.View(func(tx *store.Tx) (err error) {
		p, err = findPolicy(tx, pos[0])
		return err
	})
	if err != nil {
		return err
	}
	if out == "" {
		_, err := io.WriteString(stdout, p.Source)
		return err
	}
	if err := outfile.WriteFile(out, []byte(p.Source)); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "wrote %.12s to %s\n", p.ID, out)
	return nil
}
