// Package search holds what the search modes share: the Mode interface
// that the job (evolve.Job) drives, the Run through which a mode uses the
// job — its store, arena, planners, budgets and events — the Request a
// candidate makes of its planner, and the bookkeeping of a candidate's
// record. The modes themselves are packages of their own: chain,
// population and gepa.
package search
