package main

import (
	"context"
	"fmt"
	"io"

	"policyevolve/envs"
	"policyevolve/evolve/arena"
	"policyevolve/sandbox"
	"policyevolve/store"
)

// watchArena keeps a command that plays many episodes from a silent log:
// off a terminal, whenever it printed nothing for progressEvery, a line
// says what it does (what) and how many episodes it has played. The
// arena's own lines go through it. Call the returned function when done.
func watchArena(a *arena.Arena, name, what string, stderr io.Writer) (stop func()) {
	p := commandProgress(name, what, stderr)
	p.activity = func() (int, int) { return 0, a.Episodes() }
	a.Log = p.logf
	return p.heartbeat(progressEvery)
}

// commandProgress is the progress of a command that runs no job: no bar,
// its lines prefixed with its name, its heartbeat saying what it does.
func commandProgress(name, what string, stderr io.Writer) *evolveProgress {
	p := newEvolveProgress(nil, stderr, false)
	p.quiet, p.prefix, p.note = true, name+": ", what
	return p
}

// silenceWatch says, off a terminal, what a command that plays episodes
// without an Arena does (play, critique, transfer, invade): a line after
// every progressEvery of silence, with the step it is at and how long it
// has been at it (docs/cli.md, progress lines).
type silenceWatch struct {
	p    *evolveProgress
	Stop func()
}

func watchSilence(name, what string, stderr io.Writer) *silenceWatch {
	p := commandProgress(name, what, stderr)
	return &silenceWatch{p: p, Stop: p.heartbeat(progressEvery)}
}

// doing says what the command does from now on.
func (w *silenceWatch) doing(format string, args ...any) { w.p.setNote(fmt.Sprintf(format, args...)) }

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
	sbo.setEnv(env) // admission (pool import, propose, tune) compares the backends here
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

// crossCheckStored compares, for the policies of ids that the yaegi
// backend runs from source, the two backends on the arena's own
// environment (see sandboxOptions.crossCheck), before they play: match
// and invade do not admit the policies they play.
func crossCheckStored(ctx context.Context, ar *arena.Arena, sbo *sandboxOptions, seed uint64, stderr io.Writer, ids ...string) error {
	if ar.Sandbox.Backend() != sandbox.Yaegi {
		return nil
	}
	cfg := envs.Config{Map: ar.Env.Map, Agents: ar.Env.Config.Agents, MaxSteps: ar.Env.Config.MaxSteps}
	for _, id := range ids {
		var p *store.Policy
		if err := ar.Store.View(func(tx *store.Tx) (err error) {
			p, err = tx.Policy(id)
			return err
		}); err != nil {
			return err
		}
		if p.Builtin != "" || p.Source == "" {
			continue
		}
		prog, err := ar.Sandbox.Compile(ctx, []byte(p.Source))
		if err != nil {
			return fmt.Errorf("policy %.12s: %w", id, err)
		}
		err = sbo.crossCheck(ctx, ar.Sandbox, prog, []byte(p.Source), cfg, seed, fmt.Sprintf("policy %.12s", id), stderr)
		prog.Close()
		if err != nil {
			return err
		}
	}
	return nil
}
