package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"policyevolve/envs"
	"policyevolve/envs/ssd"
	"policyevolve/evolve/arena"
	"policyevolve/evolve/episode"
)

// transferOptions are the flags of "transfer".
type transferOptions struct {
	target string
	envOptions
	seeds string
	extra stringList
	json  bool
	storeOptions
	sandboxOptions
}

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(s string) error { *l = append(*l, s); return nil }

func cmdTransfer(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var o transferOptions
	fs := newFlagSet("transfer", "ID|FILE.go|BUILTIN [flags]", `
How does a policy do on maps it was not evolved on? transfer plays it in
self-play on every built-in map of --game (Gathering: small, default,
large; Cleanup: small, default) and on each --transfer-map file, with the
same agents, steps and seeds, and prints the social metrics per map: a
generalisation table. --map only marks the map the policy was evolved on.

The policy is a store id (unique prefix), a Go source FILE.go (run in the
sandbox) or a built-in name (`+strings.Join(envs.BuiltinPolicies(), ", ")+`).`, stdout)
	o.envOptions.register(fs)
	fs.StringVar(&o.seeds, "seeds", "0-4", "episode seeds: N, A-B, or a comma-separated list of both")
	fs.Var(&o.extra, "transfer-map", "a map file to play on too (repeatable)")
	fs.BoolVar(&o.json, "json", false, "print JSON")
	o.storeOptions.register(fs)
	o.sandboxOptions.register(fs)
	target, err := oneArg(fs, args, "one policy (ID, FILE.go or built-in name)")
	if err != nil {
		return err
	}
	o.target = target
	return runTransfer(ctx, o, stdout, stderr)
}

func runTransfer(ctx context.Context, o transferOptions, stdout, stderr io.Writer) error {
	env, err := o.envOptions.resolve()
	if err != nil {
		return err
	}
	seeds, err := parseSeeds(o.seeds)
	if err != nil {
		return usagef("--seeds: %v", err)
	}
	game, _ := ssd.ParseGame(o.game) // resolve checked it
	home := o.mapArg
	if home == "" {
		home = envs.DefaultMap(game)
	}
	maps := arena.TransferMaps(game, o.extra)
	for _, m := range o.extra {
		if _, err := episode.ResolveEnv(o.game, m, env.Config.Agents, env.Config.MaxSteps); err != nil {
			return usagef("--transfer-map: %v", err)
		}
	}
	r := &resolver{so: &o.storeOptions, sbo: &o.sandboxOptions, stderr: stderr}
	p, err := r.player(ctx, o.target)
	if err != nil {
		return err
	}
	watch := watchSilence("transfer", "starting", stderr)
	defer watch.Stop()
	var rows []arena.TransferRow
	for i := range maps {
		watch.doing("playing on map %s (%d of %d maps, %d seeds each)", maps[i], i+1, len(maps), len(seeds))
		row, err := arena.Transfer(ctx, game, maps[i:i+1], env.Config.Agents, env.Config.MaxSteps, p.actor, seeds)
		if err != nil {
			return err
		}
		rows = append(rows, row...)
	}
	if o.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(struct {
			Policy string              `json:"policy"`
			Home   string              `json:"evolved_on"`
			Seeds  []uint64            `json:"seeds"`
			Rows   []arena.TransferRow `json:"rows"`
		}{p.name, home, seeds, rows}); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(stdout, "%s in self-play, %d agents, %d steps, seeds %v\n\n", p.name, env.Config.Agents, env.Config.MaxSteps, seeds)
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "map\tefficiency\tequality\tsustainability\tpeace\tseeds\t")
		for _, row := range rows {
			name := row.Map
			if row.Map == home {
				name += " (evolved on)"
			}
			fmt.Fprintf(tw, "%s\t%.4f\t%.4f\t%.2f\t%.3f\t%d/%d\t\n", name, row.Metrics.Efficiency, row.Metrics.Equality,
				row.Metrics.Sustainability, row.Metrics.Peace, row.Seeds, len(seeds))
		}
		tw.Flush()
	}
	failed := 0
	for _, row := range rows {
		for _, f := range row.Failed {
			fmt.Fprintf(stderr, "policyevolve transfer: %s: %s\n", row.Map, f)
			failed++
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d episodes failed (see above); the means cover the seeds that completed", failed)
	}
	return nil
}
