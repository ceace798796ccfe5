package evolve

import (
	"time"

	"policyevolve/evolve/timing"
	"policyevolve/pool"
	"policyevolve/store"
)

// EventKind says what happened in a job.
type EventKind string

// The events a job reports, in the order they happen.
const (
	EventStarted       EventKind = "started"   // a new run, or a resumed one (Message says which)
	EventIteration     EventKind = "iteration" // an iteration begins
	EventPhase         EventKind = "phase"     // a phase of it begins: propose, refine (population), evaluate, challenge
	EventCandidate     EventKind = "candidate" // a candidate is settled (Candidate)
	EventIterationDone EventKind = "iteration-done"
	EventStopped       EventKind = "stopped" // a budget or an interruption (Message: why)
	EventDone          EventKind = "done"
)

// Event is one thing a job reports. Fields beyond Kind, Run and Time are
// set when they mean something for the kind.
//
// Iterations are numbered from 0, everywhere (events, runs show, the
// report; in chain mode iteration 0 is the initial policy and iteration k
// the k-th refinement). Iteration is the iteration the event is about;
// for started, stopped and done, the last iteration finished (-1 when
// none is). Iterations is how many the run makes in all, Completed how
// many are finished: counts, not numbers.
type Event struct {
	Kind       EventKind `json:"kind"`
	Run        string    `json:"run"`
	Iteration  int       `json:"iteration"`
	Iterations int       `json:"iterations"`
	Completed  int       `json:"completed"`
	// Planned: how many candidates the iteration plans (iteration).
	Planned   int              `json:"planned,omitempty"`
	Phase     string           `json:"phase,omitempty"`
	Candidate *store.Candidate `json:"candidate,omitempty"`
	// Objective is the run's (docs/objectives.md): what its champion and
	// best candidate are best by.
	Objective pool.Objective `json:"objective,omitempty"`
	// Champion is the run's best policy so far under its objective
	// (iteration-done, done, stopped); on iteration-done, ChampionMetrics
	// are its self-play metrics and ChampionElo its rating in the global
	// pool (0 when it is not a member).
	Champion        string         `json:"champion,omitempty"`
	ChampionMetrics *store.Metrics `json:"champion_metrics,omitempty"`
	ChampionElo     float64        `json:"champion_elo,omitempty"`
	// ChampionRechecked, on iteration-done, is the champion's mean
	// efficiency over the evaluation and recheck seeds when it was
	// rechecked before it was crowned (JobConfig.Recheck): what it was
	// ranked by.
	ChampionRechecked *float64 `json:"champion_rechecked,omitempty"`
	// ChampionSeeds (iteration-done) are the seeds ChampionMetrics are
	// measured on (the evaluation seeds), and RecheckedSeeds, with
	// ChampionRechecked, every seed of its mean: a figure is never shown
	// without the seeds it is over (docs/objectives.md).
	ChampionSeeds  []uint64 `json:"champion_seeds,omitempty"`
	RecheckedSeeds []uint64 `json:"rechecked_seeds,omitempty"`
	// BestCandidate is the iteration's best candidate under the run's
	// objective (iteration-done), whether or not it became champion.
	BestCandidate *Standing      `json:"best_candidate,omitempty"`
	Usage         store.RunUsage `json:"usage"`
	Message       string         `json:"message,omitempty"`
	// Profile is where the time went: in the iteration (iteration-done),
	// in the whole job (done, stopped).
	Profile *timing.Totals `json:"profile,omitempty"`
	Time    time.Time      `json:"time"`
}

// Standing is a policy as an event names it: its self-play metrics and,
// when it is rated, its Elo.
type Standing struct {
	Policy  string        `json:"policy"`
	Metrics store.Metrics `json:"metrics"`
	Elo     float64       `json:"elo,omitempty"`
}

// A Reporter receives a job's events. The job calls it from one goroutine
// at a time; it should return quickly.
type Reporter interface {
	Report(Event)
}

// ReporterFunc adapts a function to Reporter.
type ReporterFunc func(Event)

// Report calls f.
func (f ReporterFunc) Report(e Event) { f(e) }

// noReporter discards events.
type noReporter struct{}

func (noReporter) Report(Event) {}
