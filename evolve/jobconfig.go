package evolve

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"time"

	"policyevolve/envs"
	"policyevolve/envs/ssd"
	"policyevolve/evolve/planner"
	"policyevolve/evolve/planner/prompts"
	"policyevolve/evolve/population"
	"policyevolve/pool"
)

// Modes of an evolution job.
const (
	// ModeChain is the paper's Algorithm 1: one lineage, an initial policy
	// and Iterations refinements, each shown the previous source and
	// feedback on it.
	ModeChain = "chain"
	// ModePopulation is PolicyEvolve's search: a global pool of elites
	// rated by Elo, candidates from parents chosen by Pareto rank, local
	// refinement against the critic, promotion above a win rate.
	ModePopulation = "population"
	// ModeGEPA is GEPA-style prompt evolution, the paper's third
	// baseline: candidates are strategy guidance for the planner's system
	// prompt, scored per evaluation seed by the policy each makes the
	// planner write, kept on a Pareto front over the seeds and rewritten
	// by reflection (package gepa).
	ModeGEPA = "gepa"
)

// JobConfig is an evolution job's configuration, stored with the run (as
// JSON) so that a resumed run does exactly what the interrupted one would
// have. The zero value works once Planners is set: every field has a
// default, set in WithDefaults.
type JobConfig struct {
	Mode string `json:"mode"`
	// The environment: game, map (a built-in name or a map file), agents
	// and episode length.
	Game   string `json:"game"`
	Map    string `json:"map,omitempty"`
	Agents int    `json:"agents"`
	Steps  int    `json:"steps"`
	// Seed is the run seed: every random choice derives from it.
	Seed uint64 `json:"seed"`
	// EvalSeeds are the self-play seeds of every evaluation (the paper's
	// |S| = 5); MatchSeeds the seeds of a candidate's matches.
	EvalSeeds  []uint64 `json:"eval_seeds"`
	MatchSeeds []uint64 `json:"match_seeds"`
	// Iterations: in chain mode the refinements K after the initial
	// policy (the paper's 3); in gepa mode the reflections K after the
	// seed candidate (the paper's 3); in population mode the iterations.
	Iterations int `json:"iterations"`
	// Candidates per population iteration (M).
	Candidates int `json:"candidates"`
	// Feedback shown to the planner: sparse, dense, critic or raw.
	Feedback string `json:"feedback"`
	// PromptStyle is how the LLM planner prompts: "" (the paper's
	// prompts), naive or cot (prompts.Style*). The offline planner has no
	// prompts.
	PromptStyle string `json:"prompt_style,omitempty"`
	// Invasion makes invasion resistance a parent-selection objective
	// (population): each parent's worst invader among the pool's members,
	// one agent among its own, measured on the match seeds each iteration.
	Invasion bool `json:"invasion,omitempty"`
	// Adversarial tells the LLM planner it may do anything to maximise
	// the reward (the paper's adaptive attacker): how often must the
	// sandbox refuse (runs show counts it)?
	Adversarial bool `json:"adversarial,omitempty"`
	// LocalRounds of local refinement per candidate before it challenges
	// the pool (population mode; Off: none).
	LocalRounds Option[int] `json:"local_rounds"`
	// CrossoverRate is the share of candidates written by crossing two
	// pool members rather than improving one (population mode; Off:
	// none).
	CrossoverRate Option[float64] `json:"crossover_rate"`
	// LocalStop ends a candidate's local refinement after this many
	// rounds in a row that did not improve it (population mode; Off:
	// every one of LocalRounds is played, as runs stored before it
	// existed did).
	LocalStop Option[int] `json:"local_stop"`
	// Refine is which of an iteration's candidates are refined
	// (population mode): "race" refines them one at a time, the best
	// first version first, and skips a candidate whose first version is
	// below the best a refined candidate of the iteration reached; "all"
	// refines every one (runs stored before the setting existed).
	Refine string `json:"refine,omitempty"`
	// ParentOrder is how parents are handed to an iteration's candidates
	// (population mode): "best" orders each Pareto front best first by
	// the objective — self-play efficiency under welfare and robust, the
	// rating under elo — (ties in a seeded order) and candidate k takes
	// the k-th parent; "lead" orders them so too, and the first half of
	// the candidates (rounded up) all take the first parent, the leader,
	// the rest the next ones in order; "shuffled" orders each front at
	// random (runs stored before the setting existed).
	ParentOrder string `json:"parent_order,omitempty"`
	// Recheck is how many further seeds a contender for champion is
	// played on before it is crowned (chain and population) or, in a
	// population run, handed the lead of the next iteration: the seeds
	// after the largest evaluation seed (RecheckSeeds), its score then
	// its mean over both (search.Crown). Off: the evaluation seeds alone
	// decide, as runs stored before the setting existed did.
	Recheck Option[int] `json:"recheck"`
	// Planners names the planners, "grammar" or "llm:PROVIDER:MODEL"; with
	// several, each proposal picks one by a UCB1 bandit.
	Planners []string `json:"planners"`
	// Pool rules: capacity, promotion threshold, opponent softmax
	// temperature and opponents per candidate (n).
	Pool pool.Config `json:"pool"`
	// Objective is what the run selects for: what a game in the global
	// pool counts, who is promoted, who is champion (docs/objectives.md).
	// "" is the default of a new run, pool.DefaultObjective (welfare). A
	// stored configuration without the key was written before objectives
	// existed and reads as pool.Stored(""), elo, which is what such a run
	// ran under (see UnmarshalJSON).
	Objective pool.Objective `json:"objective,omitempty"`
	// RobustMargin is the robust objective's margin (pool.Resists): the
	// share of the residents' per-agent return an invader may gain;
	// pool.DefaultRobustMargin under robust, unused otherwise.
	RobustMargin float64 `json:"robust_margin,omitempty"`
	// Against is the exploit objective's target: the policy the residents
	// run, whom each candidate invades (docs/objectives.md). A new run may
	// name it as a built-in (coop) or a unique prefix of a stored id; the
	// job stores the full id it names, so that a resumed run plays the
	// same residents. Set exactly when the objective is exploit.
	Against string `json:"against,omitempty"`
	// Invaders is the exploit objective's K: how many of the run's agents
	// run the candidate, the others running Against (1 by default under
	// exploit; 1…agents−1).
	Invaders int `json:"k,omitempty"`
	// PoolTag gives the run a global pool of its own instead of the
	// environment's shared one (compare starts every search from scratch).
	PoolTag string `json:"pool_tag,omitempty"`
	// Workers bounds the episodes played at once (default: the CPUs);
	// PlannerConcurrency the candidates proposed at once (default: the
	// candidates per iteration with an LLM planner and no planner-call
	// budget, else 1). Neither changes the results (but for which calls
	// a cost or token budget stops).
	Workers            int `json:"workers"`
	PlannerConcurrency int `json:"planner_concurrency"`
	// Budgets: the job stops cleanly when one is reached (0: none).
	MaxPlannerCalls int           `json:"max_planner_calls,omitempty"`
	MaxCost         float64       `json:"max_cost,omitempty"`
	MaxTokens       int           `json:"max_tokens,omitempty"`
	MaxTime         time.Duration `json:"max_time,omitempty"`
	// Extended lists the budgets resumes carried further, oldest first
	// (the budgets above hold the latest values).
	Extended []Extension `json:"extended,omitempty"`
	// Critic writes the reflections: analytic (default) or llm.
	Critic string `json:"critic,omitempty"`
	// Backend of the sandbox (native, yaegi, auto); recorded, applied by
	// whoever builds the sandbox.
	Backend string `json:"backend,omitempty"`
	// AdmitOnRunEnv: admission compares the backends on the run's own
	// map, agents and steps (sandbox.Config.AdmissionEnv), not the
	// game's default map. Set for runs started since; a run stored
	// without it resumes admitting as it started.
	AdmitOnRunEnv bool `json:"admit_on_run_env,omitempty"`
	// LLM holds the settings of LLM planners that a resumed run must
	// repeat (they are part of every request's identity); no key is ever
	// stored, only the name of the variable that holds it.
	LLM map[string]string `json:"llm,omitempty"`
	// Endpoints say how the LLM planners' models are reached, by spec
	// ("openai:NAME"), for a model reached otherwise than LLM's shared
	// settings say. A resumed run may change them, and nothing else
	// (they change no answer); the change is stored.
	Endpoints map[string]Endpoint `json:"endpoints,omitempty"`
}

// Endpoint is how one model is reached. No key is ever stored, only the
// name of the variable that holds it.
type Endpoint struct {
	BaseURL string        `json:"base_url,omitempty"`
	KeyEnv  string        `json:"key_env,omitempty"`
	Timeout time.Duration `json:"timeout,omitempty"` // one attempt of a call
	Retries int           `json:"retries,omitempty"` // attempts per call
	// Identity is the server the model's requests are identified by in
	// the ledger, once the run moved it: the server of its first calls,
	// so that the run still finds the answers recorded there ("": the
	// server called).
	Identity string `json:"identity,omitempty"`
}

// Defaults, with the reasons for them.
const (
	// The paper's K = 3 refinements; three population iterations of the
	// default Cleanup job (about 55 planner calls: candidates refined as
	// long as they improve) finish in about six minutes on an idle 2-core
	// machine with the offline planner, and show the population moving
	// (docs/evolution.md, "The main job").
	DefaultChainIterations      = 3
	DefaultPopulationIterations = 3
	// M = 4 candidates an iteration, PolicyEvolve's order of magnitude.
	DefaultCandidates = 4
	// docs/decisions.md: local refinement is on; up to 6 rounds, since a
	// round that does not improve ends it (LocalStop) and a lineage that
	// keeps improving is where the calls pay (docs/evolution.md, "Why
	// the search stalled", cause 6).
	DefaultLocalRounds = 6
	// A fifth of the candidates cross two parents: enough to mix niches,
	// few enough that improvement stays the main operator.
	DefaultCrossoverRate = 0.2
	// A round that does not improve a candidate ends its refinement: its
	// calls go to other candidates (docs/evolution.md, "Why the search
	// stalled").
	DefaultLocalStop = 1
	// Half the candidates improve the best so far, the rest the next
	// parents best first (docs/evolution.md, "Why the search stalled").
	DefaultParentOrder = ParentsLead
	// Local rounds go to the candidate that leads its iteration
	// (docs/evolution.md, "Why the search stalled", cause 8).
	DefaultRefine = RefineRace
	// A contender for champion is played on 20 seeds more than the 5
	// evaluation seeds before it is crowned: the best of many near-equal
	// policies on five seeds is the one they flatter most
	// (docs/evolution.md, "Why the search stalled", cause 11).
	DefaultRecheck = 20
	// MaxRecheck bounds Recheck: a contender's recheck is that many
	// episodes.
	MaxRecheck = 1000
)

// How a population run's candidates are refined (JobConfig.Refine).
const (
	RefineAll  = population.RefineAll
	RefineRace = population.RefineRace
)

// Parent orders of a population run (JobConfig.ParentOrder).
const (
	ParentsBest     = "best"
	ParentsLead     = "lead"
	ParentsShuffled = "shuffled"
)

// WithDefaults returns c with every zero field set to its default.
func (c JobConfig) WithDefaults() JobConfig {
	if c.Mode == "" {
		c.Mode = ModePopulation
	}
	if c.Game == "" {
		c.Game = "gathering"
	}
	if c.Agents <= 0 {
		c.Agents = 10
	}
	if c.Steps <= 0 {
		c.Steps = 1000
	}
	if len(c.EvalSeeds) == 0 {
		c.EvalSeeds = []uint64{0, 1, 2, 3, 4}
	}
	if len(c.MatchSeeds) == 0 {
		c.MatchSeeds = []uint64{0}
	}
	c.EvalSeeds = slices.Compact(slices.Sorted(slices.Values(c.EvalSeeds)))
	c.MatchSeeds = slices.Compact(slices.Sorted(slices.Values(c.MatchSeeds)))
	if c.Iterations <= 0 {
		c.Iterations = DefaultPopulationIterations
		if c.Mode == ModeChain || c.Mode == ModeGEPA {
			c.Iterations = DefaultChainIterations
		}
	}
	if c.Candidates <= 0 {
		c.Candidates = DefaultCandidates
	}
	if c.Feedback == "" {
		c.Feedback = string(planner.Critic)
		switch c.Mode {
		case ModeChain:
			c.Feedback = string(planner.Dense)
		case ModeGEPA:
			c.Feedback = string(planner.Sparse) // docs/decisions.md: GEPA's reflection sees the reward only
		}
	}
	c.LocalRounds = c.LocalRounds.OrDefault(DefaultLocalRounds)
	c.CrossoverRate = c.CrossoverRate.OrDefault(DefaultCrossoverRate)
	c.LocalStop = c.LocalStop.OrDefault(DefaultLocalStop)
	if c.ParentOrder == "" {
		c.ParentOrder = DefaultParentOrder
	}
	c.Recheck = c.Recheck.OrDefault(DefaultRecheck)
	if c.Refine == "" {
		c.Refine = DefaultRefine
	}
	if len(c.Planners) == 0 {
		c.Planners = []string{"grammar"}
	}
	c.Pool = c.Pool.WithDefaults()
	if c.Objective == "" {
		c.Objective = pool.DefaultObjective
	}
	if c.Objective.InvasionTest() && c.RobustMargin == 0 {
		c.RobustMargin = pool.DefaultRobustMargin
	}
	if c.Objective.Exploits() && c.Invaders == 0 {
		c.Invaders = 1
	}
	if c.Workers <= 0 {
		c.Workers = runtime.NumCPU()
	}
	if c.PlannerConcurrency <= 0 {
		c.PlannerConcurrency = 1
		// An LLM call takes seconds to minutes: the candidates of an
		// iteration are proposed at once, so that an iteration takes as
		// long as its longest candidate's calls rather than all of them
		// in a row. Not under a planner-call budget: which candidates it
		// stops would depend on the order calls finish, and a comparison
		// (whose budget is in planner calls) must come out the same.
		if c.MaxPlannerCalls == 0 && slices.ContainsFunc(c.Planners, isLLM) {
			c.PlannerConcurrency = c.Candidates
		}
	}
	if c.Critic == "" {
		c.Critic = "analytic"
	}
	return c
}

// isLLM reports whether a planner spec names an LLM planner.
func isLLM(spec string) bool { return strings.HasPrefix(spec, "llm:") }

// Validate reports a configuration that cannot run, in a sentence.
func (c JobConfig) Validate() error {
	var errs []error
	if c.Mode != ModeChain && c.Mode != ModePopulation && c.Mode != ModeGEPA {
		errs = append(errs, fmt.Errorf("mode %q: want chain, population or gepa", c.Mode))
	}
	if c.Mode == ModeGEPA && len(c.Planners) > 1 {
		errs = append(errs, fmt.Errorf("gepa evolves the prompt of one planner, and %d are given (%s)", len(c.Planners), strings.Join(c.Planners, ", ")))
	}
	if _, err := ParsePromptStyle(c.PromptStyle); err != nil {
		errs = append(errs, err)
	}
	if _, err := pool.ParseObjective(string(c.Objective)); err != nil {
		errs = append(errs, err)
	}
	switch {
	case c.Objective.Exploits() && c.Against == "":
		errs = append(errs, fmt.Errorf("objective %s needs --against POLICY: the policy the residents run", c.Objective))
	case !c.Objective.Exploits() && c.Against != "":
		errs = append(errs, fmt.Errorf("--against %s means nothing under objective %s: it names the exploit objective's target (--objective exploit)", c.Against, c.Objective))
	case !c.Objective.Exploits() && c.Invaders != 0:
		errs = append(errs, fmt.Errorf("--k %d means nothing under objective %s: it counts the exploit objective's invaders (--objective exploit)", c.Invaders, c.Objective))
	case c.Objective.Exploits() && (c.Invaders < 1 || c.Invaders > c.Agents-1):
		errs = append(errs, fmt.Errorf("--k %d: the invaders must number 1 to %d (agents − 1, so that one resident is left)", c.Invaders, c.Agents-1))
	}
	if c.Objective.Exploits() && c.Mode == ModeGEPA {
		errs = append(errs, fmt.Errorf("objective %s does not run under mode gepa yet (GEPA scores a prompt by self-play): use --mode chain or population", c.Objective))
	}
	if c.RobustMargin < 0 {
		errs = append(errs, fmt.Errorf("robust margin %v is negative", c.RobustMargin))
	}
	if _, err := planner.ParseFeedback(c.Feedback); err != nil {
		errs = append(errs, err)
	}
	if c.Critic != "analytic" && c.Critic != "llm" {
		errs = append(errs, fmt.Errorf("critic %q: want analytic or llm", c.Critic))
	}
	if c.Agents < 2 && c.Mode == ModePopulation {
		errs = append(errs, fmt.Errorf("population search plays matches: it needs at least 2 agents, not %d", c.Agents))
	}
	if c.ParentOrder != ParentsLead && c.ParentOrder != ParentsBest && c.ParentOrder != ParentsShuffled {
		errs = append(errs, fmt.Errorf("parent order %q: want %s, %s or %s", c.ParentOrder, ParentsLead, ParentsBest, ParentsShuffled))
	}
	if c.Refine != RefineAll && c.Refine != RefineRace {
		errs = append(errs, fmt.Errorf("refine %q: want %s or %s", c.Refine, RefineRace, RefineAll))
	}
	if n := c.Recheck.Value(); n > MaxRecheck {
		errs = append(errs, fmt.Errorf("recheck %d: at most %d seeds", n, MaxRecheck))
	} else if n > 0 && len(c.EvalSeeds) > 0 && c.EvalSeeds[len(c.EvalSeeds)-1] > math.MaxUint64-uint64(n) {
		errs = append(errs, fmt.Errorf("recheck %d: no room for the seeds after evaluation seed %d", n, c.EvalSeeds[len(c.EvalSeeds)-1]))
	}
	if c.CrossoverRate.Value() > 1 {
		errs = append(errs, fmt.Errorf("crossover rate %v is above 1", c.CrossoverRate.Value()))
	}
	if c.MaxPlannerCalls < 0 || c.MaxCost < 0 || c.MaxTokens < 0 || c.MaxTime < 0 {
		errs = append(errs, errors.New("budgets cannot be negative"))
	}
	if c.Pool.PromoteThreshold >= 1 {
		errs = append(errs, fmt.Errorf("promotion threshold %v: no candidate could beat it", c.Pool.PromoteThreshold))
	}
	return errors.Join(errs...)
}

// ParsePromptStyle accepts standard (or ""), naive, cot and react, and returns
// the style as JobConfig and prompts.Game hold it ("" for standard).
func ParsePromptStyle(s string) (string, error) {
	switch s {
	case "", "standard":
		return prompts.StyleStandard, nil
	case prompts.StyleNaive, prompts.StyleCoT, prompts.StyleReact:
		return s, nil
	}
	return "", fmt.Errorf("unknown prompt style %q (want standard, naive, cot or react)", s)
}

// UnmarshalJSON reads a stored configuration as the run was started:
// settings added since it was stored, absent from it, read as the
// behaviour runs had before they existed, not as today's defaults. One
// without the key "objective" was written before runs chose an
// objective, when every run was selected by Elo: it reads as elo
// (pool.Stored(""));
// one without "local_stop" played every local round (Off), one without
// "parent_order" shuffled each front of parents (ParentsShuffled), one
// without "refine" refined every candidate (RefineAll), one without
// "recheck" crowned on the evaluation seeds alone (Off). So an
// old run resumes, lists and reports as what it was.
func (c *JobConfig) UnmarshalJSON(b []byte) error {
	type plain JobConfig // without this method
	if err := json.Unmarshal(b, (*plain)(c)); err != nil {
		return err
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(b, &keys); err != nil {
		return err
	}
	if _, ok := keys["objective"]; !ok {
		c.Objective = pool.Stored("")
	}
	if _, ok := keys["local_stop"]; !ok {
		c.LocalStop = Off[int]()
	}
	if _, ok := keys["parent_order"]; !ok {
		c.ParentOrder = ParentsShuffled
	}
	if _, ok := keys["refine"]; !ok {
		c.Refine = RefineAll
	}
	if _, ok := keys["recheck"]; !ok {
		c.Recheck = Off[int]()
	}
	return nil
}

// RecheckSeeds are the seeds a contender for champion is played on
// besides the evaluation seeds: the Recheck seeds that follow the
// largest evaluation seed (5–24 for the default 0–4 and 20), none when
// Recheck is off, and none in gepa mode (a prompt's score is its Pareto
// front's). Defaults are applied first.
func (c JobConfig) RecheckSeeds() []uint64 {
	c = c.WithDefaults()
	n := c.Recheck.Value()
	if n <= 0 || n > MaxRecheck || c.Mode == ModeGEPA {
		return nil
	}
	last := c.EvalSeeds[len(c.EvalSeeds)-1]
	if last > math.MaxUint64-uint64(n) {
		return nil
	}
	seeds := make([]uint64, n)
	for i := range seeds {
		seeds[i] = last + 1 + uint64(i)
	}
	return seeds
}

// TotalIterations is how many iterations a run of c makes in all: in
// population mode Iterations; in chain and gepa modes the initial policy
// (or seed candidate) and K refinements (or reflections), K+1. They are
// numbered 0 to TotalIterations()-1.
func (c JobConfig) TotalIterations() int {
	if c.Mode == ModeChain || c.Mode == ModeGEPA {
		return c.Iterations + 1
	}
	return c.Iterations
}

// Decisive returns c (defaults applied) with only the settings that
// decide what a run of it searches and finds: how fast it goes (workers,
// planner concurrency), where the models are served and its pool tag are
// cleared, and so, for a chain or gepa run, are the population's settings
// (candidates, crossover, local rounds, parent order, invasion), which
// those modes never read. Two configurations with equal Decisive values
// give the same run for the same seed; compare uses it to reuse a run of
// another comparison that differs only in settings the method ignores.
func (c JobConfig) Decisive() JobConfig {
	c = c.WithDefaults()
	c.Workers, c.PlannerConcurrency, c.Endpoints, c.PoolTag = 0, 0, nil, ""
	if c.Mode == ModeChain || c.Mode == ModeGEPA {
		c.Candidates, c.Invasion, c.ParentOrder, c.Refine = 0, false, "", ""
		c.CrossoverRate, c.LocalRounds, c.LocalStop = Option[float64]{}, Option[int]{}, Option[int]{}
	}
	if c.Mode == ModeGEPA {
		c.Recheck = Off[int]() // a prompt's score is its Pareto front's
	}
	return c
}

// IterationsDone says how many iterations are finished, by their numbers:
// "no iteration done", "iteration 0 done", "iterations 0–4 done".
func IterationsDone(n int) string {
	switch n {
	case 0:
		return "no iteration done"
	case 1:
		return "iteration 0 done"
	}
	return fmt.Sprintf("iterations %s done", iterationSpan(0, n))
}

// iterationSpan names iterations from to to-1: "0", "0–4".
func iterationSpan(from, to int) string {
	if to-from == 1 {
		return fmt.Sprint(from)
	}
	return fmt.Sprintf("%d–%d", from, to-1)
}

// MapName is the map the run plays, as the run lists label it: its Map
// (a built-in name or a map file), else its game's paper map (Gathering
// "large", Cleanup "default" — Gathering's own "default" is a different,
// smaller map, so an unset Map is never shown as "default" for it). An
// unknown game gives "default".
func (c JobConfig) MapName() string {
	if c.Map != "" {
		return c.Map
	}
	if g, err := ssd.ParseGame(c.Game); err == nil {
		return envs.DefaultMap(g)
	}
	return "default"
}

// ChampionBy says what the run's champion is the best by, to follow
// "champion by": a population run's objective (welfare, elo, robust); a
// chain's self-play efficiency and GEPA's mean score over its seeds
// whatever the objective, since neither has a pool
// (docs/objectives.md#chain-and-gepa).
func (c JobConfig) ChampionBy() string {
	switch c.Mode {
	case ModeChain:
		return "self-play efficiency (a chain has no pool)"
	case ModeGEPA:
		return "mean score over its seeds (GEPA's rule)"
	}
	return string(c.Objective)
}
