package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"policyevolve/envs"
	"policyevolve/evolve/scenario"
	"policyevolve/internal/infile"
)

// scenariosOptions are the flags of "scenarios".
type scenariosOptions struct {
	focal string
	envOptions
	suite string
	seeds string
	json  bool
	storeOptions
	sandboxOptions
}

// maxSuiteFile bounds a --suite file: a suite is a few dozen scenarios.
const maxSuiteFile = 1 << 20

func cmdScenarios(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var o scenariosOptions
	fs := newFlagSet("scenarios", "POLICY [flags]", `
How does a policy fare among strangers? scenarios plays the focal POLICY
against background populations, each in a scenario: resident mode seats k
background agents (agents 0…k−1) among the focal policy's N−k; visitor
mode seats k focal agents (agents 0…k−1) among N−k background agents. Per
scenario it prints the focal per-capita return, its share of the focal
policy's self-play per-capita return on the same seeds, the background's
per-capita return, the group's efficiency (return of all agents per step),
and whether the background out-earned the focal agents; then the worst
share.

The default suite: each of exploit, bfs, random and coop in resident mode
with k = 1 and k = 3 and in visitor mode with k = 3 (scenarios that do not
fit --agents are left out). --suite FILE reads another, TOML:

  name = "strangers"
  [[scenario]]
  background = "exploit"   # built-in, store id or FILE.go
  mode = "resident"        # or "visitor"
  k = 1

POLICY and each background are store ids (unique prefixes; a stored
Q-table too), Go source files (run in the sandbox) or built-in names
(`+strings.Join(envs.BuiltinPolicies(), ", ")+`). The seeds default to
invade's; give held-out seeds (--seeds 100-104) to score a champion on
seeds its search never saw.`, stdout)
	o.envOptions.register(fs)
	fs.StringVar(&o.suite, "suite", "", "a suite file (TOML; default: the built-in suite)")
	fs.StringVar(&o.seeds, "seeds", "0-4", "episode seeds: N, A-B, or a comma-separated list of both")
	fs.BoolVar(&o.json, "json", false, "print JSON")
	o.storeOptions.register(fs)
	o.sandboxOptions.register(fs)
	target, err := oneArg(fs, args, "one policy (ID, FILE.go or built-in name)")
	if err != nil {
		return err
	}
	o.focal = target
	return runScenarios(ctx, o, stdout, stderr)
}

// scenariosReport is the JSON output.
type scenariosReport struct {
	Policy string `json:"policy"`
	Env    string `json:"env"`
	*scenario.Report
}

func runScenarios(ctx context.Context, o scenariosOptions, stdout, stderr io.Writer) error {
	env, err := o.envOptions.resolve()
	if err != nil {
		return err
	}
	seeds, err := parseSeeds(o.seeds)
	if err != nil {
		return usagef("--seeds: %v", err)
	}
	suite := scenario.Default(env.Config.Agents)
	if o.suite != "" {
		data, err := infile.Read(o.suite, maxSuiteFile)
		if err != nil {
			return usagef("--suite: %v", err)
		}
		if suite, err = scenario.Parse(data); err != nil {
			return usagef("--suite %s: %v", o.suite, err)
		}
		if suite.Name == "" {
			suite.Name = strings.TrimSuffix(filepath.Base(o.suite), filepath.Ext(o.suite))
		}
	}
	if len(suite.Scenarios) == 0 {
		return usagef("no scenario of the default suite fits %d agents (need at least 2)", env.Config.Agents)
	}
	if err := suite.Fits(env.Config.Agents); err != nil {
		return usagef("--suite %s: %v", o.suite, err)
	}
	r := &resolver{so: &o.storeOptions, sbo: &o.sandboxOptions, stderr: stderr}
	focal, err := r.player(ctx, o.focal)
	if err != nil {
		return err
	}
	watch := watchSilence("scenarios", "starting", stderr)
	defer watch.Stop()
	watch.doing("playing %d scenarios of %s (%d seeds)", len(suite.Scenarios), focal.name, len(seeds))
	resolve := func(ctx context.Context, ref string) (envs.Actor, error) {
		p, err := r.player(ctx, ref)
		if err != nil {
			return nil, err
		}
		return p.actor, nil
	}
	rep, err := scenario.Run(ctx, env, focal.actor, resolve, suite, seeds)
	if err != nil {
		return err
	}
	out := scenariosReport{Policy: focal.name, Env: env.Config.String(), Report: rep}
	if o.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			return err
		}
	} else {
		printScenarios(stdout, &out)
	}
	var failed []string
	for _, f := range rep.SelfPlayFailed {
		failed = append(failed, "self-play, "+f)
	}
	for _, res := range rep.Results {
		for _, f := range res.Failed {
			failed = append(failed, res.Scenario.Label()+", "+f)
		}
	}
	if len(failed) > 0 {
		slices.Sort(failed)
		for _, f := range failed {
			fmt.Fprintf(stderr, "policyevolve scenarios: %s\n", f)
		}
		return fmt.Errorf("%d episodes stopped early because a policy failed (see above); the returns cover the steps played", len(failed))
	}
	return nil
}

func printScenarios(w io.Writer, rep *scenariosReport) {
	fmt.Fprintf(w, "%s among strangers on %s, suite %s, seeds %v\n", rep.Policy, rep.Env, rep.Suite.Name, rep.Seeds)
	fmt.Fprintf(w, "self-play: %.2f per agent, efficiency %.3f\n\n", rep.SelfPlay, rep.SelfPlayEfficiency)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "scenario\tfocal\tbackground\tfocal per agent\tshare\tbackground per agent\tefficiency\tbackground out-earns\t")
	for _, r := range rep.Results {
		share := "-"
		if r.Share != nil {
			share = fmt.Sprintf("%.0f%%", 100**r.Share)
		}
		verdict := "no"
		if r.Exploited() {
			verdict = "yes"
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.2f\t%s\t%.2f\t%.3f\t%s\t\n", r.Scenario.Label(), r.Focal.Agents, r.Background.Agents,
			r.Focal.Return, share, r.Background.Return, r.Efficiency, verdict)
	}
	tw.Flush()
	if rep.WorstShare != nil {
		fmt.Fprintf(w, "\nworst share: %.1f%% (%s)\n", 100**rep.WorstShare, rep.Results[rep.Worst].Scenario.Label())
	} else {
		fmt.Fprintf(w, "\nno share: the self-play return is not positive\n")
	}
	fmt.Fprintln(w, "resident k: k background agents (0…k−1) among the focal; visitor k: k focal agents (0…k−1) among the background; returns are means over the seeds")
}
