package main

import (
	"fmt"
	"io"

	"policyevolve/evolve/arena"
)

// watchArena keeps a command that plays many episodes from a silent log:
// off a terminal, whenever it printed nothing for progressEvery, a line
// says what it does (what) and how many episodes it has played. The
// arena's own lines go through it. Call the returned function when done.
func watchArena(a *arena.Arena, name, what string, stderr io.Writer) (stop func()) {
	p := newEvolveProgress(nil, stderr, false)
	p.quiet, p.prefix, p.note = true, name+": ", what
	p.activity = func() (int, int) { return 0, a.Episodes() }
	a.Log = p.logf
	return p.heartbeat(progressEvery)
}

// openArena builds an Arena from the flags of a command that plays.
func openArena(so *storeOptions, mode storeMode, eo *envOptions, sbo *sandboxOptions, evalSeeds, matchSeeds string, stderr io.Writer) (*arena.Arena, error) {
	env, err := eo.resolve()
	if err != nil {
		return nil, err
	}
	es, err := parseSeeds(evalSeeds)
	if err != nil {
		return nil, usagef("--seeds: %v", err)
	}
	ms, err := parseSeeds(matchSeeds)
	if err != nil {
		return nil, usagef("--match-seeds: %v", err)
	}
	if env.Config.Agents < 2 {
		return nil, usagef("--agents: matches need at least 2 agents")
	}
	sb, err := sbo.open(stderr)
	if err != nil {
		return nil, err
	}
	s, err := so.open(mode)
	if err != nil {
		return nil, err
	}
	return &arena.Arena{Store: s, Sandbox: sb, Env: env, EvalSeeds: es, MatchSeeds: ms,
		Log: func(format string, args ...any) { fmt.Fprintf(stderr, format+"\n", args...) }}, nil
}
