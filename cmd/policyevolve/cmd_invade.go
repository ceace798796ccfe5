package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"policyevolve/envs"
	"policyevolve/evolve/arena"
)

// invadeOptions are the flags of "invade".
type invadeOptions struct {
	a, b string
	envOptions
	seeds string
	k     string
	json  bool
	storeOptions
	sandboxOptions
}

func cmdInvade(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var o invadeOptions
	fs := newFlagSet("invade", "A B [flags]", `
Can policy A invade a population of policy B? With --k K, agents 0…K−1 run
A (the invaders, as the paper seats its attacker on agent 0) and the other
N−K run B, on each seed; the report gives each side's mean per-agent
return, B's change against B in pure self-play (k = 0) and A's against A in
pure self-play (k = N). B resists invasion at k when the invaders earn less
per agent than the residents; A free-rides when it earns more among B than
among its own kind. --k all tries k = 1…N−1.

A and B are store ids (unique prefixes), Go source files (run in the
sandbox) or built-in names (`+strings.Join(envs.BuiltinPolicies(), ", ")+`).`, stdout)
	o.envOptions.register(fs)
	fs.StringVar(&o.seeds, "seeds", "0-4", "episode seeds: N, A-B, or a comma-separated list of both")
	fs.StringVar(&o.k, "k", "1", "invaders: N, A-B, a comma-separated list, or all (1…N−1)")
	fs.BoolVar(&o.json, "json", false, "print JSON")
	o.storeOptions.register(fs)
	o.sandboxOptions.register(fs)
	pos, err := policyArgs(fs, args, 2)
	if err != nil {
		return err
	}
	o.a, o.b = pos[0], pos[1]
	return runInvade(ctx, o, stdout, stderr)
}

// invadeReport is the JSON output.
type invadeReport struct {
	A, B  string           `json:"-"`
	Names [2]string        `json:"policies"` // invader, resident
	Env   string           `json:"env"`
	Seeds []uint64         `json:"seeds"`
	SelfA float64          `json:"a_self_play"` // A's per-agent return in self-play
	SelfB float64          `json:"b_self_play"`
	Rows  []arena.Invasion `json:"rows"`
}

func runInvade(ctx context.Context, o invadeOptions, stdout, stderr io.Writer) error {
	env, err := o.envOptions.resolve()
	if err != nil {
		return err
	}
	seeds, err := parseSeeds(o.seeds)
	if err != nil {
		return usagef("--seeds: %v", err)
	}
	n := env.Config.Agents
	var ks []int
	if o.k == "all" {
		for k := 1; k < n; k++ {
			ks = append(ks, k)
		}
	} else {
		list, err := parseSeeds(o.k)
		if err != nil {
			return usagef("--k: %v", err)
		}
		for _, k := range list {
			if k > uint64(n) {
				return usagef("--k: %d invaders, but only %d agents", k, n)
			}
			ks = append(ks, int(k))
		}
	}
	if len(ks) == 0 {
		return usagef("--k all needs at least 2 agents")
	}
	r := &resolver{so: &o.storeOptions, sbo: &o.sandboxOptions, stderr: stderr,
		cross: &envs.Config{Map: env.Map, Agents: env.Config.Agents, MaxSteps: env.Config.MaxSteps}}
	if len(seeds) > 0 {
		r.crossSeed = seeds[0]
	}
	a, err := r.player(ctx, o.a)
	if err != nil {
		//lint:ignore ST1005 "A" names the first player, as in the usage line
		return fmt.Errorf("A: %w", err)
	}
	b, err := r.player(ctx, o.b)
	if err != nil {
		//lint:ignore ST1005 "B" names the second player, as in the usage line
		return fmt.Errorf("B: %w", err)
	}
	rep := invadeReport{Names: [2]string{a.name, b.name}, Env: env.Config.String(), Seeds: seeds}
	var failed []string
	watch := watchSilence("invade", "starting", stderr)
	defer watch.Stop()
	play := func(k int) (*arena.Invasion, error) {
		watch.doing("playing %d invaders of %s among %d agents (%d seeds)", k, a.name, n, len(seeds))
		inv, err := arena.Invade(ctx, env, a.actor, b.actor, k, seeds)
		if err != nil {
			return nil, err
		}
		for _, f := range inv.Failed {
			failed = append(failed, fmt.Sprintf("k = %d, %s", k, f))
		}
		return inv, nil
	}
	// The references: each in pure self-play.
	selfB, err := play(0)
	if err != nil {
		return err
	}
	selfA, err := play(n)
	if err != nil {
		return err
	}
	rep.SelfA, rep.SelfB = selfA.A.Return, selfB.B.Return
	for _, k := range ks {
		inv := selfB
		switch k {
		case n:
			inv = selfA
		case 0:
		default:
			if inv, err = play(k); err != nil {
				return err
			}
		}
		rep.Rows = append(rep.Rows, *inv)
	}
	if o.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
	} else {
		printInvasion(stdout, &rep, n)
	}
	if len(failed) > 0 {
		slices.Sort(failed)
		for _, f := range failed {
			fmt.Fprintf(stderr, "policyevolve invade: %s\n", f)
		}
		return fmt.Errorf("%d episodes stopped early because a policy failed (see above); the returns cover the steps played", len(failed))
	}
	return nil
}

func printInvasion(w io.Writer, rep *invadeReport, n int) {
	fmt.Fprintf(w, "%s (A) invading %s (B) on %s, seeds %v\n", rep.Names[0], rep.Names[1], rep.Env, rep.Seeds)
	fmt.Fprintf(w, "per-agent return in self-play: A %.2f, B %.2f\n\n", rep.SelfA, rep.SelfB)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "k\tA per agent\tB per agent\tB vs self-play\tA vs self-play\tverdict\t")
	for _, r := range rep.Rows {
		cell := func(s arena.SideReturn, self float64) (string, string) {
			if s.Agents == 0 {
				return "-", "-"
			}
			return fmt.Sprintf("%.2f", s.Return), fmt.Sprintf("%+.2f", s.Return-self)
		}
		aRet, aDelta := cell(r.A, rep.SelfA)
		bRet, bDelta := cell(r.B, rep.SelfB)
		verdict := "-"
		if r.A.Agents > 0 && r.B.Agents > 0 {
			if r.A.Return > r.B.Return {
				verdict = "A invades"
			} else {
				verdict = "B resists"
			}
			if r.A.Return > rep.SelfA {
				verdict += ", A free-rides"
			}
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t\n", r.K, aRet, bRet, bDelta, aDelta, verdict)
	}
	tw.Flush()
	fmt.Fprintf(w, "\nagents 0…k−1 run A, the other %d−k run B; returns are means over the seeds\n", n)
}
