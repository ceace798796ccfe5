package search

import (
	"context"

	"policyevolve/critic"
	"policyevolve/evolve/arena"
	"policyevolve/evolve/planner"
	"policyevolve/evolve/timing"
	"policyevolve/store"
)

// A Mode is a search mode: what the iterations of a run do. The job
// (evolve.Job) drives it: for each iteration from the first not done, it
// loads the iteration as stored (perhaps half done by an interrupted
// run), has the mode Plan it, reports that it begins, has the mode Play
// it, and closes it with the mode's Champion. Plan and Play redo nothing
// that is stored, so that a resumed run ends as an uninterrupted one.
type Mode interface {
	// Iterations is how many iterations a run has.
	Iterations() int
	// Plan stores the iteration's plan unless it has one. false: a budget
	// forbids the iteration, and the run stops before it.
	Plan(ctx context.Context, it *store.Iteration) (bool, error)
	// Play carries the planned iteration to its end. false: the run stops
	// now (a budget, an interruption), the iteration left open.
	Play(ctx context.Context, it *store.Iteration) (bool, error)
	// Champion is the run's best policy after the iteration (which is not
	// saved with it yet).
	Champion(ctx context.Context, it *store.Iteration) (Champion, error)
}

// Champion is a run's best policy after an iteration, with its self-play
// metrics and, when it is rated in the global pool, its Elo (else 0).
type Champion struct {
	Policy  string
	Metrics store.Metrics
	Elo     float64
	// Rechecked, when the champion was rechecked before it was crowned
	// (Crown), is its mean efficiency over the evaluation and recheck
	// seeds, what it was ranked by.
	Rechecked *float64
}

// Run is the job a mode runs in, as the mode sees it: where it stores,
// evaluates and proposes, its budgets and stop requests, its events. The
// job implements it; its methods may be called from several goroutines.
type Run interface {
	// ID is the run's id.
	ID() string
	Store() *store.Store
	// Arena evaluates and rates the run's policies on its environment, in
	// its global pool.
	Arena() *arena.Arena
	// Critic writes the run's reflections.
	Critic() critic.Critic
	// Profile adds up where the run's time goes.
	Profile() *timing.Profile
	// Planner returns the planner a spec of the run's configuration names.
	Planner(spec string) planner.Planner
	// SeedFor derives a seed from the run seed and parts: the same parts
	// give the same seed, in any process.
	SeedFor(parts ...any) uint64

	// Budget says which budget forbids another planner call, in words
	// ("" when none does), counting the usage stored and pending (work in
	// hand not stored yet). A budget reached is recorded as why the run
	// stops, unless a reason is recorded already. Its error (the usage
	// could not be read) must stop the run: a budget that cannot be
	// checked is not one that is not reached.
	Budget(pending store.RunUsage) (string, error)
	// Usage is the run's usage as last counted.
	Usage() store.RunUsage
	// StopForBudget records a budget the mode itself finds reached (in
	// words) as why the run stops, unless a reason is recorded already.
	StopForBudget(why string)
	// Stopping says whether the job was asked to stop, recording nothing.
	Stopping() bool
	// Interrupted says whether the job was asked to stop, recording the
	// interruption as why the run stops unless a budget was reached first.
	Interrupted() bool
	// ShouldStop says whether the run is to stop before its next step: a
	// reason is recorded, or the job was asked to stop (then recorded).
	ShouldStop() bool

	// Propose runs one request of candidate pc through the fix loop: the
	// planner's proposal, admission, the duplicate screen, storage.
	// sample tells apart the requests of one candidate (local rounds).
	Propose(ctx context.Context, it *store.Iteration, pc store.PlannedCandidate, sample int, r Request) (*planner.Outcome, error)
	// Scored is a stored policy with its evaluation (evaluated when
	// needed) and its rating in the global pool, as a planner is shown it.
	Scored(ctx context.Context, id string) (planner.Scored, error)
	// Save stores the iteration as it stands.
	Save(it *store.Iteration) error
	// Past is the run's iterations as stored, in order, read in tx: the
	// finished ones are read once and kept (they are never written
	// again), so that reading the past costs the same late in a long run
	// as early. The records are shared: the mode must not change them.
	Past(tx *store.Tx) ([]store.Iteration, error)

	// Phase reports that a phase of iteration i begins.
	Phase(i int, name string)
	// Settled reports that candidate c of iteration i is settled.
	Settled(i int, c *store.Candidate)
	// Logf writes one line about a notable step.
	Logf(format string, args ...any)
}

// Request is what a candidate asks its planner.
type Request struct {
	Op           string   // planner.OpInit, OpImprove or OpCrossover
	Parent       string   // improve, crossover
	History      []string // chain: the earlier iterations' policies, oldest first
	Inspirations []string
	Mate         string // crossover
	// Planner, when set, writes instead of the plan's planner (GEPA: the
	// planner under a candidate's guidance).
	Planner planner.Planner
	// Known accepts a policy written before instead of refusing it as a
	// duplicate (GEPA scores whatever a prompt makes the planner write).
	Known bool
	// Spent is the planner calls the request's candidate took that are
	// not stored yet (a population candidate's earlier local rounds): the
	// planner-call budget counts them.
	Spent int
}
