package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"slices"
	"sort"
	"strings"

	"policyevolve/evolve"
)

// What a flag given with --resume does. A resumed run keeps its stored
// configuration; a flag is never silently ignored:
//   - resumeBudgets carry the run's budgets further (recorded with the run);
//   - resumeFree say how and where this process runs, not what the run
//     is (they change no result), or are checked elsewhere (the LLM's
//     endpoints: llmOptions.move; the seeds: checkSeeds; the objective);
//   - resumeSettings name the stored setting a flag sets: given with
//     another value it is refused naming the flag, with the same value it
//     is accepted;
//   - any other flag is refused with --resume.
var (
	resumeBudgets = map[string]bool{"iterations": true, "max-planner-calls": true, "max-cost": true, "max-tokens": true, "time": true}
	resumeFree    = map[string]bool{"resume": true, "store": true, "json": true, "config": true, "workers": true, "planner-concurrency": true,
		"seed": true, "seeds": true, "match-seeds": true, "objective": true,
		"llm": true, "llm-base-url": true, "llm-key-env": true, "llm-timeout": true, "llm-retries": true,
		"step-timeout": true, "cost-budget": true} // and identityFlags, nats-*
	resumeSettings = map[string]string{"mode": "mode", "game": "game", "map": "map", "agents": "agents", "steps": "steps",
		"candidates": "candidates", "feedback": "feedback", "prompt-style": "prompt_style", "adversarial": "adversarial",
		"invasion": "invasion", "local-rounds": "local_rounds", "crossover-rate": "crossover_rate", "local-stop": "local_stop",
		"recheck": "recheck", "parent-order": "parent_order", "refine": "refine", "robust-margin": "robust_margin",
		"critic": "critic", "backend": "backend",
		"opponents": "pool.opponents", "pool-capacity": "pool.capacity", "promote-threshold": "pool.promote_threshold"}
)

// resumeFlags sorts the flags given with --resume (see resumeBudgets):
// the budgets to extend, or a usage error naming the first flag that
// would change the stored configuration.
func (o *evolveOptions) resumeFlags(fs *flagSet, stored evolve.JobConfig) (evolve.Budgets, error) {
	var b evolve.Budgets
	asked := o.cfg
	asked.Game, asked.Map, asked.Agents, asked.Steps = o.game, o.mapArg, o.agents, o.steps
	asked.LocalRounds, asked.CrossoverRate = evolve.On(o.localRounds), evolve.On(o.crossoverRate)
	asked.LocalStop, asked.Recheck = evolve.On(o.localStop), evolve.On(o.recheck)
	asked.Backend = o.backend
	if asked.Objective == "" {
		asked.Objective = stored.Objective
	}
	have, err := settings(stored.WithDefaults())
	if err != nil {
		return b, err
	}
	want, err := settings(asked.WithDefaults())
	if err != nil {
		return b, err
	}
	var given []string
	fs.Visit(func(f *flag.Flag) { given = append(given, f.Name) })
	sort.Strings(given)
	for _, name := range given {
		switch key, setting := resumeSettings[name]; {
		case resumeBudgets[name], resumeFree[name]:
		case setting:
			if have[key] != want[key] {
				return b, usagef("--%s %s: run %s has %s %s, and a resumed run keeps its settings (start a new run to change it; --resume may raise --iterations, --max-planner-calls, --max-cost, --max-tokens, --time)",
					name, fs.Lookup(name).Value, o.resume, name, have[key])
			}
		case strings.HasPrefix(name, "nats") || slices.Contains(identityFlags, name):
			// Where the episodes are played; the LLM's identity (move
			// refuses a change).
		default:
			return b, usagef("--%s cannot be given with --resume: the run keeps its stored settings", name)
		}
	}
	given2 := func(n string) bool { return flagGiven(fs, n) }
	if given2("iterations") {
		b.Iterations = o.cfg.Iterations
	}
	budget := func(name string, v float64) float64 {
		if !given2(name) {
			return 0
		}
		if v == 0 {
			return evolve.NoLimit
		}
		return v
	}
	b.MaxPlannerCalls = int(budget("max-planner-calls", float64(o.cfg.MaxPlannerCalls)))
	b.MaxCost = budget("max-cost", o.cfg.MaxCost)
	b.MaxTokens = int(budget("max-tokens", float64(o.cfg.MaxTokens)))
	if given2("time") {
		b.MaxTime = o.cfg.MaxTime
		if b.MaxTime == 0 {
			b.MaxTime = evolve.NoLimit
		}
	}
	return b, nil
}

// settings flattens a configuration's JSON into "key" and
// "pool.key" → its value as JSON text.
func settings(cfg evolve.JobConfig) (map[string]string, error) {
	raw, err := json.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		return nil, err
	}
	out := map[string]string{}
	for k, v := range top {
		out[k] = string(v)
	}
	var p map[string]json.RawMessage
	if err := json.Unmarshal(top["pool"], &p); err != nil {
		return nil, fmt.Errorf("configuration's pool: %w", err)
	}
	for k, v := range p {
		out["pool."+k] = string(v)
	}
	return out, nil
}
