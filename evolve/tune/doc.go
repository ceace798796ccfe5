// Package tune tunes the numeric constants of any policy source, an
// LLM's included, without another LLM call: it finds the literals that
// read as constants with go/ast (Find), searches their values with
// eaopt's genetic algorithm against self-play efficiency on training
// seeds, every candidate built and played through the sandbox (the source
// is untrusted), within a budget of candidates, and reports the winner
// only as kept when it also beats the original on held-out seeds.
//
// It imports envs, sandbox and eaopt; evolve stores a kept result as a
// child of the original (operator tune).
package tune
