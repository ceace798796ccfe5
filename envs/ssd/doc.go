// Package ssd is what a policy sees of a Sequential Social Dilemma and may
// call: the read-only View of a state snapshot, the action and orientation
// constants, and helpers that make the reference policies' decisions
// (BFS to the nearest apple, beam targeting, the greedy, exploitative and
// cooperative policies) plus native ones that make written policies fast
// (distance fields, Voronoi territories, clean-beam counts).
//
// The package imports only the standard library: its source is compiled
// into the worker processes that run untrusted policies, so it must stand
// alone. A policy is a function
//
//	func Policy(v *ssd.View, agent int) int
//
// called for every agent it plays, in id order, once per step. Nothing a
// View returns aliases the environment: accessors return values or fresh
// slices.
//
// # Cost
//
// Accessors and per-agent helpers (BFSNearestApple, BFSToTargets,
// BeamHitsFrom, CleanBeamCount, DistanceFieldFrom) cost one search or
// scan each call. The whole-map helpers Voronoi and DistanceField (per
// source cell) are computed once per state and shared by every agent
// asked in that step (each caller gets a copy), so asking them for every
// agent costs about one computation plus copies; a search per cell per
// step has no such discount.
//
// # One game's API
//
// The LLM planner's prompts list this package's API as a policy of one
// game sees it (evolve/planner/prompts), leaving out what only the other
// game can use. Such a declaration is marked here: a function or method
// by the directive "//ssd:game cleanup" (or gathering) at the end of its
// doc comment, a constant by "Cleanup only" in its comment, and struct
// fields by a heading comment "// Cleanup." over their group (up to the
// next field with a doc comment of its own). "//ssd:game both" marks what
// only a description of both games needs (the Game type: a policy of one
// game knows which it plays).
//
// Coordinates: rows grow southwards, columns eastwards; Pos{R, C}.
// Orientations North, East, South, West are 0..3; movement actions are
// relative to the agent's orientation and agents may share cells.
package ssd
