package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"text/tabwriter"

	"policyevolve/baselines/qlearn"
	"policyevolve/envs/ssd"
	"policyevolve/evolve/arena"
	"policyevolve/evolve/episode"
	"policyevolve/sandbox"
	"policyevolve/store"
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

// ---- ls

type poolRow struct {
	ID             string  `json:"id"`
	Name           string  `json:"name,omitempty"`
	Elo            float64 `json:"elo"`
	Games          int     `json:"games"`
	Wins           int     `json:"wins"`
	Draws          int     `json:"draws"`
	Losses         int     `json:"losses"`
	Efficiency     float64 `json:"efficiency"`
	Equality       float64 `json:"equality"`
	Sustainability float64 `json:"sustainability"`
	Peace          float64 `json:"peace"`
	Evaluated      bool    `json:"evaluated"`
	Status         string  `json:"status,omitempty"`
	Operator       string  `json:"operator,omitempty"`
	Reason         string  `json:"reason,omitempty"`
}

type poolListing struct {
	Pool    string    `json:"pool"`
	Members []poolRow `json:"members"`
}

func cmdPoolLs(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var so storeOptions
	var game, mapArg, sortBy, tag string
	var agents int
	var asJSON bool
	fs := newFlagSet("pool ls", "[flags]", `
List the global pools (one per environment) and their members: Elo and
record from the pool's ratings, social metrics from each member's latest
self-play evaluation on that environment. Safe to run while a job writes
to the store. Runs with a pool of their own (compare's) are listed with
--tag.`, stdout)
	fs.StringVar(&tag, "tag", "", "list the pools of this tag (a run's own pool, e.g. compare's), or all")
	so.register(fs)
	fs.StringVar(&game, "game", "", "only pools of this game")
	fs.StringVar(&mapArg, "map", "", "only pools on this map (a built-in name or a map file)")
	fs.IntVar(&agents, "agents", 0, "only pools with this many agents")
	fs.StringVar(&sortBy, "sort", "elo", "order: elo, efficiency, equality or sustainability")
	fs.BoolVar(&asJSON, "json", false, "print JSON")
	if err := parseFlags(fs, args, false); err != nil {
		return err
	}
	less := map[string]func(a, b poolRow) bool{
		"elo":            func(a, b poolRow) bool { return a.Elo > b.Elo },
		"efficiency":     func(a, b poolRow) bool { return a.Efficiency > b.Efficiency },
		"equality":       func(a, b poolRow) bool { return a.Equality > b.Equality },
		"sustainability": func(a, b poolRow) bool { return a.Sustainability > b.Sustainability },
	}[sortBy]
	if less == nil {
		return usagef("--sort: unknown order %q (want elo, efficiency, equality or sustainability)", sortBy)
	}
	if _, err := os.Stat(mapArg); mapArg != "" && err == nil {
		// A map file: pools on it are keyed by a hash of its text.
		g := game
		if g == "" {
			g = "gathering"
		}
		key, err := episode.MapKey(g, mapArg)
		if err != nil && game == "" {
			key, err = episode.MapKey("cleanup", mapArg)
		}
		if err != nil {
			return usagef("--map: %v", err)
		}
		mapArg = key
	}
	s, err := so.open(readStore)
	if err != nil {
		return err
	}
	var listings []poolListing
	err = s.View(func(tx *store.Tx) error {
		pools, err := tx.Pools()
		if err != nil {
			return err
		}
		for _, name := range pools {
			rest, ok := strings.CutPrefix(name, "global/")
			if !ok {
				continue
			}
			rest, poolTag, _ := strings.Cut(rest, "#")
			if tag != "all" && poolTag != tag {
				continue
			}
			parts := strings.Split(rest, "/")
			if len(parts) != 4 || (game != "" && parts[0] != game) || (mapArg != "" && parts[1] != mapArg) ||
				(agents != 0 && parts[2] != fmt.Sprint(agents)) {
				continue
			}
			l, err := listPool(tx, name)
			if err != nil {
				return err
			}
			sort.SliceStable(l.Members, func(i, j int) bool { return less(l.Members[i], l.Members[j]) })
			listings = append(listings, l)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if asJSON {
		if listings == nil {
			listings = []poolListing{}
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(listings)
	}
	if len(listings) == 0 {
		fmt.Fprintln(stdout, "no global pools match")
		return nil
	}
	for k, l := range listings {
		if k > 0 {
			fmt.Fprintln(stdout)
		}
		fmt.Fprintf(stdout, "pool %s (%d members)\n", l.Pool, len(l.Members))
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  id\telo\tw/d/l\tefficiency\tequality\tsustainability\tpeace\torigin\tname")
		for _, r := range l.Members {
			metrics := "-\t-\t-\t-"
			if r.Evaluated {
				metrics = fmt.Sprintf("%.3f\t%.3f\t%.1f\t%.2f", r.Efficiency, r.Equality, r.Sustainability, r.Peace)
				if r.Status == store.StatusFailed {
					metrics += " (failed)"
				}
			}
			fmt.Fprintf(tw, "  %.12s\t%.1f\t%d/%d/%d\t%s\t%s\t%s\n", r.ID, r.Elo, r.Wins, r.Draws, r.Losses, metrics, r.Operator, r.Name)
		}
		tw.Flush()
	}
	return nil
}

// listPool reads one pool's members with their ratings and evaluations.
func listPool(tx *store.Tx, name string) (poolListing, error) {
	l := poolListing{Pool: name, Members: []poolRow{}}
	members, err := tx.Members(name)
	if err != nil {
		return l, err
	}
	envKey, _, _ := strings.Cut(strings.TrimPrefix(name, "global/"), "#")
	for _, m := range members {
		row := poolRow{ID: m.Policy, Elo: 1200, Reason: m.Reason}
		if p, err := tx.Policy(m.Policy); err == nil {
			row.Name, row.Operator = p.Name, p.Origin.Operator
		}
		if r, err := tx.Rating(name, m.Policy); err == nil {
			row.Elo, row.Games, row.Wins, row.Draws, row.Losses = r.Elo, r.Games, r.Wins, r.Draws, r.Losses
		}
		evs, err := tx.EvaluationsOf(m.Policy)
		if err != nil {
			return l, err
		}
		var latest *store.Evaluation
		for k := range evs {
			if evs[k].Env.Key() == envKey && (latest == nil || evs[k].Created.After(latest.Created)) {
				latest = &evs[k]
			}
		}
		if latest != nil {
			row.Evaluated, row.Status = true, latest.Status
			row.Efficiency, row.Equality = latest.Mean.Efficiency, latest.Mean.Equality
			row.Sustainability, row.Peace = latest.Mean.Sustainability, latest.Mean.Peace
		}
		l.Members = append(l.Members, row)
	}
	return l, nil
}

// ---- show

func cmdPoolShow(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var so storeOptions
	fs := newFlagSet("pool show", "ID [flags]", `
Show everything the store knows of a policy: its source and origin, the
pools it is in with its rating history, every evaluation with per-seed
metrics, and every match it played.`, stdout)
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
		p, err := findPolicy(tx, pos[0])
		if err != nil {
			return err
		}
		id := p.ID
		fmt.Fprintf(stdout, "policy   %s\n", p.ID)
		if p.Name != "" {
			fmt.Fprintf(stdout, "name     %s\n", p.Name)
		}
		fmt.Fprintf(stdout, "created  %s\n", p.Created.Format("2006-01-02 15:04:05 UTC"))
		fmt.Fprintf(stdout, "origin   %s\n", describeOrigin(p.Origin))
		pools, _ := tx.PoolsOf(id)
		for _, pl := range pools {
			r, err := tx.Rating(pl, id)
			if err != nil {
				fmt.Fprintf(stdout, "pool     %s (unrated)\n", pl)
				continue
			}
			fmt.Fprintf(stdout, "pool     %s: elo %.1f, %d games (%d/%d/%d)\n", pl, r.Elo, r.Games, r.Wins, r.Draws, r.Losses)
			for _, h := range r.History {
				fmt.Fprintf(stdout, "           %s  elo %.1f after %s vs %.12s (seed %d)\n",
					h.Time.Format("2006-01-02 15:04:05"), h.Elo, outcomeWord(h.Outcome), h.Opponent, h.Seed)
			}
		}
		evs, err := tx.EvaluationsOf(id)
		if err != nil {
			return err
		}
		for _, e := range evs {
			fmt.Fprintf(stdout, "evaluation on %s, seeds %v: %s", e.Env, e.Seeds, e.Status)
			if e.Error != "" {
				fmt.Fprintf(stdout, " (%s)", e.Error)
			}
			fmt.Fprintf(stdout, "\n  mean: efficiency %.3f, equality %.3f, sustainability %.1f, peace %.2f\n",
				e.Mean.Efficiency, e.Mean.Equality, e.Mean.Sustainability, e.Mean.Peace)
			for _, sr := range e.PerSeed {
				if sr.Status != store.StatusOK {
					fmt.Fprintf(stdout, "  seed %d: failed after %d steps: %s\n", sr.Seed, sr.Steps, sr.Error)
					continue
				}
				fmt.Fprintf(stdout, "  seed %d: efficiency %.3f, equality %.3f, sustainability %.1f, peace %.2f, returns %v\n",
					sr.Seed, sr.Metrics.Efficiency, sr.Metrics.Equality, sr.Metrics.Sustainability, sr.Metrics.Peace, sr.Returns)
			}
		}
		ms, err := tx.MatchesOf(id)
		if err != nil {
			return err
		}
		if len(ms) > 0 {
			fmt.Fprintf(stdout, "matches (%d):\n", len(ms))
		}
		for _, m := range ms {
			other, score, theirs, outcome := m.B, m.ScoreA, m.ScoreB, m.Outcome
			if m.B == id {
				other, score, theirs, outcome = m.A, m.ScoreB, m.ScoreA, 1-m.Outcome
			}
			line := fmt.Sprintf("  vs %.12s on %s seed %d: %.2f to %.2f, %s", other, m.Env, m.Seed, score, theirs, outcomeWord(outcome))
			if m.Error != "" {
				line += " (" + m.Error + ")"
			}
			fmt.Fprintln(stdout, line)
		}
		if p.Builtin == episode.QLearnBuiltin {
			fmt.Fprintln(stdout, "source:   "+describeQTable(p))
			return nil
		}
		fmt.Fprintln(stdout, "source:")
		for _, l := range strings.Split(strings.TrimRight(p.Source, "\n"), "\n") {
			fmt.Fprintln(stdout, "  "+l)
		}
		return nil
	})
}

func outcomeWord(o float64) string {
	switch o {
	case 1:
		return "win"
	case 0:
		return "loss"
	}
	return "draw"
}

func describeOrigin(o store.Origin) string {
	if d := o.Describe(12); d != "" {
		return d
	}
	return "unknown"
}

// ---- diff, lineage, export

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
			fmt.Fprintf(stdout, "%s%s%s  [%s]\n", prefix, branch, label, describeOrigin(store.Origin{Operator: p.Origin.Operator, Planner: p.Origin.Planner, Run: p.Origin.Run, Iteration: p.Origin.Iteration}))
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
	if err := os.WriteFile(out, []byte(p.Source), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "wrote %.12s to %s\n", p.ID, out)
	return nil
}

// ---- import, rm

func cmdPoolImport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var so storeOptions
	var eo envOptions
	var sbo sandboxOptions
	var name, evalSeeds, matchSeeds string
	var rngSeed uint64
	fs := newFlagSet("pool import", "FILE.go|qlearn:FILE [flags]", `
Admit a hand-written policy into the global pool of an environment: the
sandbox's admission check (rules, compilation, 50-step smoke test,
determinism probe), a self-play evaluation, matches against opponents drawn
from the pool (softmax over Elo) that set its rating, then eviction if the
pool is over capacity. A new pool starts with the built-in baselines.

A Q-table written by "policyevolve qlearn train" (qlearn:FILE, or any
FILE.json) joins as a baseline instead: stored in the store by its content,
played in-process (no sandbox), then evaluated and rated the same way.`, stdout)
	so.register(fs)
	eo.register(fs)
	sbo.register(fs)
	fs.StringVar(&name, "name", "", "a label for the policy (default: the file name)")
	fs.StringVar(&evalSeeds, "seeds", "0-4", "self-play evaluation seeds")
	fs.StringVar(&matchSeeds, "match-seeds", "0", "seeds of the rating matches")
	fs.Uint64Var(&rngSeed, "seed", 0, "seed of the opponent draw")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("want one policy file")
	}
	path, isTable := qlearnFile(pos[0])
	if strings.HasSuffix(pos[0], ".json") {
		isTable = true
	}
	if name == "" {
		name = path
	}
	var src []byte
	var tab *qlearn.Table
	if isTable {
		game, err := ssd.ParseGame(eo.game)
		if err != nil {
			return usagef("--game: %v", err)
		}
		if tab, err = loadQTable(path, game); err != nil {
			return usagef("%v", err)
		}
	} else if src, err = os.ReadFile(pos[0]); err != nil {
		return usagef("%v", err)
	}
	ar, err := openArena(&so, createStore, &eo, &sbo, evalSeeds, matchSeeds, stderr)
	if err != nil {
		return err
	}
	defer ar.Close()
	var rep *arena.ImportReport
	if isTable {
		rep, err = ar.ImportQTable(ctx, tab, name, rngSeed)
	} else {
		rep, err = ar.Import(ctx, src, name, rngSeed)
	}
	if err != nil {
		var ve *sandbox.ValidationError
		if errors.As(err, &ve) {
			ve.File = pos[0]
		}
		return err
	}
	verb := "imported"
	if !rep.New {
		verb = "already stored:"
	}
	ev := rep.Evaluation
	fmt.Fprintf(stdout, "%s %.12s (%s) into %s\n", verb, rep.ID, name, ar.GlobalPool())
	fmt.Fprintf(stdout, "self-play over seeds %v: %s; efficiency %.3f, equality %.3f, sustainability %.1f, peace %.2f\n",
		ev.Seeds, ev.Status, ev.Mean.Efficiency, ev.Mean.Equality, ev.Mean.Sustainability, ev.Mean.Peace)
	for _, m := range rep.Rating.Matches {
		fmt.Fprintf(stdout, "  vs %.12s seed %d: %.2f to %.2f, %s\n", m.B, m.Seed, m.ScoreA, m.ScoreB, outcomeWord(m.Outcome))
	}
	fmt.Fprintf(stdout, "win rate %.2f over %d matches; elo %.1f\n", rep.Rating.WinRate(), rep.Rating.Games, rep.Rating.Elo)
	for _, id := range rep.Evicted {
		fmt.Fprintf(stdout, "evicted %.12s (pool over capacity %d)\n", id, ar.Pool.Capacity)
	}
	return nil
}

// openArena builds an Arena from the flags of a command that plays.
func openArena(so *storeOptions, mode storeMode, eo *envOptions, sbo *sandboxOptions, evalSeeds, matchSeeds string, stderr io.Writer) (*arena.Arena, error) {
	env, err := eo.resolve()
	if err != nil {
		return nil, err
	}
	es, err := parseSeeds(evalSeeds)
	if err != nil {
		return nil, usagef("--seeds: %v", err)
	}
	ms, err := parseSeeds(matchSeeds)
	if err != nil {
		return nil, usagef("--match-seeds: %v", err)
	}
	if env.Config.Agents < 2 {
		return nil, usagef("--agents: matches need at least 2 agents")
	}
	sb, err := sbo.open(stderr)
	if err != nil {
		return nil, err
	}
	s, err := so.open(mode)
	if err != nil {
		return nil, err
	}
	return &arena.Arena{Store: s, Sandbox: sb, Env: env, EvalSeeds: es, MatchSeeds: ms,
		Log: func(format string, args ...any) { fmt.Fprintf(stderr, format+"\n", args...) }}, nil
}

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
