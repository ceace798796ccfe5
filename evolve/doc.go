// Package evolve orchestrates the search: it is the one package that
// brings the environments, the sandbox, the store, the pools and the
// ratings together. Today it holds the Arena, which evaluates policies in
// self-play, plays and records matches, rates candidates against pool
// opponents and admits hand-written policies into a global pool; the
// chain and population loops will be built on it.
//
// Nothing stored is ever recomputed: an evaluation (policy, environment,
// seeds) or a match (A, B, environment, seed) found in the store is
// reused, so an interrupted command or job resumes where it stopped.
package evolve
