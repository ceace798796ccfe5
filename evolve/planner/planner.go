package planner

import (
	"context"
	"fmt"

	"policyevolve/critic"
	"policyevolve/envs/ssd"
	"policyevolve/evolve/episode"
	"policyevolve/store"
)

// Planner writes policy source: it is the search's mutation operator. The
// LLM planner, the offline grammar planner, replay (tests) and GEPA's
// prompt-level planner implement it, and one conformance suite runs
// against all of them.
//
// Each method makes one proposal, which is one "planner call" for budgets
// and compare (docs/decisions.md): one LLM request, one rendered genome.
//
// A method returns an error only for a failure of the system: the LLM
// unreachable after its retries, a recorder that cannot write, a cancelled
// context. An answer that holds no usable policy (no code block, say) is
// not an error: it is a Proposal with Source nil and Problem set, which
// the caller hands to Fix like a validation error; it cost a call all the
// same.
//
// Methods may be called concurrently; all randomness comes from
// Task.Seed, so the same requests give the same proposals.
type Planner interface {
	// Name identifies the planner in Origin.Planner: "llm:PROVIDER:MODEL",
	// "grammar", "replay"…
	Name() string
	// Init writes a policy from scratch (the paper's iteration 0).
	Init(ctx context.Context, req InitRequest) (*Proposal, error)
	// Improve rewrites a parent from feedback on it (and, in population
	// search, inspirations from the global pool).
	Improve(ctx context.Context, req ImproveRequest) (*Proposal, error)
	// Crossover merges two parents.
	Crossover(ctx context.Context, req CrossoverRequest) (*Proposal, error)
	// Fix retries a proposal that failed: no policy in the answer,
	// validation, the smoke test, or a runtime failure.
	Fix(ctx context.Context, req FixRequest) (*Proposal, error)
}

// Operators, as recorded in store.Origin.Operator.
const (
	OpInit      = "init"
	OpImprove   = "improve"
	OpCrossover = "crossover"
	OpFix       = "fix"
)

// Feedback is what a planner is shown about earlier results.
type Feedback string

// Feedback levels: the paper's two, and ours.
const (
	// Sparse shows the mean per-agent reward only (the paper's
	// "code-reward").
	Sparse Feedback = "sparse"
	// Dense adds efficiency, equality, sustainability and peace (the
	// paper's "code-reward-all").
	Dense Feedback = "dense"
	// Critic is Dense plus the trajectory critic's reflections.
	Critic Feedback = "critic"
	// Raw is Dense plus a compact excerpt of the parent's raw trajectory
	// in place of the critic's reflections: PolicyEvolve's "no critic"
	// arm, so experiments can tell what the critic adds.
	Raw Feedback = "raw"
)

// ShowsMetrics reports whether the level shows the social metrics (all
// but sparse).
func (f Feedback) ShowsMetrics() bool { return f == Dense || f == Critic || f == Raw }

// ParseFeedback accepts "sparse", "dense", "critic" and "raw".
func ParseFeedback(s string) (Feedback, error) {
	switch f := Feedback(s); f {
	case Sparse, Dense, Critic, Raw:
		return f, nil
	}
	return "", fmt.Errorf("unknown feedback level %q (want sparse, dense, critic or raw)", s)
}

// Task is what every planner call shares: the environment the policy is
// for and where in a run the call is made.
type Task struct {
	Env episode.Env
	// Run and Iteration place the call in a job (empty and 0 outside one).
	Run       string
	Iteration int
	// Iterations is K, the number of refinements of a chain after its
	// iteration 0 (the paper's prompts say "Iteration i/K"); 0 outside a
	// chain.
	Iterations int
	// Sample tells apart the candidates drawn from the same request in
	// the same iteration: the n-th is a different request from the
	// (n+1)-th, for the LLM response cache as for the offline planner's
	// random draws.
	Sample int
	// Seed is the source of every random choice the planner makes.
	Seed uint64
	// Feedback is the level of feedback to show (Improve, Fix).
	Feedback Feedback
	// Try, when set, plays a draft policy for every agent on a few seeds
	// and describes how it did (its scores at the Feedback level, or why
	// it could not run): the tool of the ReAct prompt style. Nothing it
	// plays is stored.
	Try func(ctx context.Context, src []byte) string
	// CallsLeft is how many planner calls the run's budget still allows
	// (0: no budget): a ReAct proposal stops testing drafts before its
	// turns would pass it.
	CallsLeft int
	// Written, when set, reports whether the run would refuse a source as
	// written before (the fix loop's duplicate screen; FixLoop sets it
	// from its Screen). A planner that chooses among several proposals,
	// as the grammar planner does among the genomes its search met, skips
	// those, so that no call is spent on a policy the run already has.
	Written func(src []byte) bool
	// Target, when set, is the exploit objective's: the proposal is
	// scored as Target.Invaders agents (0…K−1) among residents running
	// Target's policy, by its own agents' mean return
	// (docs/objectives.md). Nil: it plays every agent.
	Target *Target
}

// Target is the policy an exploit run's proposals play against.
type Target struct {
	// Name names it (a built-in's name, else a short id); Builtin is the
	// built-in's name ("" for a source policy), Source a source policy's
	// code (what an LLM planner is shown).
	Name, Builtin, Source string
	Invaders              int
}

// Scored is a policy with what is known of it, as shown to a planner.
type Scored struct {
	Policy store.Policy
	// Eval is its self-play evaluation on the run's seeds; nil when it
	// has none (yet).
	Eval *store.Evaluation
	// Elo is its rating in the global pool when Rated.
	Elo   float64
	Rated bool
}

// InitRequest asks for a policy from scratch.
type InitRequest struct {
	Task
}

// ImproveRequest asks for a better version of Parent.
type ImproveRequest struct {
	Task
	Parent Scored
	// History holds the chain's earlier iterations, oldest first, Parent
	// last: the paper's feedback lists each one's scores.
	History []Scored
	// Inspirations are up to three other pool members (population search).
	Inspirations []Scored
	// Reflections are the critic's findings on Parent's episodes, ranked,
	// shown at the Critic level; Diagnostics are the numbers behind them
	// (nil when the critic did not run), for planners that act on numbers.
	Reflections []critic.Reflection
	Diagnostics *critic.Diagnostics
	// Excerpt is a compact excerpt of Parent's raw self-play trajectory,
	// shown at the Raw level.
	Excerpt string
}

// CrossoverRequest asks for a policy that merges two parents.
type CrossoverRequest struct {
	Task
	A, B Scored
}

// FixRequest asks to repair Failed, which went wrong with Problem.
type FixRequest struct {
	Task
	// Failed is the proposal that failed, as its planner returned it (its
	// State lets the planner continue the same conversation).
	Failed *Proposal
	// Problem is what went wrong: Failed.Problem, a *sandbox.ValidationError,
	// a *sandbox.PolicyError from the smoke test or an episode…
	Problem error
	// Attempt counts the fixes of this proposal so far, from 1.
	Attempt int
}

// Proposal is a planner's answer.
type Proposal struct {
	// Source is the policy; nil when the answer held none (see Problem).
	Source []byte
	// Problem says why Source is nil: for instance no code block in the
	// answer. It is fed back through Fix.
	Problem error
	// Origin is the provenance to store with the policy: planner,
	// operator, parents and the LLM call that wrote it (Run and Iteration
	// are filled in by the caller).
	Origin store.Origin
	// Notes is the planner's own explanation of the design (an LLM's
	// reasoning before its code block; a genome's description).
	Notes string
	// Usage is what the proposal cost.
	Usage Usage
	// Calls is how many planner calls the proposal took when more than
	// one: a ReAct proposal's turns (each one LLM request). 0 means 1.
	Calls int
	// State is private to the planner that made the proposal: what its Fix
	// needs to carry on (an LLM planner's conversation, a genome).
	State any
}

// Usage is the cost of one or more planner calls.
type Usage struct {
	LLMCalls        int     // requests sent to a model (cached answers count 0)
	InputTokens     int     // prompt tokens
	OutputTokens    int     // completion tokens, reasoning included
	ReasoningTokens int     // the thinking part of OutputTokens, when reported
	Cost            float64 // US dollars, from the price table
}

// Add accumulates u2 into u.
func (u *Usage) Add(u2 Usage) {
	u.LLMCalls += u2.LLMCalls
	u.InputTokens += u2.InputTokens
	u.OutputTokens += u2.OutputTokens
	u.ReasoningTokens += u2.ReasoningTokens
	u.Cost += u2.Cost
}

// gameOf is the task's game.
func gameOf(t Task) (ssd.Game, error) { return ssd.ParseGame(t.Env.Config.Game) }
