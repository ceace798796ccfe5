package experiment

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"policyevolve/baselines/qlearn"
	"policyevolve/envs/ssd"
	"policyevolve/evolve"
	"policyevolve/evolve/arena"
	"policyevolve/evolve/episode"
	"policyevolve/evolve/planner"
	"policyevolve/internal/plural"
	"policyevolve/pool"
	"policyevolve/sandbox"
	"policyevolve/store"
)

// Experiment is one comparison of search methods on one environment under
// one budget of planner calls: each method's runs (found in the store,
// resumed, or started), a league of their champions and the baselines,
// and the extra tables. Everything is stored: the same Experiment again
// reuses (or resumes) every run and gives the same Report.
type Experiment struct {
	// Base is the configuration every run shares: the environment, the
	// seeds, the planners, the budget (MaxPlannerCalls), the workers… Each
	// run sets its Mode, Seed, Iterations, PoolTag and Feedback.
	Base evolve.JobConfig
	// Methods are the searching rows, in order (see Chain, Styled,
	// Population, GEPA).
	Methods []Method
	// Runs per method, with seeds Seed, Seed+1, …
	Runs int
	Seed uint64
	// ZeroShot adds a row before the others: the first chain method's
	// initial policies (iteration 0, before any feedback).
	ZeroShot bool
	// QLearnEpisodes, when positive, adds the tabular Q-learner's row,
	// trained for that many episodes per run seed.
	QLearnEpisodes int
	// Transfer adds each champion's self-play on every built-in map of the
	// game and on TransferMaps (map files); Invaders each champion's worst
	// invader among the league's players.
	Transfer     bool
	TransferMaps []string
	Invaders     bool
	// HeldOut, when set, replays each champion in self-play on these
	// seeds (on the comparison's map): seeds no search saw, where a
	// champion chosen on the evaluation seeds shows what it is worth.
	HeldOut []uint64

	Store   *store.Store
	Sandbox *sandbox.Sandbox
	// Planner builds the planners of a run of cfg (see evolve.Job.Planner).
	Planner func(cfg evolve.JobConfig) evolve.PlannerFunc
	// OnJob, when set, is called with each job before it runs, and its
	// result when the job ends (cmd uses it to let an interrupt stop the
	// job at a safe point).
	OnJob func(j *evolve.Job) (release func())
	// TrainProgress, when set, follows the Q-learner's training: it is
	// called once per training with its length, and returns the callback
	// of each episode and the function to call at the end.
	TrainProgress func(episodes int) (onEpisode func(qlearn.EpisodeStats), finish func())
	// Log receives one line per notable step (discarded when nil).
	Log func(format string, args ...any)
}

// Method is a searching row of the report: its label and the job mode
// (with its feedback level and prompt style) behind it.
type Method struct {
	Label, Mode, Feedback string
	// Style, when Styled, is the prompt style of the method's runs ("" is
	// standard); otherwise they take Base.PromptStyle.
	Style  string
	Styled bool
}

// Chain is the chain at a feedback level: labelled "chain", or
// "chain-LEVEL" when the report has several chain levels (labelled).
func Chain(level string, labelled bool) (Method, error) {
	if _, err := planner.ParseFeedback(level); err != nil {
		return Method{}, err
	}
	m := Method{Label: evolve.ModeChain, Mode: evolve.ModeChain, Feedback: level}
	if labelled {
		m.Label += "-" + level
	}
	return m, nil
}

// Styled is the chain with dense feedback in a prompt style, labelled
// "chain-STYLE" (PolicyEvolve's prompting baselines).
func Styled(style string) (Method, error) {
	st, err := evolve.ParsePromptStyle(style)
	if err != nil {
		return Method{}, err
	}
	return Method{Label: evolve.ModeChain + "-" + style, Mode: evolve.ModeChain, Feedback: string(planner.Dense),
		Style: st, Styled: true}, nil
}

// Population is population search.
func Population() Method {
	return Method{Label: evolve.ModePopulation, Mode: evolve.ModePopulation}
}

// GEPA is GEPA with reflections at a feedback level: "gepa" at the
// paper's sparse level, "gepa-LEVEL" otherwise.
func GEPA(level string) (Method, error) {
	if _, err := planner.ParseFeedback(level); err != nil {
		return Method{}, err
	}
	m := Method{Label: evolve.ModeGEPA, Mode: evolve.ModeGEPA, Feedback: level}
	if level != string(planner.Sparse) {
		m.Label += "-" + level
	}
	return m, nil
}

// AddMethod adds m unless a method of the same label is there.
func (e *Experiment) AddMethod(m Method) {
	if !slices.ContainsFunc(e.Methods, func(x Method) bool { return x.Label == m.Label }) {
		e.Methods = append(e.Methods, m)
	}
}

// The paper suite: the rows of the paper's Table 1 (zero-shot, the chain
// at every feedback level, population, GEPA, the Q-learner, the
// baselines) with the transfer and invader tables, and with an LLM a
// chain row per prompt style.
var (
	PaperChainFeedback = []string{"sparse", "dense", "raw", "critic"}
	PaperPromptStyles  = []string{"naive", "cot", "react"}
)

// Baselines are the built-in policies the league holds beside the
// champions, each a row of its own.
var Baselines = []string{"bfs", "exploit", "coop"}

// ID names a comparison by what decides its results: the shared
// configuration, the runs per method and the first seed. Running it
// again finds its runs by their pool tags (PoolTag).
//
// Under the elo objective the id is the one the same comparison had before
// runs chose an objective (the objective is left out of the hash), so that
// a comparison stored then is found again with --objective elo.
func ID(base evolve.JobConfig, runs int, seed uint64) string {
	if base.Objective == pool.Elo {
		base.Objective = ""
	}
	base.Endpoints = nil // where the models are served decides nothing
	b, _ := json.Marshal(struct {
		Base evolve.JobConfig
		Runs int
		Seed uint64
	}{base, runs, seed})
	sum := sha256.Sum256(b)
	return "cmp-" + hex.EncodeToString(sum[:4])
}

// PoolTag is the pool tag of a comparison's run: the comparison's id, the
// method's label and the run's number ("cmp-1a2b3c4d-chain-0"). Each run
// searches in a pool of its own.
func PoolTag(id, method string, run int) string { return fmt.Sprintf("%s-%s-%d", id, method, run) }

var tagPattern = regexp.MustCompile(`^(cmp-[0-9a-f]+)-(chain|population|[a-z]+-[a-z]+|gepa)-([0-9]+)$`)

// ParseTag reads a pool tag written by PoolTag; ok is false for any other.
func ParseTag(tag string) (id, method string, run int, ok bool) {
	m := tagPattern.FindStringSubmatch(tag)
	if m == nil {
		return "", "", 0, false
	}
	run, _ = strconv.Atoi(m[3])
	return m[1], m[2], run, true
}

func (e *Experiment) logf(format string, args ...any) {
	if e.Log != nil {
		e.Log(format, args...)
	}
}

// Run runs the experiment and returns its report, which it stores.
func (e *Experiment) Run(ctx context.Context) (*Report, error) {
	b := e.Base
	env, err := episode.ResolveEnv(b.Game, b.Map, b.Agents, b.Steps)
	if err != nil {
		return nil, err
	}
	id := ID(b, e.Runs, e.Seed)
	report := &Report{ID: id, Env: env.Config, Budget: b.MaxPlannerCalls, Runs: e.Runs, Seeds: b.EvalSeeds, QLearnEpisodes: e.QLearnEpisodes,
		HeldOutSeeds: e.HeldOut, Objective: b.WithDefaults().Objective}
	if err := e.Validate(); err != nil {
		return nil, err
	}
	// zero-shot: the first chain method's initial policies.
	var zero zeroShotRow
	for _, m := range e.Methods {
		row := Row{Method: m.Label}
		var curves [][]float64
		for r := 0; r < e.Runs; r++ {
			cfg := e.config(m, r)
			cfg.PoolTag = PoolTag(id, m.Label, r)
			e.logf("%s run %d/%d (seed %d)", m.Label, r+1, e.Runs, cfg.Seed)
			run, err := e.run(ctx, cfg)
			if err != nil {
				return nil, err
			}
			row.addRun(run)
			if err := e.Store.View(func(tx *store.Tx) error {
				c, err := Progress(tx, run.ID)
				curves = append(curves, c)
				return err
			}); err != nil {
				return nil, err
			}
			if e.ZeroShot && m.Mode == evolve.ModeChain && (zero.from == "" || zero.from == m.Label) {
				if err := zero.addInitial(e.Store, run, m.Label); err != nil {
					return nil, err
				}
			}
		}
		row.Progress = progressAt(curves, b.MaxPlannerCalls)
		report.Rows = append(report.Rows, row)
	}
	if e.ZeroShot {
		// Before the searches, as in the paper's table.
		report.Rows = slices.Insert(report.Rows, 0, zero.Row)
	}
	if e.QLearnEpisodes > 0 {
		row := Row{Method: "qlearn"}
		for r := 0; r < e.Runs; r++ {
			run, err := e.qlearnRun(ctx, env, e.Seed+uint64(r))
			if err != nil {
				return nil, err
			}
			row.addRun(run)
		}
		report.Rows = append(report.Rows, row)
	}
	if err := e.league(ctx, env, report); err != nil {
		return nil, err
	}
	// Stored, for the HTML report: the table as computed, rows in order.
	data, err := json.Marshal(report)
	if err != nil {
		return nil, err
	}
	if err := e.Store.Update(func(tx *store.Tx) error {
		return tx.PutComparison(&store.Comparison{ID: report.ID, Report: data})
	}); err != nil {
		return nil, fmt.Errorf("store the comparison: %w", err)
	}
	return report, nil
}

// Validate checks every method's configuration as its runs will have
// it (evolve.JobConfig.Validate), so that a bad setting of any method is
// reported before the first run plays. Run calls it first.
func (e *Experiment) Validate() error {
	for _, m := range e.Methods {
		cfg := e.config(m, 0).WithDefaults()
		if err := cfg.Validate(); err != nil {
			return err
		}
		// Held-out seeds are seeds no search saw.
		for _, seen := range []struct {
			what  string
			seeds []uint64
		}{{"an evaluation seed", cfg.EvalSeeds}, {"a recheck seed (--recheck)", cfg.RecheckSeeds()}} {
			for _, s := range e.HeldOut {
				if slices.Contains(seen.seeds, s) {
					return fmt.Errorf("held-out seed %d is %s of the %s runs: they chose their champions on it", s, seen.what, m.Label)
				}
			}
		}
	}
	return nil
}

// config is the job configuration of method m's run r (0-based), but for
// its pool tag.
func (e *Experiment) config(m Method, r int) evolve.JobConfig {
	cfg := e.Base
	cfg.Mode, cfg.Seed = m.Mode, e.Seed+uint64(r)
	cfg.Iterations = e.Base.MaxPlannerCalls // an upper bound: the budget stops the run
	switch m.Mode {
	case evolve.ModeGEPA:
		cfg.Planners, cfg.Feedback = e.Base.Planners[:1], m.Feedback
	case evolve.ModeChain:
		cfg.Feedback = m.Feedback
	}
	if m.Styled {
		cfg.PromptStyle = m.Style
	}
	return cfg
}

// league plays every champion and the baselines in a pool of the
// comparison's own, and fills in the rows' metrics, ratings,
// exploitability and extra columns.
func (e *Experiment) league(ctx context.Context, env episode.Env, report *Report) error {
	b := e.Base
	a := &arena.Arena{Store: e.Store, Sandbox: e.Sandbox, Env: env, EvalSeeds: b.EvalSeeds, MatchSeeds: b.MatchSeeds,
		PoolTag: report.ID, Workers: b.Workers}
	defer a.Close()
	if err := a.EnsureBaselines(ctx); err != nil {
		return err
	}
	baselineIDs := map[string]string{}
	if err := e.Store.View(func(tx *store.Tx) error {
		ms, err := tx.Members(a.GlobalPool())
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
	for _, name := range Baselines {
		addPlayer(baselineIDs[name])
		report.Rows = append(report.Rows, Row{Method: name, Champions: []string{baselineIDs[name]}})
	}
	e.logf("league of %s", plural.N(len(players), "policy"))
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
	var extras []string
	if e.Transfer {
		extras = append(extras, "each champion on every map of the game (transfer)")
	}
	if e.Invaders {
		extras = append(extras, "each champion's worst invader among the league's players (invaders)")
	}
	if len(extras) > 0 {
		e.logf("after the league: %s", strings.Join(extras, "; "))
	}
	league, err := a.League(ctx, players, b.MatchSeeds)
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
			ev, err := a.Evaluate(ctx, c)
			if err != nil {
				return err
			}
			row.Efficiency.Add(ev.Mean.Efficiency)
			row.Equality.Add(ev.Mean.Equality)
			row.Sustainability.Add(ev.Mean.Sustainability)
			row.Peace.Add(ev.Mean.Peace)
			i := index[c]
			row.Rating.Add(league.Ratings[i])
			row.Exploitability.Add(math.Max(0, -ex[i].Margin))
		}
		if err := addRefusals(e.Store, row); err != nil {
			return err
		}
		if len(e.HeldOut) > 0 {
			if err := addHeldOut(ctx, a, row, b.Map, e.HeldOut); err != nil {
				return err
			}
		}
		if e.Transfer {
			if err := addTransfer(ctx, a, row, arena.TransferMaps(game, e.TransferMaps)); err != nil {
				return err
			}
		}
		if e.Invaders {
			if err := addInvaders(ctx, a, row, players, playerName); err != nil {
				return err
			}
		}
	}
	return nil
}

// run returns the run of cfg: found done in the store, resumed, or
// started.
func (e *Experiment) run(ctx context.Context, cfg evolve.JobConfig) (*store.Run, error) {
	// Its own run (by its pool tag) or, when it has none, a finished run
	// of another comparison whose configuration differs from cfg only in
	// settings the method does not read (JobConfig.Decisive): a chain
	// does not play again because a population flag changed.
	var found, borrowed *store.Run
	var borrowedTag string
	want, err := json.Marshal(cfg.Decisive())
	if err != nil {
		return nil, err
	}
	if err := e.Store.View(func(tx *store.Tx) error {
		runs, err := tx.Runs()
		for i := range runs {
			var c evolve.JobConfig
			if json.Unmarshal(runs[i].Config, &c) != nil || c.Mode != cfg.Mode {
				continue
			}
			if c.PoolTag == cfg.PoolTag {
				found = &runs[i]
			} else if borrowed == nil && finished(&runs[i]) {
				if got, err := json.Marshal(c.Decisive()); err == nil && string(got) == string(want) {
					borrowed, borrowedTag = &runs[i], c.PoolTag
				}
			}
		}
		return err
	}); err != nil {
		return nil, err
	}
	if found == nil && borrowed != nil {
		e.logf("%s: reused, played with the same settings for this method (pool %s)", borrowed.ID, borrowedTag)
		return borrowed, nil
	}
	// A run the budget stopped is as finished as a done one: the budget is
	// part of the comparison's identity. Resuming it would only add to its
	// wall time. An interrupted (or abandoned) run is resumed.
	if found != nil && finished(found) {
		return found, nil
	}
	job := &evolve.Job{Config: cfg, Store: e.Store, Sandbox: e.Sandbox}
	if found != nil {
		job.RunID = found.ID
	}
	if e.Planner != nil {
		job.Planner = e.Planner(cfg)
	}
	if e.OnJob != nil {
		defer e.OnJob(job)()
	}
	run, err := job.Run(ctx)
	if err != nil {
		return nil, err
	}
	if run.Stopped() == store.StopInterrupted {
		return nil, context.Canceled
	}
	e.logf("%s: %s after %s, %s, champion %.12s",
		run.ID, run.Status, plural.N(run.Iterations, "iteration"), plural.N(run.Usage.Proposals, "planner call"), run.Champion)
	return run, nil
}

// finished: done, or stopped by its budget (as finished: the budget is
// part of the configuration).
func finished(r *store.Run) bool { return r.Status == store.StatusDone || evolve.StoppedByBudget(r) }

// zeroShotRow gathers the zero-shot row from the chain runs of one
// method (from): each run's iteration-0 policy and what it cost.
type zeroShotRow struct {
	Row
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
	z.PlannerCalls.Add(float64(u.Proposals))
	z.LLMCalls.Add(float64(u.LLMCalls))
	z.Tokens.Add(float64(u.InputTokens + u.OutputTokens))
	z.Cost.Add(u.Cost)
	if !its[0].Finished.IsZero() {
		z.WallSeconds.Add(its[0].Finished.Sub(its[0].Started).Seconds())
	}
	if c := its[0].Candidate(0); c != nil && c.Policy != "" && c.Status != store.CandidateFailed {
		z.Champions = append(z.Champions, c.Policy)
	}
	return nil
}

// addRun adds a run's spending and champion to the row.
func (r *Row) addRun(run *store.Run) {
	r.Runs = append(r.Runs, run.ID)
	u := run.Usage
	r.PlannerCalls.Add(float64(u.Proposals))
	r.LLMCalls.Add(float64(u.LLMCalls))
	r.Tokens.Add(float64(u.InputTokens + u.OutputTokens))
	r.Cost.Add(u.Cost)
	r.WallSeconds.Add(u.WallSeconds)
	if run.Champion != "" {
		r.Champions = append(r.Champions, run.Champion)
	}
}

// qlearnConfig is the stored configuration of a Q-learner's training, a
// run of mode "qlearn" whose champion is the trained table and whose wall
// time is the training time. Its keys are JobConfig's where they mean the
// same, so that "runs ls" shows its environment (and its episodes as
// iterations).
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
// QLearnEpisodes: found in the store, or trained now (and stored with its
// training time) — once per environment, seed and length.
func (e *Experiment) qlearnRun(ctx context.Context, env episode.Env, seed uint64) (*store.Run, error) {
	episodes := e.QLearnEpisodes
	cfg := qlearnConfig{Mode: "qlearn", Game: env.Config.Game, Map: env.Config.Map, Agents: env.Config.Agents,
		Steps: env.Config.MaxSteps, Seed: seed, Iterations: episodes}
	raw, err := json.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	var found *store.Run
	if err := e.Store.View(func(tx *store.Tx) error {
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
	e.logf("qlearn, seed %d: training %d episodes", seed, episodes)
	onEpisode, finish := func(qlearn.EpisodeStats) {}, func() {}
	if e.TrainProgress != nil {
		onEpisode, finish = e.TrainProgress(episodes)
	}
	start := time.Now()
	tab, err := qlearn.Train(ctx, qlearn.Config{Map: env.Map, MapName: env.Config.Map, Agents: env.Config.Agents,
		Episodes: episodes, Seed: seed, MaxSteps: env.Config.MaxSteps, OnEpisode: onEpisode})
	finish()
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
	if err := e.Store.Update(func(tx *store.Tx) error {
		if _, err := tx.PutPolicy(p); err != nil {
			return err
		}
		run.Champion = p.ID // set by PutPolicy
		return tx.CreateRun(run)
	}); err != nil {
		return nil, err
	}
	e.logf("qlearn, seed %d: trained in %.1fs, %d of %d states visited (%s)",
		seed, took, tab.Len(), tab.StateSpace(), run.ID)
	return run, nil
}
