// Package critic turns recorded episodes into diagnostics (numbers) and
// reflections (ranked findings with a direction) that a planner can act
// on: PolicyEvolve's trajectory critic, and the "critic" feedback level.
//
// It imports envs and the standard library only; it knows nothing of the
// store or the search.
package critic
