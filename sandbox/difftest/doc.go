// Package difftest generates random, valid, deterministic policy programs
// for differential testing of the sandbox's two backends (the Go compiler
// and the yaegi interpreter).
//
// A generated program is an ordinary policy source (package policy,
// func Policy(v *ssd.View, agent int) int) made of many independent entry
// functions. Each entry function computes with the Go subset that policies
// use — parallel and compound assignments, composite literals of every
// kind, nested structs and arrays, slices (append aliasing, copy,
// three-index slices), maps read in sorted order, closures capturing loop
// variables, methods on value and pointer receivers, switch with
// fallthrough, labelled break and continue, integer overflow and
// conversions, constant arithmetic, math, sort, strings, strconv,
// container/heap, defer and recover — in the style an LLM writes
// (structs of positions, candidates sorted with sort.Slice, sets read in
// sorted order, helper closures, early returns), and folds every value it
// computes into a digest. Policy calls one entry function per agent and
// step, chosen by (step × agents + agent) mod the number of entries, and
// returns bits of its digest as the action: a difference in any value
// computed shows as a difference in actions, and the first differing step
// and agent name the entry function that differs.
//
// Generation is a pure function of a seed: Generate(seed, cfg) always
// returns the same program, so a seed is a complete reproducer. Programs
// never panic, never loop without bound, never depend on map iteration
// order, and stay small in memory and time; every variable they declare
// is used. The package imports only the standard library.
package difftest
