// Package evolve runs evolution jobs. A Job is the coordinator of one
// run: it opens or resumes the run in the store, builds its planners,
// critic and arena, drives its search mode (package chain, population or
// gepa, behind search.Mode) iteration by iteration, and owns what every
// mode shares — the budgets and why the run stopped, the events a
// command shows, the profile of where the time went, and the duplicate
// screen. JobConfig is a run's configuration, stored with it so that a
// resumed run does exactly what the interrupted one would have.
//
// Nothing stored is ever recomputed: a plan, an admission verdict, an
// evaluation, a match, a critique or an LLM answer found in the store is
// reused, so an interrupted job resumes where it stopped and ends as an
// uninterrupted one. The design decisions this relies on are in
// docs/decisions.md; docs/architecture.md says which package may import
// which.
package evolve
