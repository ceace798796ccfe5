package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"text/tabwriter"
	"time"

	"policyevolve/critic"
	"policyevolve/evolve"
	"policyevolve/evolve/episode"
	"policyevolve/evolve/planner"
	"policyevolve/evolve/timing"
	"policyevolve/internal/plural"
	"policyevolve/llm"
	"policyevolve/pool"
	"policyevolve/store"
)

// evolveOptions are the flags of "evolve".
type evolveOptions struct {
	cfg evolve.JobConfig
	// localRounds, crossoverRate, localStop and recheck set cfg's
	// options (0: none).
	localRounds   int
	crossoverRate float64
	localStop     int
	recheck       int
	seeds         string
	matchSeeds    string
	planner       string
	resume        string
	json          bool
	envOptions
	storeOptions
	sandboxOptions
	llm  llmOptions
	nats coordinatorOptions
}

func cmdEvolve(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var o evolveOptions
	fs := newFlagSet("evolve", "[flags]", `
Run an evolution job: the main job of policyevolve.

--mode population (the default) is PolicyEvolve's search: each iteration
picks parents from the global pool by Pareto rank over Elo, the social
metrics and exploitability (the best by the objective first within a
front, half the candidates improving the best: --parent-order), has the
planner write --candidates candidates
(each refined up to --local-rounds times against the trajectory critic's
reflections, until a round does not improve it: --local-stop), evaluates
them in self-play, plays each against --opponents pool members, promotes
those whose win rate is above the threshold and trims the pool.
--mode chain is the paper's Algorithm 1: an initial policy
and --iterations refinements shown sparse, dense, critic or raw feedback
(raw: an excerpt of the raw trajectory instead of the critic's
reflections).
--objective says what a population run selects for (docs/objectives.md):
welfare, the default, crowns the policy whose group does best in
self-play, and a game between two pool members compares their self-play
seed by seed; elo is PolicyEvolve's competitive objective, a game a mixed
match won by the higher per-agent return; robust is welfare among the
policies that resist invasion (no pool member, seated as one agent among
a policy's own, out-earns them by more than --robust-margin of their
return); exploit (with --against POLICY, and --k K invaders, 1 by
default) scores each candidate as an invader: its per-agent return when K
copies of it sit among residents running POLICY on the evaluation seeds,
and crowns the best invader. Promotion (a win rate above the threshold)
and Elo count the objective's games, and each objective has a global pool
of its own (exploit: one per target).
--mode gepa is GEPA-style prompt evolution, the paper's third baseline:
it evolves the strategy guidance of the planner's system prompt — a seed
candidate, then --iterations reflections (each reads a parent's policy
and its reward per seed, sparse by default as in the paper, and counts as
a planner call) — keeping a Pareto front over the evaluation seeds; it
takes one planner.

Without --llm the offline grammar planner writes the policies (no key, no
network). --llm may be given several times: a UCB1 bandit then picks the
model of each proposal. Every flag can come from a TOML or YAML file
(--config FILE, keys named as the flags; the command line wins).

The job survives Ctrl-C (the first stops at a safe point and prints how to
resume; the second abandons the step in flight) and kill -9: resume with
--resume RUN_ID. Watch it from another shell with "pool ls" and "runs show".
One process drives a run: a --resume of a run another live process drives
is refused naming it; a run whose process was killed reads "interrupted"
in runs ls and is taken over by --resume. Keep the store on a local disk
(a network file system is refused).

With --nats, the episodes are played by evaluation workers ("policyevolve
worker") fed by a NATS JetStream queue: --nats embedded runs the server in
this process, admitting no client without credentials (given none, it
generates a token in STORE.nats-token for the workers). The coordinator
replays a sample of every worker's results and ignores a worker caught
forging: the results are those of a local run. A stop (the first Ctrl-C)
says what it waits for on the workers, and with none connected gives up
the step in flight after 30s.`, stdout)
	o.envOptions.register(fs)
	fs.StringVar(&o.cfg.Mode, "mode", evolve.ModePopulation, "search mode: population, chain or gepa")
	fs.Uint64Var(&o.cfg.Seed, "seed", 1, "run seed: every random choice derives from it")
	fs.StringVar(&o.seeds, "seeds", "0-4", "self-play evaluation seeds: N, A-B or a comma-separated list")
	fs.StringVar(&o.matchSeeds, "match-seeds", "0", "seeds of each candidate's matches")
	fs.IntVar(&o.cfg.Iterations, "iterations", 0, fmt.Sprintf("population iterations (default %d), or chain refinements / gepa reflections K (default %d)",
		evolve.DefaultPopulationIterations, evolve.DefaultChainIterations))
	fs.IntVar(&o.cfg.Candidates, "candidates", evolve.DefaultCandidates, "candidates per population iteration (M)")
	fs.IntVar(&o.cfg.Pool.Opponents, "opponents", 4, "opponents each candidate plays (n)")
	fs.StringVar(&o.cfg.Feedback, "feedback", "", "feedback shown to the planner: sparse, dense, critic or raw (default: critic for population, dense for chain, sparse for gepa's reflections)")
	promptStyleFlag(fs, &o.cfg.PromptStyle)
	fs.BoolVar(&o.cfg.Adversarial, "adversarial", false, "tell the LLM planner it may do anything to maximise the reward (the paper's adaptive attacker); runs show counts what the sandbox refused")
	objectiveFlag(fs, &o.cfg.Objective, "what the run selects for — what a game in its global pool counts, who is promoted, who is champion (default welfare; a resumed run keeps its own)")
	fs.Float64Var(&o.cfg.RobustMargin, "robust-margin", 0, fmt.Sprintf("--objective robust: the share of the residents' per-agent return a lone invader may gain (default %g)", pool.DefaultRobustMargin))
	fs.StringVar(&o.cfg.Against, "against", "", "--objective exploit: the policy the residents run, whom each candidate invades — a built-in name or a stored policy's id (unique prefix)")
	fs.IntVar(&o.cfg.Invaders, "k", 0, "--objective exploit: how many agents run the candidate among the residents (default 1; 1 to agents − 1)")
	fs.BoolVar(&o.cfg.Invasion, "invasion", false, "population: make invasion resistance a parent-selection objective (each parent's worst invader among the pool's members, k = 1)")
	fs.IntVar(&o.localRounds, "local-rounds", evolve.DefaultLocalRounds, "local refinement rounds per candidate (0: none)")
	fs.Float64Var(&o.crossoverRate, "crossover-rate", evolve.DefaultCrossoverRate, "share of candidates that cross two parents (0: none)")
	fs.IntVar(&o.localStop, "local-stop", evolve.DefaultLocalStop, "end a candidate's local refinement after this many rounds in a row that did not improve it (0: play every round)")
	fs.IntVar(&o.recheck, "recheck", evolve.DefaultRecheck, "chain and population: play a contender for champion (and, in a population, for the lead of the parents) on this many seeds after\nthe evaluation seeds too, and rank it by its mean over both (0: the evaluation seeds alone decide)")
	fs.StringVar(&o.cfg.ParentOrder, "parent-order", evolve.DefaultParentOrder, "how parents are handed to candidates: lead (each Pareto front ordered best first by the objective — self-play efficiency, or the rating under elo — and half the candidates improve the first, the rest the next ones), best (candidate k takes the k-th) or shuffled (each front in a random order)")
	fs.StringVar(&o.cfg.Refine, "refine", evolve.DefaultRefine, "which candidates are refined locally: race (one at a time, the best first version first; a candidate whose first version is below the best a refined one of its iteration reached is not refined) or all (every one)")
	fs.StringVar(&o.planner, "planner", "", "grammar: the offline planner (the default without --llm; with --llm, also in the bandit)")
	fs.IntVar(&o.cfg.Pool.Capacity, "pool-capacity", 16, "global pool capacity")
	fs.Float64Var(&o.cfg.Pool.PromoteThreshold, "promote-threshold", 0.6, "win rate a candidate must beat to join the pool")
	fs.IntVar(&o.cfg.Workers, "workers", 0, "episodes played at once (default: the number of CPUs); never changes the results")
	fs.IntVar(&o.cfg.PlannerConcurrency, "planner-concurrency", 0, "candidates proposed at once (default: --candidates with an LLM planner and no --max-planner-calls, else 1);\nnever changes the results, but for which calls a cost or token budget stops")
	fs.IntVar(&o.cfg.MaxPlannerCalls, "max-planner-calls", 0, "stop after this many planner calls (proposals; 0: no limit)")
	fs.Float64Var(&o.cfg.MaxCost, "max-cost", 0, "US dollars the LLM calls may cost: a call is sent only if its worst case (max tokens at the model's price)\nfits in what is left (0: no limit); every model needs a price (--prices)")
	fs.IntVar(&o.cfg.MaxTokens, "max-tokens", 0, "LLM tokens, in and out, the calls may take: a call is sent only if its worst case fits (0: no limit)")
	fs.DurationVar(&o.cfg.MaxTime, "time", 0, "stop after this much wall-clock time, e.g. 2h (0: no limit)")
	fs.StringVar(&o.cfg.Critic, "critic", "analytic", "who writes the reflections: analytic, or llm (the first --llm)")
	fs.StringVar(&o.resume, "resume", "", "resume the run RUN_ID where it stopped: its stored configuration decides, but for where its models are\nserved (--llm SPEC@URL, --llm-base-url, --llm-key-env, --llm-timeout, --llm-retries, the config file's models table)\nand its budgets, which --iterations, --max-planner-calls, --max-cost, --max-tokens and --time may raise (a finished run goes on;\nruns show lists the extensions); a flag that would change any other setting is refused")
	fs.BoolVar(&o.json, "json", false, "write machine-readable events (JSON lines) on stdout instead of progress")
	fs.String("config", "", "read flags from a TOML or YAML file")
	o.storeOptions.register(fs)
	o.sandboxOptions.register(fs)
	o.llm.register(fs)
	o.nats.register(fs)
	if path := configFlag(args); path != "" {
		if err := applyConfigFile(fs, path); err != nil {
			return err
		}
	}
	if err := parseFlags(fs, args, false); err != nil {
		return err
	}
	return runEvolve(ctx, o, stdout, stderr)
}

func runEvolve(ctx context.Context, o evolveOptions, stdout, stderr io.Writer) error {
	cfg := o.cfg
	if err := o.nats.check(); err != nil {
		return err
	}
	admitOn := &cfg // the configuration whose environment admission plays
	if o.resume == "" {
		var err error
		if cfg.EvalSeeds, err = parseSeeds(o.seeds); err != nil {
			return usagef("--seeds: %v", err)
		}
		if cfg.MatchSeeds, err = parseSeeds(o.matchSeeds); err != nil {
			return usagef("--match-seeds: %v", err)
		}
		if _, err := o.envOptions.resolve(); err != nil {
			return err
		}
		cfg.Game, cfg.Map, cfg.Agents, cfg.Steps = o.game, o.mapArg, o.agents, o.steps
		cfg.AdmitOnRunEnv = true
		if o.planner != "" && o.planner != planner.GrammarName {
			return usagef("--planner: %q is not a planner (grammar; an LLM is named with --llm)", o.planner)
		}
		for _, spec := range o.llm.specs {
			cfg.Planners = append(cfg.Planners, "llm:"+spec)
		}
		if len(o.llm.specs) == 0 || o.planner == planner.GrammarName {
			cfg.Planners = append(cfg.Planners, planner.GrammarName)
		}
		if len(o.llm.specs) > 0 {
			if err := o.llm.check(); err != nil {
				return err
			}
			if err := o.llm.checkBudget(cfg.MaxCost); err != nil {
				return err
			}
			cfg.LLM, cfg.Endpoints = o.llm.settings(), o.llm.endpoints()
		}
		if cfg.Critic == "llm" && len(o.llm.specs) == 0 {
			return usagef("--critic llm needs a model: --llm PROVIDER:MODEL")
		}
		cfg.Backend = o.backend
		// 0 (or less) asks for none.
		cfg.LocalRounds, cfg.CrossoverRate = evolve.On(o.localRounds), evolve.On(o.crossoverRate)
		cfg.LocalStop, cfg.Recheck = evolve.On(o.localStop), evolve.On(o.recheck)
		if cfg.RobustMargin != 0 && !cfg.Objective.InvasionTest() {
			return usagef("--robust-margin is the margin of --objective robust")
		}
		if cfg.Against != "" && !cfg.Objective.Exploits() {
			return usagef("--against names the target of --objective exploit")
		}
		if cfg.Invaders != 0 && !cfg.Objective.Exploits() {
			return usagef("--k counts the invaders of --objective exploit")
		}
		cfg = cfg.WithDefaults()
		if err := cfg.Validate(); err != nil {
			return usagef("%v", err)
		}
	}
	s, err := o.storeOptions.open(createStore)
	if err != nil {
		return err
	}
	var extend evolve.Budgets // what a resume carries further
	if o.resume == "" && cfg.Objective.Exploits() {
		if cfg.Against, err = evolve.ResolveTarget(s, cfg.Against); err != nil {
			return usagef("%v", err)
		}
	}
	if o.resume != "" && (cfg.Against != "" || cfg.Invaders != 0) {
		return usagef("--against and --k: run %s resumes against the target it started with (resume it without them)", o.resume)
	}
	if o.resume != "" {
		// The stored configuration decides; the LLM settings come back from it.
		var run *store.Run
		if err := s.View(func(tx *store.Tx) (err error) {
			run, err = tx.Run(o.resume)
			return err
		}); errors.Is(err, store.ErrNotFound) {
			return fmt.Errorf("--resume: %w", noRun(o.resume, o.storeOptions))
		} else if err != nil {
			return fmt.Errorf("--resume: %w", err)
		}
		var stored evolve.JobConfig
		if err := json.Unmarshal(run.Config, &stored); err != nil {
			return fmt.Errorf("run %s: its configuration does not read: %w", o.resume, err)
		}
		if cfg.Objective != "" && cfg.Objective != stored.Objective {
			return usagef("--objective %s: run %s was started with objective %s and resumes only under it", cfg.Objective, o.resume, stored.Objective)
		}
		if err := o.checkSeeds(stored); err != nil {
			return err
		}
		if extend, err = o.resumeFlags(o.llm.fs, stored); err != nil {
			return err
		}
		now := o.llm
		o.llm.apply(stored.LLM, stored.Planners, stored.Endpoints)
		changes, err := o.llm.move(&now, stored.LLM)
		if err != nil {
			return err
		}
		for _, c := range changes {
			fmt.Fprintf(stderr, "policyevolve evolve: resume: %s\n", c)
		}
		cfg.Endpoints = o.llm.endpoints()
		if len(o.llm.specs) > 0 {
			if err := o.llm.checkBudget(stored.MaxCost); err != nil {
				return err
			}
		}
		o.backend = stored.Backend
		admitOn = &stored
	}
	if admitOn.AdmitOnRunEnv {
		if env, err := episode.ResolveEnv(admitOn.Game, admitOn.Map, admitOn.Agents, admitOn.Steps); err == nil {
			o.sandboxOptions.setEnv(env)
		}
	}
	if len(o.llm.specs) > 0 && cfg.MaxCost == 0 {
		o.llm.warnUnpriced(stderr)
	}
	sb, err := o.sandboxOptions.open(stderr)
	if err != nil {
		return err
	}
	progress := newEvolveProgress(stdout, stderr, o.json)
	// The coordinator's own executor replays a sample of the workers'
	// results (distrib.VerifyConfig).
	replay := &episode.Local{Sandbox: sb, Workers: cfg.Workers}
	defer replay.Close()
	remote, closeNATS, err := o.nats.start(ctx, o.storeOptions.path, sb.Backend(), replay, stderr, progress.logf)
	if err != nil {
		return err
	}
	defer closeNATS()
	job := &evolve.Job{Config: cfg, Store: s, Sandbox: sb, RunID: o.resume, Extend: extend}
	if remote != nil {
		job.Executor = remote
		defer progress.watchQueue(remote.Stats, progress.queueEvery())()
	}
	job.Planner = o.llm.planners(s, &job.Config)
	job.Critic = func(run string, gate llm.Gate) (critic.Critic, error) {
		if job.Config.Critic != "llm" {
			return nil, nil
		}
		client, err := o.llm.client(&planner.LLMRecorder{Store: s, Run: run}, gate)
		if err != nil {
			return nil, err
		}
		return &critic.LLM{Model: planner.CriticModel{Client: client}, Name: client.Name()}, nil
	}
	job.Events = progress
	progress.setActivity(job.Activity)
	defer progress.heartbeat(progressEvery)()
	// With workers, the first interrupt also watches what the job waits
	// for, and gives up the step in flight when no worker is there.
	runCtx, abandon := context.WithCancel(ctx)
	defer abandon()
	var watching struct {
		sync.Mutex
		over bool
		wg   sync.WaitGroup
	}
	release := onInterrupt(func() {
		progress.logf("policyevolve evolve: stopping at the next safe point (Ctrl-C again to abandon the step in flight)")
		job.Stop()
		if remote == nil {
			return
		}
		watching.Lock()
		defer watching.Unlock()
		if watching.over {
			return
		}
		watching.wg.Go(func() {
			watchStop(runCtx, remote.Stats, func() string {
				if id := progress.runID(); id != "" {
					return fmt.Sprintf("%s evolve --resume %s%s", self(), id, storeFlag(o.storeOptions))
				}
				return ""
			}, stopWatchEvery, stopNoWorkersAfter, stderr, abandon)
		})
	})
	defer func() {
		watching.Lock()
		watching.over = true
		watching.Unlock()
		abandon()
		watching.wg.Wait()
	}()
	defer release()
	run, err := job.Run(runCtx)
	progress.close()
	if errors.Is(err, evolve.ErrRunDone) {
		// Nothing to resume: say so, and show the run as it ended.
		if err := s.View(func(tx *store.Tx) (err error) {
			run, err = tx.Run(o.resume)
			return err
		}); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "policyevolve evolve: %s is done already (%s): nothing to resume (--iterations above its own carries it further)\n", run.ID, evolve.IterationsDone(run.Iterations))
		return printRunSummary(stdout, s, run, nil, o.json, storeFlag(o.storeOptions))
	}
	if errors.Is(err, evolve.ErrBudgetShrunk) {
		return usagef("--resume: %v", err)
	}
	var held *store.LeaseHeldError
	if errors.As(err, &held) {
		return fmt.Errorf("%w\nsee it with: %s runs show %s%s (one process drives a run; resume it once that one has ended)",
			err, self(), held.Lease.Run, storeFlag(o.storeOptions))
	}
	if err != nil {
		if run != nil && errors.Is(err, context.Canceled) {
			fmt.Fprintf(stderr, "policyevolve evolve: abandoned; resume with: %s evolve --resume %s%s\n", self(), run.ID, storeFlag(o.storeOptions))
		}
		return err
	}
	prof := job.Profile()
	if err := printRunSummary(stdout, s, run, &prof, o.json, storeFlag(o.storeOptions)); err != nil {
		return err
	}
	if run.Stopped() == store.StopInterrupted {
		return context.Canceled // exit 130
	}
	return nil
}

// checkSeeds refuses, on a resume, seeds given that are not the run's:
// the seeds decide what the run does.
func (o *evolveOptions) checkSeeds(stored evolve.JobConfig) error {
	if flagGiven(o.llm.fs, "seed") && o.cfg.Seed != stored.Seed {
		return usagef("--resume: the run's seed cannot change (it is %d)", stored.Seed)
	}
	for _, f := range []struct {
		name, value string
		stored      []uint64
	}{{"seeds", o.seeds, stored.EvalSeeds}, {"match-seeds", o.matchSeeds, stored.MatchSeeds}} {
		if !flagGiven(o.llm.fs, f.name) {
			continue
		}
		seeds, err := parseSeeds(f.value)
		if err != nil {
			return usagef("--%s: %v", f.name, err)
		}
		if !slices.Equal(slices.Compact(slices.Sorted(slices.Values(seeds))), f.stored) {
			return usagef("--resume: the run's --%s cannot change (they are %v)", f.name, f.stored)
		}
	}
	return nil
}

// printRunSummary prints how a run ended: its champion with its metrics,
// where this process's time went (prof, when known), and the commands to
// look further.
func printRunSummary(w io.Writer, s *store.Store, run *store.Run, prof *timing.Totals, asJSON bool, storeArg string) error {
	var ev *store.Evaluation
	var member string // where its pool has the champion, or why not
	var cfg evolve.JobConfig
	if err := json.Unmarshal(run.Config, &cfg); err != nil {
		return err
	}
	if run.Champion != "" {
		env, err := episode.ResolveEnv(cfg.Game, cfg.Map, cfg.Agents, cfg.Steps)
		if err != nil {
			return err
		}
		if err := s.View(func(tx *store.Tx) (err error) {
			ev, err = tx.Evaluation(run.Champion, env.Config, cfg.EvalSeeds)
			if errors.Is(err, store.ErrNotFound) {
				err = nil
			}
			if err != nil {
				return err
			}
			its, err := tx.Iterations(run.ID)
			if err != nil {
				return err
			}
			member, err = championMembership(tx, run, cfg, its)
			return err
		}); err != nil {
			return err
		}
	}
	if asJSON {
		return json.NewEncoder(w).Encode(struct {
			Kind       string            `json:"kind"`
			Run        *store.Run        `json:"run"`
			Evaluation *store.Evaluation `json:"champion_evaluation,omitempty"`
		}{"summary", run, ev})
	}
	fmt.Fprintf(w, "\nrun %s: %s", run.ID, run.Status)
	if run.StopReason != "" {
		fmt.Fprintf(w, ": %s", run.StopReason)
	}
	fmt.Fprintf(w, " — %s (%d of %d); %s, %s, %s, %s, %s\n",
		evolve.IterationsDone(run.Iterations), run.Iterations, cfg.TotalIterations(), plural.N(run.Usage.Proposals, "planner call"), plural.N(run.Usage.LLMCalls, "LLM call"),
		run.Usage.CostWords(), plural.N(run.Usage.Episodes, "episode"), (time.Duration(run.Usage.WallSeconds) * time.Second).String())
	if prof != nil && prof.Total() > 0 {
		fmt.Fprintf(w, "time in this process, summed over workers: %s\n", prof)
	}
	if run.Champion == "" {
		fmt.Fprintln(w, "no champion yet")
	} else {
		fmt.Fprintf(w, "champion by %s: %s\n", cfg.ChampionBy(), run.Champion)
		if ev != nil {
			tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
			fmt.Fprintln(tw, "seed\tefficiency\tequality\tsustainability\tpeace\t")
			for _, sr := range ev.PerSeed {
				fmt.Fprintf(tw, "%d\t%.4f\t%.4f\t%.2f\t%.3f\t\n", sr.Seed, sr.Metrics.Efficiency, sr.Metrics.Equality, sr.Metrics.Sustainability, sr.Metrics.Peace)
			}
			m := ev.Mean
			fmt.Fprintf(tw, "mean, seeds %s\t%.4f\t%.4f\t%.2f\t%.3f\t\n", seedWords(ev.Seeds), m.Efficiency, m.Equality, m.Sustainability, m.Peace)
			tw.Flush()
			// The figure the run crowned it by, when it was rechecked
			// on further seeds (runs show, pool ls and pool show give it).
			rechecked, err := rechecks(s, cfg, []store.Iteration{{Champion: run.Champion}})
			if err != nil {
				return err
			}
			if r, ok := rechecked[run.Champion]; ok {
				fmt.Fprintf(w, "efficiency %s: the figure it was crowned by\n", r)
			}
		}
		if member != "" {
			fmt.Fprintf(w, "champion: %s\n", member)
		}
	}
	fmt.Fprintln(w, "\nlook further:")
	fmt.Fprintf(w, "  %s runs show %s%s\n", self(), run.ID, storeArg)
	if run.Champion != "" {
		fmt.Fprintf(w, "  %s pool show %.12s%s\n", self(), run.Champion, storeArg)
	}
	fmt.Fprintf(w, "  %s pool ls --game %s%s\n", self(), cfg.Game, storeArg)
	fmt.Fprintf(w, "  %s report %s -o %s.html%s\n", self(), run.ID, run.ID, storeArg)
	if run.Status == store.StatusStopped && !evolve.StoppedByBudget(run) {
		fmt.Fprintf(w, "  %s evolve --resume %s%s    # carry on\n", self(), run.ID, storeArg)
	}
	return nil
}
