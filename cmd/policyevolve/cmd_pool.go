package main

import (
	"context"
	"io"
)

var poolCommands = map[string]command{
	"ls":      {"list the global pools and their members", cmdPoolLs},
	"show":    {"show a policy: source, lineage, evaluations, matches, rating history", cmdPoolShow},
	"diff":    {"compare the sources of two policies", cmdPoolDiff},
	"lineage": {"show a policy's ancestry as a tree", cmdPoolLineage},
	"export":  {"write a policy's source to stdout or a file", cmdPoolExport},
	"import":  {"validate, evaluate and rate a policy source and add it to a global pool", cmdPoolImport},
	"rm":      {"remove a policy from the pools it is in", cmdPoolRm},
}

func cmdPool(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return runGroup(ctx, "pool", `The pools of the store: global pools of elite policies per environment (game,
map, agents, steps), rated by Elo. Policy ids accept unique prefixes.`, poolCommands, args, stdout, stderr)
}
