package main

import (
	"context"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"
	"time"

	"policyevolve/baselines/qlearn"
	"policyevolve/envs/ssd"
	"policyevolve/evolve"
	"policyevolve/evolve/episode"
	"policyevolve/sandbox"
	"policyevolve/store"
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
	candidates  int
	localRounds int
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
trajectory critic's findings too. The row qlearn is the paper's tabular
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

It prints a Table-1-style report — per method, efficiency, equality,
sustainability and peace as mean (min–max) over runs, league rating,
exploitability (the worst margin by which a league member beats it),
planner calls, LLM calls, tokens, cost and wall time — as Markdown, and
writes it to PREFIX.csv and PREFIX.json with the runs' ids. The runs (and
the Q-learner's trainings) are stored: compare again with the same flags
reuses (or resumes) them.`

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
	fs.IntVar(&o.budget, "budget", 12, "planner calls per run")
	fs.IntVar(&o.runs, "runs", 3, "runs per method")
	fs.Func("seed", "seed of the first run (default 1)", func(s string) error {
		_, err := fmt.Sscan(s, &o.seed)
		return err
	})
	o.seed = 1
	fs.StringVar(&o.seeds, "seeds", "0-4", "self-play evaluation seeds")
	fs.StringVar(&o.matchSeeds, "match-seeds", "0", "match seeds (candidates' matches and the league)")
	fs.IntVar(&o.candidates, "candidates", evolve.DefaultCandidates, "population candidates per iteration")
	fs.IntVar(&o.localRounds, "local-rounds", evolve.DefaultLocalRounds, "population local refinement rounds (0: none)")
	fs.IntVar(&o.workers, "workers", 0, "episodes played at once (default: the CPUs)")
	promptStyleFlag(fs, &o.promptStyle)
	fs.StringVar(&o.promptStyles, "prompt-styles", "", "with --llm, also a chain row per prompt style (chain-STYLE, dense feedback): standard, naive, cot, react — PolicyEvolve's prompting baselines; --suite paper adds naive,cot,react")
	fs.BoolVar(&o.adversarial, "adversarial", false, "tell the LLM planner it may do anything to maximise the reward (the paper's adaptive attacker); the refusals table counts what the sandbox refused")
	fs.StringVar(&o.chainFeedback, "chain-feedback", "dense", "feedback levels of the chain, a row each (chain-LEVEL when more than one): sparse, dense, raw, critic")
	fs.BoolVar(&o.transfer, "transfer", false, "also play each champion on every built-in map of the game (a transfer table)")
	fs.Var(&o.transferMaps, "transfer-map", "a map file the transfer table plays on too (repeatable; implies --transfer)")
	fs.BoolVar(&o.invaders, "invaders", false, "also find each champion's worst invader among the league's players (k = 1)")
	fs.BoolVar(&o.zeroShot, "zero-shot", false, "add a zero-shot row: the chain runs' initial policies (iteration 0)")
	fs.StringVar(&o.suite, "suite", suite, "paper: the paper's Table 1 rows — zero-shot, chain sparse, dense, raw and critic, population, GEPA, Q-learner, baselines")
	fs.StringVar(&o.gepaFeedback, "gepa-feedback", "sparse", "feedback levels of GEPA's reflections, a row each: sparse (the paper's), dense, critic")
	fs.IntVar(&o.qlearnEpisodes, "qlearn-episodes", qlearn.DefaultEpisodes, "training episodes of the Q-learner row (0: no qlearn row)")
	fs.StringVar(&o.out, "o", "compare", "write the report to PREFIX.csv and PREFIX.json")
	fs.BoolVar(&o.json, "json", false, "print the report as JSON instead of Markdown")
	if err := parseFlags(fs, args, false); err != nil {
		return err
	}
	return runCompare(ctx, o, stdout, stderr)
}

// compareRow is one line of the report.
type compareRow struct {
	compareExtras
	Method         string   `json:"method"`
	Runs           []string `json:"runs,omitempty"`
	Champions      []string `json:"champions"`
	Efficiency     stat     `json:"efficiency"`
	Equality       stat     `json:"equality"`
	Sustainability stat     `json:"sustainability"`
	Peace          stat     `json:"peace"`
	Rating         stat     `json:"league_rating"`
	Exploitability stat     `json:"exploitability"`
	PlannerCalls   stat     `json:"planner_calls"`
	LLMCalls       stat     `json:"llm_calls"`
	Tokens         stat     `json:"tokens"`
	Cost           stat     `json:"cost"`
	WallSeconds    stat     `json:"wall_seconds"`
}

// stat is a mean with its range over runs.
type stat struct {
	Mean float64 `json:"mean"`
	Min  float64 `json:"min"`
	Max  float64 `json:"max"`
	N    int     `json:"n"`
}

func (s *stat) add(v float64) {
	if s.N == 0 || v < s.Min {
		s.Min = v
	}
	if s.N == 0 || v > s.Max {
		s.Max = v
	}
	s.Mean = (s.Mean*float64(s.N) + v) / float64(s.N+1)
	s.N++
}

func (s stat) String() string {
	switch {
	case s.N == 0:
		return "-"
	case s.N == 1 || s.Min == s.Max:
		return trimFloat(s.Mean)
	}
	return fmt.Sprintf("%s (%s–%s)", trimFloat(s.Mean), trimFloat(s.Min), trimFloat(s.Max))
}

func trimFloat(v float64) string {
	switch a := math.Abs(v); {
	case a >= 100:
		return fmt.Sprintf("%.1f", v)
	case a >= 10:
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%.3f", v)
}

// compareReport is the JSON output.
type compareReport struct {
	ID             string          `json:"id"` // for "report ID"
	Env            store.EnvConfig `json:"env"`
	Budget         int             `json:"budget"`
	Runs           int             `json:"runs"`
	Seeds          []uint64        `json:"seeds"`
	QLearnEpisodes int             `json:"qlearn_episodes,omitempty"`
	Rows           []compareRow    `json:"rows"`
}

func runCompare(ctx context.Context, o compareOptions, stdout, stderr io.Writer) error {
	if o.budget < 1 || o.runs < 1 {
		return usagef("--budget and --runs must be at least 1")
	}
	if o.qlearnEpisodes < 0 {
		return usagef("--qlearn-episodes must not be negative (got %d)", o.qlearnEpisodes)
	}
	switch o.suite {
	case "":
	case "paper":
		o.chainFeedback, o.zeroShot, o.transfer, o.invaders = "sparse,dense,raw,critic", true, true, true
	default:
		return usagef("--suite: unknown suite %q (want paper)", o.suite)
	}
	var methods []compareMethod
	levels := strings.Split(o.chainFeedback, ",")
	for _, level := range levels {
		level = strings.TrimSpace(level)
		if _, err := evolve.ParseFeedback(level); err != nil {
			return usagef("--chain-feedback: %v", err)
		}
		m := compareMethod{label: evolve.ModeChain, mode: evolve.ModeChain, feedback: level}
		if len(levels) > 1 {
			m.label += "-" + level
		}
		if !slices.ContainsFunc(methods, func(x compareMethod) bool { return x.label == m.label }) {
			methods = append(methods, m)
		}
	}
	if o.suite == "paper" && o.promptStyles == "" && len(o.llm.specs) > 0 {
		o.promptStyles = "naive,cot,react"
	}
	if o.promptStyles != "" {
		if len(o.llm.specs) == 0 {
			return usagef("--prompt-styles needs --llm: the offline planner writes no prompts")
		}
		level := string(evolve.Dense)
		for _, st := range strings.Split(o.promptStyles, ",") {
			st = strings.TrimSpace(st)
			style, err := evolve.ParsePromptStyle(st)
			if err != nil {
				return usagef("--prompt-styles: %v", err)
			}
			m := compareMethod{label: evolve.ModeChain + "-" + st, mode: evolve.ModeChain, feedback: level, style: style, styled: true}
			if !slices.ContainsFunc(methods, func(x compareMethod) bool { return x.label == m.label }) {
				methods = append(methods, m)
			}
		}
	}
	methods = append(methods, compareMethod{label: evolve.ModePopulation, mode: evolve.ModePopulation})
	for _, level := range strings.Split(o.gepaFeedback, ",") {
		level = strings.TrimSpace(level)
		if _, err := evolve.ParseFeedback(level); err != nil {
			return usagef("--gepa-feedback: %v", err)
		}
		m := compareMethod{label: evolve.ModeGEPA, mode: evolve.ModeGEPA, feedback: level}
		if level != string(evolve.Sparse) {
			m.label += "-" + level
		}
		if !slices.ContainsFunc(methods, func(x compareMethod) bool { return x.label == m.label }) {
			methods = append(methods, m)
		}
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
	evalSeeds, err := parseSeeds(o.seeds)
	if err != nil {
		return usagef("--seeds: %v", err)
	}
	matchSeeds, err := parseSeeds(o.matchSeeds)
	if err != nil {
		return usagef("--match-seeds: %v", err)
	}
	planners := []string{evolve.GrammarName}
	if len(o.llm.specs) > 0 {
		if err := o.llm.check(); err != nil {
			return err
		}
		planners = nil
		for _, spec := range o.llm.specs {
			planners = append(planners, "llm:"+spec)
		}
	}
	s, err := o.storeOptions.open(createStore)
	if err != nil {
		return err
	}
	sb, err := o.sandboxOptions.open(stderr)
	if err != nil {
		return err
	}
	base := evolve.JobConfig{Game: o.game, Map: o.mapArg, Agents: o.agents, Steps: o.steps, EvalSeeds: evalSeeds,
		MatchSeeds: matchSeeds, Planners: planners, MaxPlannerCalls: o.budget, Workers: o.workers, Backend: o.backend,
		Candidates: o.candidates, LocalRounds: o.localRounds, PromptStyle: o.promptStyle, Adversarial: o.adversarial}
	if o.localRounds == 0 {
		base.LocalRounds = -1
	}
	if len(o.llm.specs) > 0 {
		base.LLM = o.llm.settings()
	}
	// The comparison's identity: rerunning it finds its runs again.
	id := compareID(base, o.runs, o.seed)
	// zero-shot: the first chain method's initial policies.
	var zero zeroShotRow
	report := compareReport{ID: id, Env: env.Config, Budget: o.budget, Runs: o.runs, Seeds: evalSeeds, QLearnEpisodes: o.qlearnEpisodes}
	for _, m := range methods {
		row := compareRow{Method: m.label}
		for r := 0; r < o.runs; r++ {
			cfg := base
			cfg.Mode, cfg.Seed = m.mode, o.seed+uint64(r)
			cfg.Iterations = o.budget // an upper bound: the budget stops the run
			cfg.PoolTag = fmt.Sprintf("%s-%s-%d", id, m.label, r)
			switch m.mode {
			case evolve.ModeGEPA:
				cfg.Planners, cfg.Feedback = planners[:1], m.feedback
			case evolve.ModeChain:
				cfg.Feedback = m.feedback
			}
			if m.styled {
				cfg.PromptStyle = m.style
			}
			fmt.Fprintf(stderr, "compare: %s run %d/%d (seed %d)\n", m.label, r+1, o.runs, cfg.Seed)
			run, err := compareRun(ctx, s, sb, &o, cfg, stderr)
			if err != nil {
				return err
			}
			row.addRun(run)
			if o.zeroShot && m.mode == evolve.ModeChain && (zero.from == "" || zero.from == m.label) {
				if err := zero.addInitial(s, run, m.label); err != nil {
					return err
				}
			}
		}
		report.Rows = append(report.Rows, row)
	}
	if o.zeroShot {
		// Before the searches, as in the paper's table.
		report.Rows = slices.Insert(report.Rows, 0, zero.compareRow)
	}
	if o.qlearnEpisodes > 0 {
		row := compareRow{Method: "qlearn"}
		for r := 0; r < o.runs; r++ {
			run, err := qlearnRun(ctx, s, env, o.seed+uint64(r), o.qlearnEpisodes, stderr)
			if err != nil {
				return err
			}
			row.addRun(run)
		}
		report.Rows = append(report.Rows, row)
	}
	// The league: every champion and the baselines, in a pool of the
	// comparison's own.
	arena := &evolve.Arena{Store: s, Sandbox: sb, Env: env, EvalSeeds: evalSeeds, MatchSeeds: matchSeeds,
		PoolTag: id, Workers: o.workers}
	defer arena.Close()
	if err := arena.EnsureBaselines(ctx); err != nil {
		return err
	}
	baselineIDs := map[string]string{}
	if err := s.View(func(tx *store.Tx) error {
		ms, err := tx.Members(arena.GlobalPool())
		for _, m := range ms {
			p, err := tx.Policy(m.Policy)
			if err != nil {
				return err
			}
			baselineIDs[p.Builtin] = p.ID
		}
		return err
	}); err != nil {
		return err
	}
	var players []string
	seen := map[string]bool{}
	addPlayer := func(id string) {
		if !seen[id] {
			seen[id] = true
			players = append(players, id)
		}
	}
	for _, row := range report.Rows {
		for _, c := range row.Champions {
			addPlayer(c)
		}
	}
	for _, name := range []string{"bfs", "exploit", "coop"} {
		addPlayer(baselineIDs[name])
		report.Rows = append(report.Rows, compareRow{Method: name, Champions: []string{baselineIDs[name]}})
	}
	fmt.Fprintf(stderr, "compare: league of %d policies\n", len(players))
	// Names for the players in the extra tables: "bfs", or the method
	// whose champion it is and a short id.
	playerName := func(id string) string {
		for _, row := range report.Rows {
			if slices.Contains(row.Champions, id) {
				if row.Runs == nil {
					return row.Method
				}
				return fmt.Sprintf("%s %.8s", row.Method, id)
			}
		}
		return fmt.Sprintf("%.8s", id)
	}
	game, _ := ssd.ParseGame(env.Config.Game)
	if o.transfer || o.invaders {
		fmt.Fprintf(stderr, "compare: transfer %v, invaders %v\n", o.transfer, o.invaders)
	}
	league, err := arena.League(ctx, players, matchSeeds)
	if err != nil {
		return err
	}
	ex := league.Exploitability()
	index := map[string]int{}
	for i, p := range players {
		index[p] = i
	}
	for k := range report.Rows {
		row := &report.Rows[k]
		for _, c := range row.Champions {
			ev, err := arena.Evaluate(ctx, c)
			if err != nil {
				return err
			}
			row.Efficiency.add(ev.Mean.Efficiency)
			row.Equality.add(ev.Mean.Equality)
			row.Sustainability.add(ev.Mean.Sustainability)
			row.Peace.add(ev.Mean.Peace)
			i := index[c]
			row.Rating.add(league.Ratings[i])
			row.Exploitability.add(math.Max(0, -ex[i].Margin))
		}
		if err := addRefusals(s, row); err != nil {
			return err
		}
		if o.transfer {
			if err := addTransfer(ctx, arena, row, evolve.TransferMaps(game, o.transferMaps)); err != nil {
				return err
			}
		}
		if o.invaders {
			if err := addInvaders(ctx, arena, row, players, playerName); err != nil {
				return err
			}
		}
	}
	// Stored, for "report ID": the table as computed, rows in order.
	b, err := json.Marshal(report)
	if err != nil {
		return err
	}
	if err := s.Update(func(tx *store.Tx) error {
		return tx.PutComparison(&store.Comparison{ID: report.ID, Report: b})
	}); err != nil {
		return fmt.Errorf("store the comparison: %w", err)
	}
	if err := writeCompareFiles(o.out, report); err != nil {
		return err
	}
	if o.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(report)
	}
	writeCompareMarkdown(stdout, report)
	writeCompareExtras(stdout, report)
	fmt.Fprintf(stderr, "compare: wrote %s.csv and %s.json; an HTML report: policyevolve report %s -o %s.html%s\n",
		o.out, o.out, report.ID, o.out, storeFlag(o.storeOptions))
	return nil
}

// compareMethod is a searching row of the report: its label and the job
// mode (and, for GEPA, the reflections' feedback level) behind it.
type compareMethod struct {
	label, mode, feedback string
	// style, when styled, is the prompt style of the method's runs
	// ("" is standard); otherwise they take --prompt-style.
	style  string
	styled bool
}

// zeroShotRow gathers the zero-shot row from the chain runs of one
// method (from): each run's iteration-0 policy and what it cost.
type zeroShotRow struct {
	compareRow
	from string
}

func (z *zeroShotRow) addInitial(s *store.Store, run *store.Run, from string) error {
	z.Method, z.from = "zero-shot", from
	var its []store.Iteration
	if err := s.View(func(tx *store.Tx) (err error) {
		its, err = tx.Iterations(run.ID)
		return err
	}); err != nil {
		return err
	}
	z.Runs = append(z.Runs, run.ID)
	if len(its) == 0 || its[0].Index != 0 {
		return nil
	}
	u := its[0].Usage
	z.PlannerCalls.add(float64(u.Proposals))
	z.LLMCalls.add(float64(u.LLMCalls))
	z.Tokens.add(float64(u.InputTokens + u.OutputTokens))
	z.Cost.add(u.Cost)
	if !its[0].Finished.IsZero() {
		z.WallSeconds.add(its[0].Finished.Sub(its[0].Started).Seconds())
	}
	if c := candidateOf(its[0], 0); c != nil && c.Policy != "" && c.Status != store.CandidateFailed {
		z.Champions = append(z.Champions, c.Policy)
	}
	return nil
}

// addRun adds a run's spending and champion to the row.
func (r *compareRow) addRun(run *store.Run) {
	r.Runs = append(r.Runs, run.ID)
	u := run.Usage
	r.PlannerCalls.add(float64(u.Proposals))
	r.LLMCalls.add(float64(u.LLMCalls))
	r.Tokens.add(float64(u.InputTokens + u.OutputTokens))
	r.Cost.add(u.Cost)
	r.WallSeconds.add(u.WallSeconds)
	if run.Champion != "" {
		r.Champions = append(r.Champions, run.Champion)
	}
}

// qlearnConfig is the stored configuration of a Q-learner's training for
// compare, a run of mode "qlearn" whose champion is the trained table and
// whose wall time is the training time. Its keys are JobConfig's where
// they mean the same, so that "runs ls" shows its environment (and its
// episodes as iterations).
type qlearnConfig struct {
	Mode       string `json:"mode"`
	Game       string `json:"game"`
	Map        string `json:"map"`
	Agents     int    `json:"agents"`
	Steps      int    `json:"steps"`
	Seed       uint64 `json:"seed"`
	Iterations int    `json:"iterations"` // training episodes
}

// qlearnRun returns the training of the Q-learner on env from seed for
// episodes: found in the store, or trained now (and stored with its
// training time) — once per environment, seed and length.
func qlearnRun(ctx context.Context, s *store.Store, env episode.Env, seed uint64, episodes int, stderr io.Writer) (*store.Run, error) {
	cfg := qlearnConfig{Mode: "qlearn", Game: env.Config.Game, Map: env.Config.Map, Agents: env.Config.Agents,
		Steps: env.Config.MaxSteps, Seed: seed, Iterations: episodes}
	raw, err := json.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	var found *store.Run
	if err := s.View(func(tx *store.Tx) error {
		runs, err := tx.Runs()
		for i := range runs {
			var c qlearnConfig
			if runs[i].Status == store.StatusDone && json.Unmarshal(runs[i].Config, &c) == nil && c == cfg {
				found = &runs[i]
			}
		}
		return err
	}); err != nil || found != nil {
		return found, err
	}
	fmt.Fprintf(stderr, "compare: qlearn, seed %d: training %d episodes\n", seed, episodes)
	prog := newTrainProgress(stderr, episodes)
	start := time.Now()
	tab, err := qlearn.Train(ctx, qlearn.Config{Map: env.Map, MapName: env.Config.Map, Agents: env.Config.Agents,
		Episodes: episodes, Seed: seed, MaxSteps: env.Config.MaxSteps, OnEpisode: prog.episode})
	prog.finish()
	if err != nil {
		return nil, fmt.Errorf("qlearn: %w", err)
	}
	took := time.Since(start).Seconds()
	p, err := episode.QLearnPolicy(tab, fmt.Sprintf("qlearn-%s-seed%d-%dep", env.Config.Key(), seed, episodes))
	if err != nil {
		return nil, err
	}
	run := &store.Run{Mode: cfg.Mode, Config: raw, Seed: seed, Status: store.StatusDone, Iterations: episodes,
		Usage: store.RunUsage{Episodes: episodes, WallSeconds: took}, Started: start.UTC()}
	if err := s.Update(func(tx *store.Tx) error {
		if _, err := tx.PutPolicy(p); err != nil {
			return err
		}
		run.Champion = p.ID // set by PutPolicy
		return tx.CreateRun(run)
	}); err != nil {
		return nil, err
	}
	fmt.Fprintf(stderr, "compare: qlearn, seed %d: trained in %.1fs, %d of %d states visited (%s)\n",
		seed, took, tab.Len(), tab.StateSpace(), run.ID)
	return run, nil
}

// compareID names a comparison by what decides its results.
func compareID(base evolve.JobConfig, runs int, seed uint64) string {
	b, _ := json.Marshal(struct {
		Base evolve.JobConfig
		Runs int
		Seed uint64
	}{base, runs, seed})
	sum := sha256.Sum256(b)
	return "cmp-" + hex.EncodeToString(sum[:4])
}

// compareRun returns the run of cfg: found done in the store, resumed, or
// started.
func compareRun(ctx context.Context, s *store.Store, sb *sandbox.Sandbox, o *compareOptions, cfg evolve.JobConfig, stderr io.Writer) (*store.Run, error) {
	var found *store.Run
	if err := s.View(func(tx *store.Tx) error {
		runs, err := tx.Runs()
		for i := range runs {
			var c evolve.JobConfig
			if json.Unmarshal(runs[i].Config, &c) == nil && c.PoolTag == cfg.PoolTag && c.Mode == cfg.Mode {
				found = &runs[i]
			}
		}
		return err
	}); err != nil {
		return nil, err
	}
	// A run the budget stopped is as finished as a done one: the budget is
	// part of the comparison's identity. Resuming it would only add to its
	// wall time. An interrupted (or abandoned) run is resumed.
	if found != nil && (found.Status == store.StatusDone || evolve.StoppedByBudget(found)) {
		return found, nil
	}
	job := &evolve.Job{Config: cfg, Store: s, Sandbox: sb}
	if found != nil {
		job.RunID = found.ID
	}
	job.Planner = func(spec, run string) (evolve.Planner, error) {
		if spec == evolve.GrammarName {
			return &evolve.GrammarPlanner{Workers: cfg.Workers}, nil
		}
		client, err := o.llm.clientFor(strings.TrimPrefix(spec, "llm:"), &evolve.LLMRecorder{Store: s, Run: run})
		if err != nil {
			return nil, err
		}
		ps, err := o.llm.promptSet()
		if err != nil {
			return nil, err
		}
		return &evolve.LLMPlanner{Client: client, Prompts: ps, Style: cfg.PromptStyle, Adversarial: cfg.Adversarial}, nil
	}
	release := onInterrupt(job.Stop)
	defer release()
	run, err := job.Run(ctx)
	if err != nil {
		return nil, err
	}
	if run.StopReason == evolve.StopInterrupted {
		return nil, context.Canceled
	}
	fmt.Fprintf(stderr, "compare: %s: %s after %d iterations, %d planner calls, champion %.12s\n",
		run.ID, run.Status, run.Iterations, run.Usage.Proposals, run.Champion)
	return run, nil
}

var compareColumns = []string{"method", "efficiency", "equality", "sustainability", "peace", "league rating",
	"exploitability", "planner calls", "LLM calls", "tokens", "cost ($)", "wall time (s)"}

func (r compareRow) cells() []string {
	return []string{r.Method, r.Efficiency.String(), r.Equality.String(), r.Sustainability.String(), r.Peace.String(),
		r.Rating.String(), r.Exploitability.String(), r.PlannerCalls.String(), r.LLMCalls.String(), r.Tokens.String(),
		r.Cost.String(), r.WallSeconds.String()}
}

func writeCompareMarkdown(w io.Writer, rep compareReport) {
	fmt.Fprintf(w, "%s, %d agents, %d steps: %d runs per method, %d planner calls per run, self-play seeds %v\n\n",
		rep.Env.Game+" on "+rep.Env.Map, rep.Env.Agents, rep.Env.MaxSteps, rep.Runs, rep.Budget, rep.Seeds)
	fmt.Fprintf(w, "| %s |\n|%s\n", strings.Join(compareColumns, " | "), strings.Repeat("---|", len(compareColumns)))
	for _, r := range rep.Rows {
		fmt.Fprintf(w, "| %s |\n", strings.Join(r.cells(), " | "))
	}
	fmt.Fprintln(w, "\nmean (min–max) over runs; a baseline is one policy. Exploitability: the largest margin by which a league member beats it (0: none does).")
	if rep.QLearnEpisodes > 0 {
		fmt.Fprintf(w, "qlearn: the tabular Q-learner trained for %d episodes per seed, with no planner call; its wall time is its training time.\n", rep.QLearnEpisodes)
	}
}

func writeCompareFiles(prefix string, rep compareReport) error {
	js, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(prefix+".json", append(js, '\n'), 0o644); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	f, err := os.Create(prefix + ".csv")
	if err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	cw := csv.NewWriter(f)
	head := []string{"method"}
	for _, c := range compareColumns[1:] {
		head = append(head, c+" mean", c+" min", c+" max")
	}
	cw.Write(append(head, "runs", "champions"))
	for _, r := range rep.Rows {
		rec := []string{r.Method}
		for _, s := range []stat{r.Efficiency, r.Equality, r.Sustainability, r.Peace, r.Rating, r.Exploitability,
			r.PlannerCalls, r.LLMCalls, r.Tokens, r.Cost, r.WallSeconds} {
			rec = append(rec, fmt.Sprint(s.Mean), fmt.Sprint(s.Min), fmt.Sprint(s.Max))
		}
		cw.Write(append(rec, strings.Join(r.Runs, " "), strings.Join(r.Champions, " ")))
	}
	cw.Flush()
	return errors.Join(cw.Error(), f.Close())
}
