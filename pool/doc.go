// Package pool holds the rules of PolicyEvolve's pools, each a small pure
// function: what a run selects for (Objective: welfare, elo or robust —
// docs/objectives.md; call sites ask its methods, answered from one table
// of rules in rules.go), which opponents a candidate meets (softmax over
// Elo), when a candidate is promoted into the global pool (a win rate
// strictly above a threshold in the objective's games, a self-play
// evaluation that succeeded, and under robust the invasion test: Admit),
// who is the run's champion under its objective (Champion), and whom to
// evict when the pool is over capacity (a Pareto rank over Elo and the
// social metrics, with crowding distance, so that the only member of a
// niche is kept while crowded members go first). The pools themselves are
// stored by package store; packages evolve/arena and evolve/population
// apply the rules.
package pool
