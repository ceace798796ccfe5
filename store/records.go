package store

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// EnvConfig identifies an environment: game, map, agents and episode
// length. Pools, evaluations and matches are per EnvConfig.
type EnvConfig struct {
	Game     string `json:"game"`
	Map      string `json:"map"` // built-in name, or "file:" + hash of a map file's text
	Agents   int    `json:"agents"`
	MaxSteps int    `json:"max_steps"`
}

// Key is the EnvConfig's canonical string, e.g. "gathering/large/10/1000".
func (e EnvConfig) Key() string {
	return fmt.Sprintf("%s/%s/%d/%d", e.Game, e.Map, e.Agents, e.MaxSteps)
}

func (e EnvConfig) String() string { return e.Key() }

// Metrics are the social outcome metrics.
type Metrics struct {
	Efficiency     float64 `json:"efficiency"`
	Equality       float64 `json:"equality"`
	Sustainability float64 `json:"sustainability"`
	Peace          float64 `json:"peace"`
}

// Origin says where a policy came from.
type Origin struct {
	Run       string   `json:"run,omitempty"`
	Iteration int      `json:"iteration,omitempty"`
	Sample    int      `json:"sample,omitempty"`   // the candidate (and local round) within the iteration
	Planner   string   `json:"planner,omitempty"`  // llm:provider:model, grammar, replay, human…
	Operator  string   `json:"operator,omitempty"` // init, mutate, crossover, fix, tune, import, builtin
	Parents   []string `json:"parents,omitempty"`  // policy ids
	Prompt    string   `json:"prompt,omitempty"`   // reference to the LLM call that wrote it
}

// LocalRoundStride numbers the local-refinement rounds: round r (from 1)
// of an iteration's candidate k is proposed as sample k+r*LocalRoundStride
// (Origin.Sample), so that k stays below it.
const LocalRoundStride = 1000

// Operation names how a policy was made: its Operator, except that an
// improve made in a local-refinement round is a "refine"; "unknown" when
// nothing is recorded.
func (o Origin) Operation() string {
	switch {
	case o.Operator == "improve" && o.Sample >= LocalRoundStride:
		return "refine"
	case o.Operator == "":
		return "unknown"
	}
	return o.Operator
}

// Describe says where a policy came from, in a phrase — "refine (local
// round 2) by grammar in run-3 iteration 2 from 1a2b3c4d" — with the
// parents' ids cut to idChars. It is the one description of an origin:
// pool show, runs show and the report all print it (runs show and the
// report's candidates table without the run, see How).
func (o Origin) Describe(idChars int) string {
	return o.describe(idChars, true)
}

// How is Describe without the run and iteration, for a table of one
// run's iterations: "refine (local round 2) by grammar from 1a2b3c4d".
func (o Origin) How(idChars int) string {
	return o.describe(idChars, false)
}

func (o Origin) describe(idChars int, where bool) string {
	parts := []string{o.Operation()}
	if o.Operation() == "refine" {
		parts = append(parts, fmt.Sprintf("(local round %d)", o.Sample/LocalRoundStride))
	}
	if o.Planner != "" {
		parts = append(parts, "by "+o.Planner)
	}
	if where && o.Run != "" {
		parts = append(parts, fmt.Sprintf("in %s iteration %d", o.Run, o.Iteration))
	}
	if len(o.Parents) > 0 {
		ps := make([]string, len(o.Parents))
		for i, id := range o.Parents {
			ps[i] = id[:min(idChars, len(id))]
		}
		parts = append(parts, "from "+strings.Join(ps, ", "))
	}
	return strings.Join(parts, " ")
}

// Policy is a policy source, content-addressed.
type Policy struct {
	ID      string    `json:"id"` // hex SHA-256 of Source
	Source  string    `json:"source"`
	Name    string    `json:"name,omitempty"`    // a human label, e.g. the file it was imported from
	Builtin string    `json:"builtin,omitempty"` // set for the built-in baselines, which run in-process; "qlearn": Source is a Q-table file
	Created time.Time `json:"created"`
	Origin  Origin    `json:"origin"`
}

// Status of an evaluation, a seed or a run.
const (
	StatusOK      = "ok"
	StatusFailed  = "failed"
	StatusRunning = "running"
	StatusDone    = "done"
)

// SeedResult is one episode of an evaluation.
type SeedResult struct {
	Seed    uint64    `json:"seed"`
	Status  string    `json:"status"`
	Error   string    `json:"error,omitempty"`
	Kind    string    `json:"kind,omitempty"` // of a failure: tampered, slow, invalid-action, nondeterministic, runtime
	Steps   int       `json:"steps"`
	Metrics Metrics   `json:"metrics"`
	Returns []float64 `json:"returns"`
}

// Evaluation is a policy's self-play (every agent plays it) on an
// environment over a set of seeds. It is never recomputed once stored.
type Evaluation struct {
	Policy  string       `json:"policy"`
	Env     EnvConfig    `json:"env"`
	Seeds   []uint64     `json:"seeds"`
	Status  string       `json:"status"` // ok when every seed is
	Error   string       `json:"error,omitempty"`
	PerSeed []SeedResult `json:"per_seed"`
	Mean    Metrics      `json:"mean"` // over the seeds that completed
	// Against, when set, makes this an invasion evaluation (the exploit
	// objective's score): K agents (0…K−1) run Policy, the others the
	// policy Against; Invader is the invaders' and Residents the
	// residents' mean per-agent return over the seeds that completed, and
	// Mean the group's metrics. Empty: self-play, every agent Policy.
	Against   string    `json:"against,omitempty"`
	K         int       `json:"k,omitempty"`
	Invader   float64   `json:"invader,omitempty"`
	Residents float64   `json:"residents,omitempty"`
	Created   time.Time `json:"created"`
	// Backend is the sandbox backend that ran the policy's source
	// (native or yaegi); "" for a built-in policy, or an evaluation
	// stored before backends were recorded.
	Backend string `json:"backend,omitempty"`
}

// PooledEfficiency is a policy's mean efficiency over every seed of its
// evaluations evs (on different seeds), each weighted by its seeds;
// false when one of them failed.
func PooledEfficiency(evs ...*Evaluation) (float64, bool) {
	var sum, n float64
	for _, ev := range evs {
		if ev.Status != StatusOK {
			return 0, false
		}
		sum += ev.Mean.Efficiency * float64(len(ev.PerSeed))
		n += float64(len(ev.PerSeed))
	}
	if n == 0 {
		return 0, false
	}
	return sum / n, true
}

// Match is one match between A and B (two episodes, sides swapped).
type Match struct {
	A       string    `json:"a"`
	B       string    `json:"b"`
	Env     EnvConfig `json:"env"`
	Seed    uint64    `json:"seed"`
	ScoreA  float64   `json:"score_a"`
	ScoreB  float64   `json:"score_b"`
	Outcome float64   `json:"outcome"` // A's: 1 win, 0.5 draw, 0 loss
	Error   string    `json:"error,omitempty"`
	Created time.Time `json:"created"`
	// Backend is the sandbox backend that ran the source policies of the
	// match (see Evaluation.Backend).
	Backend string `json:"backend,omitempty"`
}

// RatingPoint is one step of a rating's history.
type RatingPoint struct {
	Time     time.Time `json:"time"`
	Elo      float64   `json:"elo"`
	Opponent string    `json:"opponent,omitempty"`
	Seed     uint64    `json:"seed,omitempty"`
	Outcome  float64   `json:"outcome"`
}

// Rating is a policy's Elo rating in one pool.
type Rating struct {
	Policy  string        `json:"policy"`
	Pool    string        `json:"pool"`
	Elo     float64       `json:"elo"`
	Games   int           `json:"games"`
	Wins    int           `json:"wins"`
	Draws   int           `json:"draws"`
	Losses  int           `json:"losses"`
	History []RatingPoint `json:"history,omitempty"`
}

// Member is a policy's place in a pool.
type Member struct {
	Policy string    `json:"policy"`
	Pool   string    `json:"pool"`
	Added  time.Time `json:"added"`
	Reason string    `json:"reason,omitempty"` // baseline, import, promoted, candidate
}

// GlobalPool names the global pool of an environment.
func GlobalPool(env EnvConfig) string { return "global/" + env.Key() }

// LocalPool names the local pool of one iteration of a run.
func LocalPool(run string, iteration int) string { return fmt.Sprintf("local/%s/%d", run, iteration) }

// Run is an evolution job: its full resolved configuration, seed, status
// and progress.
type Run struct {
	ID       string          `json:"id"`
	Mode     string          `json:"mode,omitempty"`
	Config   json.RawMessage `json:"config,omitempty"`
	Seed     uint64          `json:"seed"`
	Status   string          `json:"status"` // running, done, stopped, failed
	Error    string          `json:"error,omitempty"`
	Progress map[string]int  `json:"progress,omitempty"`
	// Iterations is how many iterations are done; Champion the best policy
	// so far, StopReason why the run stopped (a budget, an interruption),
	// in words, and Stop the same as a kind to branch on (see Stopped).
	Iterations int       `json:"iterations,omitempty"`
	Champion   string    `json:"champion,omitempty"`
	StopReason string    `json:"stop_reason,omitempty"`
	Stop       StopKind  `json:"stop,omitempty"`
	Usage      RunUsage  `json:"usage"`
	Started    time.Time `json:"started"`
	Updated    time.Time `json:"updated"`
}

// StopKind says why a run stopped before it was done (Run.Stop), for
// callers to branch on; Run.StopReason holds the words for people.
type StopKind string

// Why a run stops.
const (
	// StopBudget: a budget was reached. Resuming the run with the same
	// budgets does nothing more.
	StopBudget StopKind = "budget"
	// StopInterrupted: the job was asked to stop at its next safe point
	// (an interrupt). It resumes where it stopped.
	StopInterrupted StopKind = "interrupted"
	// StopAbandoned: the job's context was cancelled mid-step; the step in
	// flight is redone on resume.
	StopAbandoned StopKind = "abandoned"
)

// Statuses of a run beyond StatusRunning and StatusDone.
const (
	StatusStopped = "stopped" // a budget or an interruption; resumable
)

// RunUsage is what a run has spent.
type RunUsage struct {
	Proposals       int     `json:"proposals"` // planner calls
	LLMCalls        int     `json:"llm_calls"`
	InputTokens     int     `json:"input_tokens"`
	OutputTokens    int     `json:"output_tokens"`
	ReasoningTokens int     `json:"reasoning_tokens,omitempty"`
	Cost            float64 `json:"cost"`
	// UnpricedCalls are LLM calls to models without a price: their cost
	// is unknown, not counted in Cost.
	UnpricedCalls int     `json:"unpriced_calls,omitempty"`
	Episodes      int     `json:"episodes"`
	WallSeconds   float64 `json:"wall_seconds"`
}

// Iteration is one iteration of a run: what it planned (so that a resumed
// run does exactly what the interrupted one would have), its candidates
// and what became of them, and the state it left.
type Iteration struct {
	Run   string `json:"run"`
	Index int    `json:"index"`
	Done  bool   `json:"done"`
	// Plan: one entry per candidate.
	Plan       []PlannedCandidate `json:"plan"`
	Candidates []Candidate        `json:"candidates,omitempty"`
	// Champion is the run's best policy after the iteration; Best its
	// self-play metrics.
	Champion string    `json:"champion,omitempty"`
	Best     Metrics   `json:"best"`
	BestElo  float64   `json:"best_elo,omitempty"`
	Usage    RunUsage  `json:"usage"`
	Started  time.Time `json:"started"`
	Finished time.Time `json:"finished,omitempty"`
	// Prompt is a GEPA iteration's prompt candidate (gepa mode only); its
	// policy is the iteration's candidate 0. Front is the Pareto front over
	// the evaluation seeds after the iteration, among the candidates
	// accepted so far.
	Prompt *PromptCandidate `json:"prompt,omitempty"`
	Front  []FrontSeed      `json:"front,omitempty"`
}

// PromptCandidate is a GEPA candidate: strategy guidance for the planner's
// system prompt, and how the policy it made the planner write scored.
type PromptCandidate struct {
	// ID numbers the candidate in its run: the iteration that made it (0
	// is the seed candidate, without guidance). Parent is the candidate
	// whose reflection wrote it (-1 for the seed).
	ID     int `json:"id"`
	Parent int `json:"parent"`
	// Reflected: the reflection call is done (Guidance, Notes, Call and
	// Problem are its outcome). The seed candidate is never reflected.
	Reflected bool   `json:"reflected,omitempty"`
	Guidance  string `json:"guidance"`
	Notes     string `json:"notes,omitempty"`   // the reflection's reasoning
	Call      string `json:"call,omitempty"`    // "llm-call:N" for an LLM's reflection
	Problem   string `json:"problem,omitempty"` // why the reflection gave no guidance
	// Scores are the per-seed scores, in the order of the run's
	// evaluation seeds: the mean per-agent return of the candidate's
	// policy in self-play on that seed (0 when it wrote none or the seed
	// failed). Set once the policy is evaluated.
	Scores []float64 `json:"scores,omitempty"`
	Scored bool      `json:"scored,omitempty"`
	// Accepted: the candidate joined the candidate pool (the seed always
	// does; a child when its scores sum strictly above its parent's).
	Accepted bool `json:"accepted,omitempty"`
}

// FrontSeed is one seed's entry of a GEPA Pareto front: the best score any
// accepted candidate reached on it and the candidates that reached it.
type FrontSeed struct {
	Seed       uint64  `json:"seed"`
	Best       float64 `json:"best"`
	Candidates []int   `json:"candidates"`
}

// PlannedCandidate is a candidate as planned: what to ask which planner.
type PlannedCandidate struct {
	Sample       int      `json:"sample"`
	Operator     string   `json:"operator"` // init, improve, crossover
	Planner      string   `json:"planner"`
	Parents      []string `json:"parents,omitempty"`
	Inspirations []string `json:"inspirations,omitempty"`
	Opponents    []string `json:"opponents,omitempty"`
	Seed         uint64   `json:"seed"`
}

// Candidate is what became of a planned candidate.
type Candidate struct {
	Sample   int    `json:"sample"`
	Policy   string `json:"policy,omitempty"` // the accepted policy (after local refinement)
	Status   string `json:"status"`           // refused, duplicate, failed, rejected, promoted
	Problem  string `json:"problem,omitempty"`
	Attempts int    `json:"attempts"`
	// Local holds the versions local refinement tried, first to last.
	Local []string `json:"local,omitempty"`
	// Refusals counts what went wrong on the way, by kind: each refused
	// attempt (missing, invalid, nondeterministic, slow, runtime,
	// duplicate) and each failed self-play seed ("self-play " + tampered,
	// slow, invalid-action, nondeterministic or runtime) — whether hacks
	// and failures appear without being asked for.
	Refusals map[string]int `json:"refusals,omitempty"`
	Metrics  Metrics        `json:"metrics"`
	WinRate  float64        `json:"win_rate"`
	Games    int            `json:"games"`
	Elo      float64        `json:"elo,omitempty"`
	// Invasion is the candidate's invasion test, under the robust
	// objective only (nil otherwise): made once, before any candidate of
	// its iteration is promoted, and stored, so that a resumed run reads
	// it back.
	Invasion *Invasion `json:"invasion,omitempty"`
	// Invader is the candidate's score under the exploit objective only
	// (nil otherwise): its mean per-agent return as the run's K invaders
	// among residents running the run's target, on the evaluation seeds
	// (its invasion evaluation, store.Evaluation.Against).
	Invader *float64 `json:"invader,omitempty"`
	Usage   RunUsage `json:"usage"`
}

// Invasion is the outcome of an invasion test: one agent of each invader
// seated among the tested policy's own (k = 1) on the match seeds. The
// worst invader (none: "") gains Gain per agent over the residents, whose
// mean per-agent return there is Residents; Resists is the verdict under
// the run's margin.
type Invasion struct {
	Invader   string  `json:"invader,omitempty"`
	Gain      float64 `json:"gain"`
	Residents float64 `json:"residents"`
	Resists   bool    `json:"resists"`
}

// Candidate statuses: first proposed and evaluated, then settled.
const (
	CandidateDrafted   = "drafted"   // first version stored; local refinement to come (population)
	CandidateProposed  = "proposed"  // admitted and stored; not evaluated yet
	CandidateEvaluated = "evaluated" // self-play done (chain: settled; population: matches next)
	CandidateSkipped   = "skipped"   // a budget was reached before it was proposed
	CandidateRefused   = "refused"   // no attempt passed admission
	CandidateDuplicate = "duplicate" // the same as a stored policy after normalisation
	CandidateFailed    = "failed"    // admitted, but its self-play failed
	CandidateRejected  = "rejected"  // evaluated and rated, not promoted
	CandidatePromoted  = "promoted"  // joined the global pool
)

// Admission is the verdict of the admission check on a policy source for
// a game, made once: it depends on the machine (the cost budget is CPU
// time), so a resumed run reads it back instead of checking again.
type Admission struct {
	Policy string `json:"policy"` // id of the source
	Game   string `json:"game"`
	OK     bool   `json:"ok"`
	// Kind, Problem and Detail describe a refusal as the planner was
	// shown it (see evolve.Problem).
	Kind    string    `json:"kind,omitempty"`
	Problem string    `json:"problem,omitempty"`
	Detail  string    `json:"detail,omitempty"`
	Created time.Time `json:"created"`
}

// Critique is the trajectory critic's verdict on a policy's episodes: the
// diagnostics, the ranked reflections, the feedback level they were made
// for, and the run, environment, seeds and opponents they concern.
type Critique struct {
	ID      uint64    `json:"id"`
	Run     string    `json:"run,omitempty"`
	Policy  string    `json:"policy"`
	Source  string    `json:"source,omitempty"` // who wrote the reflections: analytic, llm:…
	Text    string    `json:"text"`             // the reflections as shown to a planner
	Created time.Time `json:"created"`

	// The fields below came with the trajectory critic; records written
	// before it leave them empty.

	Iteration int       `json:"iteration,omitempty"` // the run's iteration
	Level     string    `json:"level,omitempty"`     // feedback level: sparse, dense or critic
	Env       EnvConfig `json:"env,omitzero"`
	Seeds     []uint64  `json:"seeds,omitempty"`
	// Opponents names the policies the diagnosed matches were played
	// against (none for self-play).
	Opponents []string `json:"opponents,omitempty"`
	// Diagnostics are the critic's numbers (critic.Diagnostics as JSON).
	Diagnostics json.RawMessage `json:"diagnostics,omitempty"`
	Reflections []Reflection    `json:"reflections,omitempty"`
	// Fallback says why an LLM critic's answer was replaced by the
	// analytic critic's.
	Fallback string `json:"fallback,omitempty"`
}

// Reflection is one finding of a critique, as the critic ranked it.
type Reflection struct {
	Code  string  `json:"code"`
	Text  string  `json:"text"`
	Stake float64 `json:"stake"` // estimated per-agent reward at stake
}

// LLMCall records one call to a language model, whatever its outcome.
type LLMCall struct {
	ID        uint64        `json:"id"`
	Run       string        `json:"run,omitempty"`
	Provider  string        `json:"provider"`
	Model     string        `json:"model"`
	Prompt    string        `json:"prompt"` // the user message
	Answer    string        `json:"answer"`
	TokensIn  int           `json:"tokens_in"`
	TokensOut int           `json:"tokens_out"` // reasoning included
	Cost      float64       `json:"cost"`
	Latency   time.Duration `json:"latency"`
	Error     string        `json:"error,omitempty"`
	Created   time.Time     `json:"created"`

	// Key identifies the request (provider, server, model, settings,
	// messages, sample index): a successful call is found again by its
	// run and key (Tx.LLMCallByKey), so that a resumed run pays for no
	// request twice.
	Key             string   `json:"key,omitempty"`
	BaseURL         string   `json:"base_url,omitempty"` // the server, when not the provider's default
	System          string   `json:"system,omitempty"`   // the system message
	Sample          int      `json:"sample,omitempty"`   // which draw from the same prompt
	Purpose         string   `json:"purpose,omitempty"`  // what the call was for: init, improve, fix, ping…
	Temperature     *float64 `json:"temperature,omitempty"`
	MaxTokens       int      `json:"max_tokens,omitempty"`
	Reasoning       string   `json:"reasoning,omitempty"` // the reasoning setting sent (effort or budget)
	Thinking        string   `json:"thinking,omitempty"`  // the model's reasoning text, when it returns it
	TokensReasoning int      `json:"tokens_reasoning,omitempty"`
	Attempts        int      `json:"attempts,omitempty"` // HTTP attempts, retries included
	// Unpriced: the price table had no price for the model, so Cost is
	// unknown (0 here).
	Unpriced bool `json:"unpriced,omitempty"`
	// Turns go on from Prompt in a conversation (a fix request: the
	// model's failed answer, then the errors); empty for a single-turn
	// call.
	Turns []LLMTurn `json:"turns,omitempty"`
}

// LLMTurn is one message of a conversation after its first user message.
type LLMTurn struct {
	Role string `json:"role"` // "assistant" or "user"
	Text string `json:"text"`
}

// Comparison is the report of a comparison (compare): its id ("cmp-…"),
// when it was made, and the report as compare wrote it (JSON: rows of
// methods with their runs, champions and statistics). The runs it names
// are in the store too.
type Comparison struct {
	ID      string          `json:"id"`
	Created time.Time       `json:"created"`
	Report  json.RawMessage `json:"report"`
}
