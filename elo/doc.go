// Package elo rates policies by playing them against each other in N-agent
// games, with PolicyEvolve's Elo formulas for a running rating and a
// Bradley–Terry maximum-likelihood fit for an order-independent one.
//
// A match between policies A and B on one environment and seed is two
// episodes: A plays the even agent indices and B the odd ones, then the
// sides swap. Each side's score is the mean per-agent return of its agents
// over both episodes; the higher score wins unless the two are within the
// draw tolerance. Episodes are run by a function the caller hands in, so
// the package needs nothing but the standard library.
package elo
