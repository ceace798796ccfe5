package main

import (
	"context"
	"io"
)

// experimentDoc is experiment's help.
const experimentDoc = `
The paper's experiment in one command: compare --suite paper. For the game
(--game, --map), it runs every method of the paper's Table 1 under one
budget of planner calls (--budget), --runs times each — zero-shot (the
chain's iteration 0), the chain with sparse, dense, raw and critic
feedback, population search, GEPA, the tabular Q-learner and the
baselines bfs, exploit and coop — and, with --llm, a chain row per prompt
style (naive, cot, react). It prints the table — efficiency, equality,
sustainability and peace as mean (min–max) over runs, league rating,
exploitability, planner calls, LLM calls, tokens, cost and wall time —
followed by what the sandbox refused per method, each champion on every
map of its game (and each --transfer-map), and each champion's worst
invader. PREFIX.csv and PREFIX.json (-o) hold the table with the runs'
ids; report cmp-ID draws it as HTML. Everything is stored: the same
command again reuses (or resumes) every run and prints the same table.

All of compare's flags apply (--suite "" turns the suite off).`

func cmdExperiment(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return compareCommand(ctx, "experiment", experimentDoc, "paper", args, stdout, stderr)
}
