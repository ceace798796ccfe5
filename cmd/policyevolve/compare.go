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
	"strings"

	"policyevolve/evolve"
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
}

func cmdCompare(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var o compareOptions
	fs := newFlagSet("compare", "[flags]", `
Does population search beat the paper's single chain for the same number
of planner calls? compare runs both with the same planner (the offline
grammar planner, or --llm) and the same budget of planner calls
(--budget; a call is one proposal), --runs times each with seeds --seed,
--seed+1, …, each population run in a pool of its own; then plays a
league of every champion and the baselines bfs, exploit and coop.

It prints a Table-1-style report — per method, efficiency, equality,
sustainability and peace as mean (min–max) over runs, league rating,
exploitability (the worst margin by which a league member beats it),
planner calls, LLM calls, tokens, cost and wall time — as Markdown, and
writes it to PREFIX.csv and PREFIX.json with the runs' ids. The runs are
stored: compare again with the same flags reuses (or resumes) them.`, stdout)
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
	fs.StringVar(&o.out, "o", "compare", "write the report to PREFIX.csv and PREFIX.json")
	fs.BoolVar(&o.json, "json", false, "print the report as JSON instead of Markdown")
	if err := parseFlags(fs, args, false); err != nil {
		return err
	}
	return runCompare(ctx, o, stdout, stderr)
}

// compareRow is one line of the report.
type compareRow struct {
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
	Env    store.EnvConfig `json:"env"`
	Budget int             `json:"budget"`
	Runs   int             `json:"runs"`
	Seeds  []uint64        `json:"seeds"`
	Rows   []compareRow    `json:"rows"`
}

func runCompare(ctx context.Context, o compareOptions, stdout, stderr io.Writer) error {
	if o.budget < 1 || o.runs < 1 {
		return usagef("--budget and --runs must be at least 1")
	}
	env, err := o.envOptions.resolve()
	if err != nil {
		return err
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
		Candidates: o.candidates, LocalRounds: o.localRounds}
	if o.localRounds == 0 {
		base.LocalRounds = -1
	}
	if len(o.llm.specs) > 0 {
		base.LLM = o.llm.settings()
	}
	// The comparison's identity: rerunning it finds its runs again.
	id := compareID(base, o.runs, o.seed)
	report := compareReport{Env: env.Config, Budget: o.budget, Runs: o.runs, Seeds: evalSeeds}
	champions := map[string][]string{}
	for _, mode := range []string{evolve.ModeChain, evolve.ModePopulation} {
		row := compareRow{Method: mode}
		for r := 0; r < o.runs; r++ {
			cfg := base
			cfg.Mode, cfg.Seed = mode, o.seed+uint64(r)
			cfg.Iterations = o.budget // an upper bound: the budget stops the run
			cfg.PoolTag = fmt.Sprintf("%s-%s-%d", id, mode, r)
			fmt.Fprintf(stderr, "compare: %s run %d/%d (seed %d)\n", mode, r+1, o.runs, cfg.Seed)
			run, err := compareRun(ctx, s, sb, &o, cfg, stderr)
			if err != nil {
				return err
			}
			row.Runs = append(row.Runs, run.ID)
			u := run.Usage
			row.PlannerCalls.add(float64(u.Proposals))
			row.LLMCalls.add(float64(u.LLMCalls))
			row.Tokens.add(float64(u.InputTokens + u.OutputTokens))
			row.Cost.add(u.Cost)
			row.WallSeconds.add(u.WallSeconds)
			if run.Champion != "" {
				row.Champions = append(row.Champions, run.Champion)
			}
		}
		champions[mode] = row.Champions
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
	fmt.Fprintf(stderr, "compare: wrote %s.csv and %s.json\n", o.out, o.out)
	return nil
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
	if found != nil && found.Status == store.StatusDone {
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
		return &evolve.LLMPlanner{Client: client, Prompts: ps}, nil
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
