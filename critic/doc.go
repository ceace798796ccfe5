// Package critic turns recorded episodes into diagnostics (numbers) and
// reflections (ranked findings with a direction) that a planner can act
// on: PolicyEvolve's trajectory critic, and the "critic" feedback level.
//
// The path is Derive (the beams, hits, tags, cleaning and collections of
// every step, reconstructed from actions and states and checked against
// them), Diagnose (Diagnostics over a policy's self-play episodes and
// matches, for the agents the policy plays), then a Critic: Analytic,
// deterministic rules ranked by an estimate of the reward at stake, or
// LLM, a language model shown the diagnostics table and the source, with
// Analytic as its fallback.
//
// It imports envs, envs/ssd, elo and the standard library; it knows
// nothing of the store, the search or the LLM client (Model is the small
// interface it needs).
package critic
