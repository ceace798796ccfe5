// Package gepa is GEPA-style prompt evolution as a search mode, the
// paper's third baseline: what evolves is the strategy guidance of one
// planner's system prompt, kept on a Pareto front over the evaluation
// seeds and rewritten by reflection (the planner's
// planner.GuidedPlanner side).
package gepa
