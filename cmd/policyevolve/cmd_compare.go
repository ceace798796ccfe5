package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"policyevolve/baselines/qlearn"
	"policyevolve/evolve"
	"policyevolve/evolve/episode"
	"policyevolve/evolve/experiment"
	"policyevolve/evolve/planner"
	"policyevolve/internal/outfile"
	"policyevolve/pool"
)

type compareOptions struct {
	envOptions
	storeOptions
	sandboxOptions
	llm         llmOptions
	budget      int
	runs        int
	seed        uint64
	seeds       string
	matchSeeds  string
	heldOut     string
	candidates  int
	localRounds int
	localStop   int
	recheck     int
	parentOrder string
	refine      string
	workers     int
	out         string
	json        bool
	// gepaFeedback lists the feedback levels of GEPA's reflections, a row
	// each; qlearnEpisodes is the Q-learner's training length.
	gepaFeedback   string
	qlearnEpisodes int
	// chainFeedback lists the chain's feedback levels, a row each;
	// zeroShot adds the chain's initial policies as a row; suite "paper"
	// sets both to the paper's Table 1.
	chainFeedback string
	zeroShot      bool
	suite         string
	// transfer and invaders add the experiment's extra tables.
	transfer, invaders bool
	transferMaps       stringList // map files the transfer table adds
	promptStyle        string
	promptStyles       string // chain rows, one per prompt style
	adversarial        bool
	objective          pool.Objective
	robustMargin       float64
}

// compareDoc is compare's help.
const compareDoc = `
Does population search beat the paper's single chain for the same number
of planner calls? compare runs the chain, population search and GEPA-style
prompt evolution with the same planner (the offline grammar planner, or
--llm; GEPA takes the first) and the same budget of planner calls
(--budget; a call is one proposal, and one GEPA reflection), --runs times
each with seeds --seed, --seed+1, …, each run in a pool of its own. GEPA's
reflections see the reward only, as in the paper; --gepa-feedback
sparse,critic adds a row "gepa-critic" whose reflections see the
trajectory critic's findings too, and --gepa-feedback none leaves GEPA
out. The row qlearn is the paper's tabular
Q-learner, trained once per game and seed (--qlearn-episodes, the paper's
1000) with no planner call: its wall time is its training time. Then
compare plays a league of every champion and the baselines bfs, exploit
and coop.

--chain-feedback sparse,dense,critic makes a chain row per feedback level
(chain-sparse, …; raw shows a trajectory excerpt instead of the critic's
reflections); --zero-shot adds the chain runs' initial policies
(iteration 0, before any feedback) as a row; --suite paper is both: the
rows of the paper's Table 1 (zero-shot, chain sparse and dense, with our
raw and critic levels, population, GEPA, Q-learner, BFS) under one
budget, with the transfer and invader tables (policyevolve experiment is
the same). With --llm, --prompt-styles naive,cot,react adds a chain row
per prompt style (PolicyEvolve's prompting baselines; the paper suite
adds all three).

--objective (welfare by default) is what every run selects for: under
welfare a population run's champion is its best in self-play, under elo
its top-rated candidate in its pool (PolicyEvolve's); the table says
which. The league's rating is always that of mixed matches.

It prints a Table-1-style report — per method, efficiency, equality,
sustainability and peace as mean (min–max) over runs, league rating,
exploitability (the worst margin by which a league member beats it),
planner calls, LLM calls, tokens, cost and wall time — as Markdown, then
each searching method's best-so-far curve (the best self-play efficiency
among the policies its first N planner calls wrote, mean over runs) and,
with --held-out 100-129, every champion replayed in self-play on seeds no
search saw (with two runs or more, each method's held-out mean minus the
chain's, ± its standard error over the runs); -o PREFIX also writes it
to PREFIX.csv and PREFIX.json with the runs' ids (no file is written
without -o: the table is stored with the runs, and "report CMP_ID"
draws it). The runs (and the Q-learner's
trainings) are stored: compare again with the same flags reuses (or
resumes) them, and a method's run finished by another comparison whose
settings that method reads are the same is reused too ("reused" in the
log): after a change to a population setting (--local-rounds,
--parent-order, --candidates, …) only the population runs again.`

func cmdCompare(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return compareCommand(ctx, "compare", compareDoc, "", args, stdout, stderr)
}

// compareCommand parses compare's flags, under a command's name and help
// (compare, experiment) and with its default suite, and runs it.
func compareCommand(ctx context.Context, name, doc, suite string, args []string, stdout, stderr io.Writer) error {
	var o compareOptions
	fs := newFlagSet(name, "[flags]", doc, stdout)
	o.envOptions.register(fs)
	o.storeOptions.register(fs)
	o.sandboxOptions.register(fs)
	o.llm.register(fs)
	o.objective = pool.DefaultObjective
	objectiveFlag(fs, &o.objective, "what the runs select for: their pools' games, promotion and champions (default welfare)")
	fs.Float64Var(&o.robustMargin, "robust-margin", 0, fmt.Sprintf("--objective robust: the share of the residents' per-agent return a lone invader may gain (default %g)", pool.DefaultRobustMargin))
	fs.IntVar(&o.budget, "budget", 12, "planner calls per run")
	fs.IntVar(&o.runs, "runs", 3, "runs per method")
	fs.Uint64Var(&o.seed, "seed", 1, "seed of the first run")
	fs.StringVar(&o.seeds, "seeds", "0-4", "self-play evaluation seeds: N, A-B or a comma-separated list")
	fs.StringVar(&o.matchSeeds, "match-seeds", "0", "match seeds (candidates' matches and the league)")
	fs.StringVar(&o.heldOut, "held-out", "", "also replay each champion in self-play on these seeds, which no search sees (e.g. 100-129): a held-out table")
	fs.IntVar(&o.candidates, "candidates", evolve.DefaultCandidates, "population candidates per iteration")
	fs.IntVar(&o.localRounds, "local-rounds", evolve.DefaultLocalRounds, "population local refinement rounds (0: none)")
	fs.IntVar(&o.localStop, "local-stop", evolve.DefaultLocalStop, "population: end a candidate's local refinement after this many rounds in a row that did not improve it (0: play every round)")
	fs.IntVar(&o.recheck, "recheck", evolve.DefaultRecheck, "chain and population: play a contender for champion on this many seeds after the evaluation seeds too, and crown it on the mean over both (0: the evaluation seeds alone); --held-out seeds must be others")
	fs.StringVar(&o.parentOrder, "parent-order", evolve.DefaultParentOrder, "population: how parents are handed to candidates: lead (half the candidates improve the best, the rest the next best), best (candidate k the k-th best) or shuffled")
	fs.StringVar(&o.refine, "refine", evolve.DefaultRefine, "population: which candidates are refined locally: race (the best first; one that cannot lead its iteration is not refined) or all")
	fs.IntVar(&o.workers, "workers", 0, "episodes played at once (default: the number of CPUs); never changes the results")
	promptStyleFlag(fs, &o.promptStyle)
	fs.StringVar(&o.promptStyles, "prompt-styles", "", "with --llm, also a chain row per prompt style (chain-STYLE, dense feedback): standard, naive, cot, react — PolicyEvolve's prompting baselines; --suite paper adds naive,cot,react")
	fs.BoolVar(&o.adversarial, "adversarial", false, "tell the LLM planner it may do anything to maximise the reward (the paper's adaptive attacker); the refusals table counts what the sandbox refused")
	fs.StringVar(&o.chainFeedback, "chain-feedback", "dense", "feedback levels of the chain, a row each (chain-LEVEL when more than one): sparse, dense, raw, critic")
	fs.BoolVar(&o.transfer, "transfer", false, "also play each champion on every built-in map of the game (a transfer table)")
	fs.Var(&o.transferMaps, "transfer-map", "a map file the transfer table plays on too (repeatable; implies --transfer)")
	fs.BoolVar(&o.invaders, "invaders", false, "also find each champion's worst invader among the league's players (k = 1)")
	fs.BoolVar(&o.zeroShot, "zero-shot", false, "add a zero-shot row: the chain runs' initial policies (iteration 0)")
	fs.StringVar(&o.suite, "suite", suite, "paper: the paper's Table 1 rows — zero-shot, chain sparse, dense, raw and critic, population, GEPA, Q-learner, baselines")
	fs.StringVar(&o.gepaFeedback, "gepa-feedback", "sparse", "feedback levels of GEPA's reflections, a row each: sparse (the paper's), dense, critic; none: no GEPA row")
	fs.IntVar(&o.qlearnEpisodes, "qlearn-episodes", qlearn.DefaultEpisodes, "training episodes of the Q-learner row (0: no qlearn row)")
	fs.StringVar(&o.out, "o", "", "also write the report to `PREFIX`.csv and PREFIX.json (default: no files)")
	fs.BoolVar(&o.json, "json", false, "print the report as JSON instead of Markdown")
	if err := parseFlags(fs, args, false); err != nil {
		return err
	}
	return runCompare(ctx, o, stdout, stderr)
}

func runCompare(ctx context.Context, o compareOptions, stdout, stderr io.Writer) error {
	if err := noTarget(o.objective); err != nil {
		return err
	}
	if o.robustMargin != 0 && !o.objective.InvasionTest() {
		return usagef("--robust-margin is the margin of --objective robust")
	}
	switch o.suite {
	case "":
	case "paper":
		o.chainFeedback = strings.Join(experiment.PaperChainFeedback, ",")
		o.zeroShot, o.transfer, o.invaders = true, true, true
	default:
		return usagef("--suite: unknown suite %q (want paper)", o.suite)
	}
	x := &experiment.Experiment{Runs: o.runs, Seed: o.seed, ZeroShot: o.zeroShot, QLearnEpisodes: o.qlearnEpisodes,
		Invaders: o.invaders, TransferMaps: o.transferMaps}
	levels := strings.Split(o.chainFeedback, ",")
	for _, level := range levels {
		m, err := experiment.Chain(strings.TrimSpace(level), len(levels) > 1)
		if err != nil {
			return usagef("--chain-feedback: %v", err)
		}
		x.AddMethod(m)
	}
	if o.suite == "paper" && o.promptStyles == "" && len(o.llm.specs) > 0 {
		o.promptStyles = strings.Join(experiment.PaperPromptStyles, ",")
	}
	if o.promptStyles != "" {
		if len(o.llm.specs) == 0 {
			return usagef("--prompt-styles needs --llm: the offline planner writes no prompts")
		}
		for _, st := range strings.Split(o.promptStyles, ",") {
			m, err := experiment.Styled(strings.TrimSpace(st))
			if err != nil {
				return usagef("--prompt-styles: %v", err)
			}
			x.AddMethod(m)
		}
	}
	x.AddMethod(experiment.Population())
	for _, level := range strings.Split(o.gepaFeedback, ",") {
		if strings.TrimSpace(level) == "none" {
			continue
		}
		m, err := experiment.GEPA(strings.TrimSpace(level))
		if err != nil {
			return usagef("--gepa-feedback: %v", err)
		}
		x.AddMethod(m)
	}
	env, err := o.envOptions.resolve()
	if err != nil {
		return err
	}
	for _, m := range o.transferMaps {
		// Checked now, not after hours of runs.
		if _, err := episode.ResolveEnv(o.game, m, env.Config.Agents, env.Config.MaxSteps); err != nil {
			return usagef("--transfer-map: %v", err)
		}
		o.transfer = true
	}
	x.Transfer = o.transfer
	evalSeeds, err := parseSeeds(o.seeds)
	if err != nil {
		return usagef("--seeds: %v", err)
	}
	matchSeeds, err := parseSeeds(o.matchSeeds)
	if err != nil {
		return usagef("--match-seeds: %v", err)
	}
	if o.heldOut != "" {
		if x.HeldOut, err = parseSeeds(o.heldOut); err != nil {
			return usagef("--held-out: %v", err)
		}
	}
	planners := []string{planner.GrammarName}
	if len(o.llm.specs) > 0 {
		if err := o.llm.check(); err != nil {
			return err
		}
		planners = nil
		for _, spec := range o.llm.specs {
			planners = append(planners, "llm:"+spec)
		}
	}
	if o.out != "" {
		// Checked now, not after hours of runs.
		for _, ext := range []string{".csv", ".json"} {
			f, err := outfile.Create(o.out + ext)
			if err != nil {
				return usagef("-o: %v", err)
			}
			f.Discard()
		}
	}
	x.Base = evolve.JobConfig{Game: o.game, Map: o.mapArg, Agents: o.agents, Steps: o.steps, EvalSeeds: evalSeeds,
		MatchSeeds: matchSeeds, Planners: planners, MaxPlannerCalls: o.budget, Workers: o.workers, Backend: o.backend,
		Candidates: o.candidates, LocalRounds: evolve.On(o.localRounds), LocalStop: evolve.On(o.localStop), Recheck: evolve.On(o.recheck), ParentOrder: o.parentOrder,
		Refine: o.refine, PromptStyle: o.promptStyle, Adversarial: o.adversarial, Objective: o.objective, RobustMargin: o.robustMargin}
	if len(o.llm.specs) > 0 {
		x.Base.LLM, x.Base.Endpoints = o.llm.settings(), o.llm.endpoints()
	}
	// Checked now, not after the first method's runs.
	if err := x.Validate(); err != nil {
		return usagef("%v", err)
	}
	if x.Store, err = o.storeOptions.open(createStore); err != nil {
		return err
	}
	if x.Sandbox, err = o.sandboxOptions.open(stderr); err != nil {
		return err
	}
	x.Planner = func(cfg evolve.JobConfig) evolve.PlannerFunc {
		return o.llm.planners(x.Store, &cfg)
	}
	// Off a terminal, a line every half minute says where the jobs are.
	progress := newEvolveProgress(nil, stderr, false)
	progress.quiet, progress.prefix = true, "compare: "
	defer progress.heartbeat(progressEvery)()
	x.OnJob = func(j *evolve.Job) func() {
		j.Events = progress
		progress.setActivity(j.Activity)
		return onInterrupt(j.Stop)
	}
	x.TrainProgress = func(episodes int) (func(qlearn.EpisodeStats), func()) {
		p := newTrainProgress(stderr, episodes)
		return p.episode, p.finish
	}
	x.Log = func(format string, args ...any) {
		progress.logf("compare: "+format, args...)
		progress.setNote(fmt.Sprintf(format, args...))
	}
	report, err := x.Run(ctx)
	if err != nil {
		return err
	}
	if o.out != "" {
		if err := report.WriteFiles(o.out); err != nil {
			return err
		}
	}
	if o.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(report)
	}
	report.WriteMarkdown(stdout)
	if o.out != "" {
		fmt.Fprintf(stderr, "compare: wrote %s.csv and %s.json\n", o.out, o.out)
	}
	fmt.Fprintf(stderr, "compare: an HTML report: %s report %s -o %s.html%s\n", self(), report.ID, report.ID, storeFlag(o.storeOptions))
	return nil
}
