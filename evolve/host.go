package evolve

import (
	"context"

	"policyevolve/critic"
	"policyevolve/evolve/arena"
	"policyevolve/evolve/planner"
	"policyevolve/evolve/search"
	"policyevolve/evolve/timing"
	"policyevolve/store"
)

// host is the job as its mode sees it (search.Run).
type host struct{ j *Job }

var _ search.Run = host{}

func (h host) ID() string                          { return h.j.RunID }
func (h host) Store() *store.Store                 { return h.j.Store }
func (h host) Arena() *arena.Arena                 { return h.j.arena }
func (h host) Critic() critic.Critic               { return h.j.critic }
func (h host) Profile() *timing.Profile            { return h.j.profile }
func (h host) Planner(spec string) planner.Planner { return h.j.planners[spec] }
func (h host) SeedFor(parts ...any) uint64         { return h.j.seedFor(parts...) }
func (h host) Budget(pending store.RunUsage) (string, error) {
	return h.j.budgetWith(pending)
}
func (h host) Stopping() bool                 { return h.j.stop.Load() }
func (h host) Interrupted() bool              { return h.j.interrupted() }
func (h host) ShouldStop() bool               { return h.j.shouldStop() }
func (h host) Save(it *store.Iteration) error { return h.j.saveIteration(it) }
func (h host) Past(tx *store.Tx) ([]store.Iteration, error) {
	return h.j.history.iterations(tx, h.j.RunID)
}
func (h host) Logf(format string, args ...any) { h.j.logf(format, args...) }
func (h host) Phase(i int, name string)        { h.j.emit(Event{Kind: EventPhase, Iteration: i, Phase: name}) }
func (h host) Settled(i int, c *store.Candidate) {
	h.j.emit(Event{Kind: EventCandidate, Iteration: i, Candidate: c})
}
func (h host) Scored(ctx context.Context, id string) (planner.Scored, error) {
	return h.j.scored(ctx, id)
}

func (h host) Usage() store.RunUsage {
	h.j.mu.Lock()
	defer h.j.mu.Unlock()
	return h.j.run.Usage
}

func (h host) StopForBudget(why string) {
	h.j.mu.Lock()
	defer h.j.mu.Unlock()
	h.j.stopFor(store.StopBudget, why)
}

func (h host) Propose(ctx context.Context, it *store.Iteration, pc store.PlannedCandidate, sample int, r search.Request) (*planner.Outcome, error) {
	return h.j.propose(ctx, it, pc, sample, r)
}
