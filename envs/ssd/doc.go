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
// Coordinates: rows grow southwards, columns eastwards; Pos{R, C}.
// Orientations North, East, South, West are 0..3; movement actions are
// relative to the agent's orientation and agents may share cells.
package ssd
