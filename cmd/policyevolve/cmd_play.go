package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"policyevolve/baselines/qlearn"
	"policyevolve/envs"
	"policyevolve/envs/ssd"
	"policyevolve/evolve/episode"
	"policyevolve/render"
	"policyevolve/sandbox"
)

// playOptions are the flags of "play".
type playOptions struct {
	game   string
	mapArg string
	agents int
	policy string
	seeds  string
	steps  int
	json   bool
	trace  string
	sandboxOptions
	watchOptions
}

func cmdPlay(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var o playOptions
	fs := newFlagSet("play", "[flags]", `
Run one policy for every agent of a game over several seeds and print each
episode's social metrics (efficiency, equality, sustainability, peace), the
per-agent returns and their means.

--policy takes a built-in policy, a Go source file (FILE.go, see
"policyevolve validate --help" for the contract), which runs in the sandbox:
one worker process per episode, never inside this process, or a Q-table
trained by "policyevolve qlearn train" (qlearn:FILE), played greedily.

--watch draws each episode in the terminal as it is replayed, one frame per
step at --fps frames a second, then prints the table; Ctrl-C stops it and
restores the terminal. It needs a terminal on stdout (for files, see
"policyevolve render").

Built-in policies: `+builtinList()+`.
Built-in maps: gathering `+strings.Join(envs.BuiltinMaps(ssd.Gathering), ", ")+
		`; cleanup `+strings.Join(envs.BuiltinMaps(ssd.Cleanup), ", ")+`.
Any other --map value is read as a map file.`, stdout)
	fs.StringVar(&o.game, "game", "gathering", "game: gathering or cleanup")
	fs.StringVar(&o.mapArg, "map", "", "built-in map name or map file (default: large for gathering, default for cleanup)")
	fs.IntVar(&o.agents, "agents", 10, "number of agents")
	fs.StringVar(&o.policy, "policy", "bfs", "policy every agent plays: a built-in name, a FILE.go or qlearn:FILE")
	fs.StringVar(&o.seeds, "seeds", "0-4", "episode seeds: N, A-B, or a comma-separated list of both")
	fs.IntVar(&o.steps, "steps", envs.DefaultMaxSteps, "steps per episode")
	fs.BoolVar(&o.json, "json", false, "print JSON instead of a table")
	fs.StringVar(&o.trace, "trace", "", "write every step of every episode to this JSON-lines file (format: docs/trace.md)")
	o.sandboxOptions.register(fs)
	o.watchOptions.register(fs)
	if err := parseFlags(fs, args, false); err != nil {
		return err
	}
	return runPlay(ctx, o, stdout, stderr)
}

func builtinList() string {
	var parts []string
	for _, n := range envs.BuiltinPolicies() {
		parts = append(parts, n+" ("+envs.BuiltinDoc(n)+")")
	}
	return strings.Join(parts, "; ")
}

// playReport is the JSON output of "play".
type playReport struct {
	Game     string        `json:"game"`
	Map      string        `json:"map"`
	Agents   int           `json:"agents"`
	Policy   string        `json:"policy"`
	Steps    int           `json:"steps"`
	Episodes []playEpisode `json:"episodes"`
	// Mean is over the episodes that did not fail; none when all failed
	// (each failed episode carries its error).
	Mean *playEpisode `json:"mean,omitempty"`
}

type playEpisode struct {
	Seed    *uint64      `json:"seed,omitempty"`
	Metrics envs.Metrics `json:"metrics"`
	Returns []float64    `json:"returns"`
	Error   string       `json:"error,omitempty"` // the policy failed: why
	Steps   int          `json:"steps_completed,omitempty"`
}

func runPlay(ctx context.Context, o playOptions, stdout, stderr io.Writer) error {
	env, m, err := o.env()
	if err != nil {
		return err
	}
	seeds, err := parseSeeds(o.seeds)
	if err != nil {
		return usagef("--seeds: %v", err)
	}
	var watch *watcher
	if o.watch {
		if o.json {
			return usagef("--watch draws in the terminal; it does not go with --json")
		}
		if watch, err = o.newWatcher(stdout, env.Layout().Width); err != nil {
			return err
		}
	}
	loader := policyLoader{game: env.Game(), sandbox: &o.sandboxOptions, stderr: stderr}
	defer loader.close()
	actor, source, err := loader.actor(ctx, "--policy", o.policy)
	if err != nil {
		return err
	}
	prog := loader.last
	if watch != nil {
		watch.start()
		defer watch.restore()
	}
	all := make([]int, o.agents)
	for i := range all {
		all[i] = i
	}
	seats := []envs.Seat{{Actor: actor, Agents: all}}
	var trace *traceFile
	if o.trace != "" {
		f, err := os.Create(o.trace)
		if err != nil {
			return fmt.Errorf("--trace: %w", err)
		}
		trace = &traceFile{c: f, w: bufio.NewWriter(f)}
		defer trace.close()
	}
	header := traceHeader{Game: env.Game().String(), Map: o.mapArg, MapText: m.Text, Agents: o.agents, Steps: o.steps, Policy: o.policy}
	rep := playReport{Game: env.Game().String(), Map: o.mapArg, Agents: o.agents, Policy: o.policy, Steps: o.steps}
	mean := playEpisode{Returns: make([]float64, o.agents)}
	var failed []uint64
	silence := watchSilence("play", "starting", stderr)
	defer silence.Stop()
	for i, seed := range seeds {
		silence.doing("playing seed %d (episode %d of %d)", seed, i+1, len(seeds))
		// Source policies run with the state-hash check on.
		// They are recorded too, for the cross-check.
		opt := envs.Options{Seed: seed, Verify: source, Record: trace != nil || watch != nil || source}
		var res *envs.Result
		if source {
			// Played inside the policy's worker, replayed and checked here.
			res, err = prog.SelfPlay(ctx, env.Config(), opt)
		} else {
			res, err = envs.Run(ctx, env, seats, opt)
		}
		s := seed
		var pe *sandbox.PolicyError
		played := res != nil && (err == nil || errors.As(err, &pe))
		if source && played {
			// On yaegi, the same episode compiled must choose the same
			// actions (this map, these agents, this seed).
			if cerr := o.sandboxOptions.compareEpisode(ctx, loader.sb, prog, env.Config(), res, o.policy, stderr); cerr != nil {
				return cerr
			}
		}
		if trace != nil && played {
			failure := ""
			if err != nil {
				failure = err.Error()
			}
			if err := writeTrace(trace.w, header, res, failure); err != nil {
				return fmt.Errorf("--trace %s: %w", o.trace, err)
			}
		}
		if watch != nil && played {
			title := fmt.Sprintf("%s on %s, policy %s, seed %d", env.Game(), o.mapArg, o.policy, seed)
			if err := watch.episode(ctx, res.Trajectory, render.Options{}, title); err != nil {
				return err
			}
		}
		if errors.As(err, &pe) {
			// A failing policy is a result: record it and go on.
			rep.Episodes = append(rep.Episodes, playEpisode{Seed: &s, Metrics: res.Metrics, Returns: res.Returns,
				Error: pe.Error(), Steps: res.Steps})
			failed = append(failed, seed)
			continue
		}
		if err != nil {
			return fmt.Errorf("seed %d: %w", seed, err)
		}
		rep.Episodes = append(rep.Episodes, playEpisode{Seed: &s, Metrics: res.Metrics, Returns: res.Returns})
		mm := &mean.Metrics
		mm.Efficiency += res.Metrics.Efficiency
		mm.Equality += res.Metrics.Equality
		mm.Sustainability += res.Metrics.Sustainability
		mm.Peace += res.Metrics.Peace
		for i, r := range res.Returns {
			mean.Returns[i] += r
		}
	}
	if k := float64(len(seeds) - len(failed)); k > 0 {
		mm := &mean.Metrics
		mm.Efficiency /= k
		mm.Equality /= k
		mm.Sustainability /= k
		mm.Peace /= k
		for i := range mean.Returns {
			mean.Returns[i] /= k
		}
		rep.Mean = &mean
	}

	if trace != nil {
		if err := trace.close(); err != nil {
			return fmt.Errorf("--trace %s: %w", o.trace, err)
		}
	}
	var failure error
	if len(failed) > 0 {
		failure = fmt.Errorf("the policy failed on %d of %d seeds (%v); means are over the others", len(failed), len(seeds), failed)
		if len(failed) == len(seeds) {
			failure = fmt.Errorf("the policy failed on every seed: %s", rep.Episodes[0].Error)
		}
	}
	if o.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
		return failure
	}
	if watch != nil {
		fmt.Fprintln(stdout)
	}
	stdout = termSafeWriter{stdout} // a failure quotes the policy's panic
	plural := "s"
	if len(seeds) == 1 {
		plural = ""
	}
	fmt.Fprintf(stdout, "%s on %s, %d agents, policy %s, %d steps, %d seed%s\n\n",
		rep.Game, rep.Map, rep.Agents, rep.Policy, rep.Steps, len(seeds), plural)
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "seed\tefficiency\tequality\tsustainability\tpeace\t  returns")
	row := func(label string, e playEpisode, format string) {
		m := e.Metrics
		rs := make([]string, len(e.Returns))
		for i, r := range e.Returns {
			rs[i] = fmt.Sprintf(format, r)
		}
		fmt.Fprintf(tw, "%s\t%.4f\t%.4f\t%.2f\t%.3f\t  %s\n", label, m.Efficiency, m.Equality, m.Sustainability, m.Peace, strings.Join(rs, " "))
	}
	for _, e := range rep.Episodes {
		if e.Error != "" {
			fmt.Fprintf(tw, "%d\t\t\t\t\t  failed after %d steps: %s\n", *e.Seed, e.Steps, e.Error)
			continue
		}
		row(fmt.Sprint(*e.Seed), e, "%g")
	}
	if rep.Mean != nil {
		row("mean", *rep.Mean, "%.1f")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return failure
}

// env checks the flags that choose the environment and builds it (their
// ranges are flagRules'). An empty --map becomes the game's default map.
func (o *playOptions) env() (*envs.Env, *envs.Map, error) {
	game, err := ssd.ParseGame(o.game)
	if err != nil {
		return nil, nil, usagef("--game: %v", err)
	}
	if o.mapArg == "" {
		o.mapArg = envs.DefaultMap(game)
	}
	m, err := episode.ResolveMap(game, o.mapArg)
	if err != nil {
		return nil, nil, usagef("--map: %v", err)
	}
	env, err := envs.New(envs.Config{Map: m, Agents: o.agents, MaxSteps: o.steps})
	if err != nil {
		return nil, nil, usagef("%v", err)
	}
	return env, m, nil
}

// policyLoader turns policy flags into actors. It opens the sandbox once,
// for the first source policy.
type policyLoader struct {
	game    ssd.Game // for Q-tables, which are trained for one game
	sandbox *sandboxOptions
	stderr  io.Writer // the sandbox's notices
	sb      *sandbox.Sandbox
	progs   []*sandbox.Program // compiled so far, for close
	last    *sandbox.Program   // the program of the last source actor
}

// close ends the idle workers of the programs compiled.
func (l *policyLoader) close() {
	for _, p := range l.progs {
		p.Close()
	}
}

// actor returns the actor for a policy flag's value: a built-in, a
// trained Q-table (qlearn:FILE), or a source file compiled in the sandbox
// (source == true). flag names the flag in errors.
func (l *policyLoader) actor(ctx context.Context, flag, policy string) (actor envs.Actor, source bool, err error) {
	if path, ok := qlearnFile(policy); ok {
		tab, err := loadQTable(path, l.game)
		if err != nil {
			return nil, false, usagef("%s: %v", flag, err)
		}
		return qlearn.NewActor(tab), false, nil
	}
	if !strings.HasSuffix(policy, ".go") {
		factory, err := envs.Builtin(policy)
		if err != nil {
			return nil, false, usagef("%s: %v (or a FILE.go)", flag, err)
		}
		return &envs.PolicyActor{New: factory}, false, nil
	}
	src, err := readSource(policy)
	if err != nil {
		return nil, true, usagef("%s: %v", flag, err)
	}
	if l.sb == nil {
		if l.sb, err = l.sandbox.open(l.stderr); err != nil {
			return nil, true, err
		}
	}
	prog, err := l.sb.Compile(ctx, src)
	if err != nil {
		var ve *sandbox.ValidationError
		if errors.As(err, &ve) {
			ve.File = policy
		}
		return nil, true, err
	}
	l.progs = append(l.progs, prog)
	l.last = prog
	return prog.Actor(), true, nil
}
