package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"policyevolve/critic"
	"policyevolve/elo"
	"policyevolve/envs"
	"policyevolve/evolve/arena"
	"policyevolve/evolve/episode"
	"policyevolve/evolve/planner"
	"policyevolve/sandbox"
	"policyevolve/store"
)

// critiqueOptions are the flags of "critique".
type critiqueOptions struct {
	target string // ID, FILE.go or a built-in name
	envOptions
	seeds  string
	vs     string
	critic string
	json   bool
	storeOptions
	sandboxOptions
	llm llmOptions
}

func cmdCritique(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var o critiqueOptions
	fs := newFlagSet("critique", "ID|FILE.go|BUILTIN [flags]", `
Play a policy in self-play (every agent runs it) on each seed, record the
episodes, and print the trajectory critic's diagnostics (action mix,
idling, oscillation, beams and tags, contested apples, coverage, per-agent
returns; in Cleanup waste, regrowth, cleaning and free-riding) and its
reflections, ranked by the reward at stake.

The policy is a store id (unique prefix), a Go source FILE.go (run in the
sandbox) or a built-in name (`+strings.Join(envs.BuiltinPolicies(), ", ")+`). With a
store id the critique is also stored, with the feedback level "critic".
--vs adds matches against other policies (same forms, comma-separated):
two episodes per seed, sides swapped, as "match" plays them.

--critic llm asks the language model named by --llm for the reflections;
its calls are recorded in the store's ledger like the planner's. When the
call fails or the answer holds no usable reflections, the analytic critic
answers instead and the output says why.`, stdout)
	o.envOptions.register(fs)
	fs.StringVar(&o.seeds, "seeds", "0-4", "episode seeds: N, A-B, or a comma-separated list of both")
	fs.StringVar(&o.vs, "vs", "", "opponents for matches: store ids, FILE.go or built-in names, comma-separated")
	fs.StringVar(&o.critic, "critic", "analytic", "who writes the reflections: analytic or llm")
	fs.BoolVar(&o.json, "json", false, "print JSON (diagnostics, reflections, stored id)")
	o.storeOptions.register(fs)
	o.sandboxOptions.register(fs)
	o.llm.register(fs)
	target, err := oneArg(fs, args, "one policy (ID, FILE.go or built-in name)")
	if err != nil {
		return err
	}
	o.target = target
	return runCritique(ctx, o, stdout, stderr)
}

// critiqueModel returns the language model behind --critic llm and its
// name: the --llm client, recording into the store's ledger (created if
// need be: a paid call is never lost). Tests replace it.
var critiqueModel = func(o *critiqueOptions) (critic.Model, string, error) {
	s, err := o.storeOptions.open(createStore)
	if err != nil {
		return nil, "", err
	}
	client, err := o.llm.client(&planner.LLMRecorder{Store: s}, nil)
	if err != nil {
		return nil, "", err
	}
	return planner.CriticModel{Client: client}, client.Name(), nil
}

// critiqueOutput is the JSON output of "critique".
type critiqueOutput struct {
	Policy      string              `json:"policy"`
	Env         store.EnvConfig     `json:"env"`
	Seeds       []uint64            `json:"seeds"`
	Opponents   []string            `json:"opponents,omitempty"`
	Critique    *critic.Report      `json:"critique"`
	Diagnostics *critic.Diagnostics `json:"diagnostics"`
	Stored      uint64              `json:"stored,omitempty"`   // the critique's id in the store
	Failures    []string            `json:"failures,omitempty"` // episodes a policy cut short
}

func runCritique(ctx context.Context, o critiqueOptions, stdout, stderr io.Writer) error {
	env, err := o.envOptions.resolve()
	if err != nil {
		return err
	}
	seeds, err := parseSeeds(o.seeds)
	if err != nil {
		return usagef("--seeds: %v", err)
	}
	if o.critic != "analytic" && o.critic != "llm" {
		return usagef("--critic: unknown critic %q (want analytic or llm)", o.critic)
	}
	if o.critic == "llm" {
		if err := o.llm.check(); err != nil {
			return err
		}
	}
	var vs []string
	if o.vs != "" {
		vs = strings.Split(o.vs, ",")
		if env.Config.Agents < 2 {
			return usagef("--vs: matches need at least 2 agents")
		}
	}
	r := &resolver{so: &o.storeOptions, sbo: &o.sandboxOptions, stderr: stderr}
	me, err := r.player(ctx, o.target)
	if err != nil {
		return err
	}
	var opps []*player
	for _, name := range vs {
		p, err := r.player(ctx, strings.TrimSpace(name))
		if err != nil {
			return fmt.Errorf("--vs: %w", err)
		}
		opps = append(opps, p)
	}

	n := env.Config.Agents
	var eps []critic.Episode
	var failures []string
	episode := func(side []int, seed uint64, opp *player) error {
		seats := []envs.Seat{{Actor: me.actor}}
		if opp != nil {
			seats = append(seats, envs.Seat{Actor: opp.actor})
		}
		var mine []int
		for i, s := range side {
			seats[s].Agents = append(seats[s].Agents, i)
			if s == 0 {
				mine = append(mine, i)
			}
		}
		e, err := envs.New(envs.Config{Map: env.Map, Agents: n, MaxSteps: env.Config.MaxSteps})
		if err != nil {
			return err
		}
		res, err := envs.Run(ctx, e, seats, envs.Options{Seed: seed, Record: true, Verify: me.source != "" || (opp != nil && opp.source != "")})
		var pe *sandbox.PolicyError
		switch {
		case errors.As(err, &pe):
			// A failing policy is a result: diagnose the steps it played.
			msg := fmt.Sprintf("seed %d: stopped after %d steps: %v", seed, res.Steps, err)
			failures = append(failures, msg)
			fmt.Fprintf(stderr, "policyevolve critique: %s\n", msg)
		case err != nil:
			return fmt.Errorf("seed %d: %w", seed, err)
		}
		ep := critic.Episode{Trajectory: res.Trajectory}
		if opp != nil {
			ep.Mine, ep.Opponent = mine, opp.name
		}
		eps = append(eps, ep)
		return nil
	}
	silence := watchSilence("critique", "starting", stderr)
	defer silence.Stop()
	total := len(seeds) * (1 + 2*len(opps))
	for _, seed := range seeds {
		silence.doing("playing seed %d in self-play (%d of %d episodes)", seed, len(eps)+1, total)
		if err := episode(make([]int, n), seed, nil); err != nil {
			return err
		}
		for _, opp := range opps {
			for _, swapped := range []bool{false, true} {
				silence.doing("playing seed %d against %s (%d of %d episodes)", seed, opp.name, len(eps)+1, total)
				if err := episode(elo.Sides(n, swapped), seed, opp); err != nil {
					return err
				}
			}
		}
	}

	d, err := critic.Diagnose(eps, critic.Config{})
	if err != nil {
		return err
	}
	silence.doing("writing the reflections (%s critic)", o.critic)
	rep, err := critiqueReport(ctx, &o, d, me.source)
	if err != nil {
		return err
	}
	out := critiqueOutput{Policy: me.name, Env: env.Config, Seeds: seeds, Critique: rep, Diagnostics: d, Failures: failures}
	for _, p := range opps {
		out.Opponents = append(out.Opponents, p.name)
	}
	if me.id != "" {
		if out.Stored, err = storeCritique(&o.storeOptions, me.id, &out); err != nil {
			return err
		}
	}

	if o.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			return err
		}
	} else if err := printCritique(stdout, &out); err != nil {
		return err
	}
	if len(failures) > 0 {
		return fmt.Errorf("%d of %d episodes stopped early because a policy failed (see above); the diagnostics cover the steps played", len(failures), len(eps))
	}
	return nil
}

// critiqueReport asks the chosen critic for its reflections.
func critiqueReport(ctx context.Context, o *critiqueOptions, d *critic.Diagnostics, source string) (*critic.Report, error) {
	if o.critic == "analytic" {
		return critic.Analytic{}.Critique(ctx, d, source)
	}
	model, name, err := critiqueModel(o)
	if err != nil {
		return nil, err
	}
	return (&critic.LLM{Model: model, Name: name}).Critique(ctx, d, source)
}

// storeCritique records the critique of a stored policy and returns its id.
func storeCritique(so *storeOptions, id string, out *critiqueOutput) (uint64, error) {
	c, err := arena.CritiqueRecord(id, arena.ReflectLevel, out.Diagnostics, out.Critique)
	if err != nil {
		return 0, err
	}
	c.Env, c.Seeds, c.Opponents = out.Env, out.Seeds, out.Opponents
	s, err := so.open(writeStore)
	if err != nil {
		return 0, err
	}
	if err := s.Update(func(tx *store.Tx) error { return tx.AddCritique(c) }); err != nil {
		return 0, fmt.Errorf("store the critique: %w", err)
	}
	return c.ID, nil
}

func printCritique(w io.Writer, out *critiqueOutput) error {
	against := ""
	if len(out.Opponents) > 0 {
		against = ", against " + strings.Join(out.Opponents, ", ")
	}
	fmt.Fprintf(w, "critique of %s on %s%s (critic: %s)\n\n", out.Policy, out.Env, against, out.Critique.By)
	if out.Critique.Fallback != "" {
		fmt.Fprintf(w, "the analytic critic answered: %s\n\n", out.Critique.Fallback)
	}
	if err := critic.WriteReflections(w, out.Critique.Reflections); err != nil {
		return err
	}
	fmt.Fprintln(w)
	if err := out.Diagnostics.WriteTable(w); err != nil {
		return err
	}
	if out.Stored != 0 {
		fmt.Fprintf(w, "\nstored as critique %d of policy %.12s\n", out.Stored, out.Policy)
	}
	return nil
}

// player is a policy resolved from the command line.
type player struct {
	name   string // as shown: built-in name, file path or 12-digit id
	id     string // store id, when it came from the store
	source string // Go source ("" for built-ins)
	actor  envs.Actor
}

// resolver turns ID|FILE.go|BUILTIN into players, opening the store and
// the sandbox only when needed.
type resolver struct {
	so     *storeOptions
	sbo    *sandboxOptions
	stderr io.Writer
	sb     *sandbox.Sandbox
	st     *store.Store
	// cross, when set, is the environment the command plays: a source
	// policy the yaegi backend runs is compared there with the native
	// backend, from a seed derived from crossSeed (see
	// sandboxOptions.crossCheck).
	cross     *envs.Config
	crossSeed uint64
}

func (r *resolver) player(ctx context.Context, arg string) (*player, error) {
	switch {
	case arg == "":
		return nil, usagef("empty policy name")
	case slices.Contains(envs.BuiltinPolicies(), arg):
		f, _ := envs.Builtin(arg)
		return &player{name: arg, actor: &envs.PolicyActor{New: f}}, nil
	case strings.HasSuffix(arg, ".go"):
		src, err := readSource(arg)
		if err != nil {
			return nil, usagef("%v", err)
		}
		return r.compile(ctx, &player{name: arg, source: string(src)}, arg)
	}
	if r.st == nil {
		s, err := r.so.open(readStore)
		if err != nil {
			return nil, fmt.Errorf("%s is neither a built-in policy nor a FILE.go, so it must be a store id: %w", arg, err)
		}
		r.st = s
	}
	var p *store.Policy
	if err := r.st.View(func(tx *store.Tx) (err error) {
		p, err = findPolicy(tx, arg)
		return err
	}); err != nil {
		return nil, err
	}
	pl := &player{name: p.ID[:12], id: p.ID, source: p.Source}
	if p.Builtin != "" {
		// A stored built-in or Q-table plays in process.
		a, err := episode.BuiltinActor(p)
		if err != nil {
			return nil, err
		}
		pl.source, pl.actor = "", a
		return pl, nil
	}
	return r.compile(ctx, pl, "policy "+pl.name)
}

// compile readies a source policy in the sandbox.
func (r *resolver) compile(ctx context.Context, p *player, file string) (*player, error) {
	if r.sb == nil {
		sb, err := r.sbo.open(r.stderr)
		if err != nil {
			return nil, err
		}
		r.sb = sb
	}
	prog, err := r.sb.Compile(ctx, []byte(p.source))
	if err != nil {
		var ve *sandbox.ValidationError
		if errors.As(err, &ve) {
			ve.File = file
		}
		return nil, err
	}
	if r.cross != nil {
		if err := r.sbo.crossCheck(ctx, r.sb, prog, []byte(p.source), *r.cross, r.crossSeed, file, r.stderr); err != nil {
			prog.Close()
			return nil, err
		}
	}
	p.actor = prog.Actor()
	return p, nil
}
