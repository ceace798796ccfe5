// Package population is PolicyEvolve's population search as a search
// mode: a global pool of elites rated by Elo, candidates written from
// parents chosen by Pareto rank and refined in a local pool against the
// critic's reflections, promoted above a win rate.
package population
