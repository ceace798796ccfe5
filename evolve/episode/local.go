package episode

import (
	"container/list"
	"context"
	"fmt"
	"runtime"
	"sync"

	"policyevolve/envs"
	"policyevolve/evolve/timing"
	"policyevolve/sandbox"
	"policyevolve/store"
)

// Local plays episodes on this machine: each source policy compiled once
// (by id) in the Sandbox and played in its confined, reused workers — a
// self-play episode inside the worker and replayed here, a mixed one step
// by step — and built-ins in-process. It is the arena's executor unless
// another is set, and what a remote evaluation worker runs.
//
// The zero value works once Sandbox is set (without one, only built-ins
// can play). Local is safe for concurrent use; Close ends the idle policy
// workers.
type Local struct {
	Sandbox *sandbox.Sandbox
	// Workers bounds the episodes played at once (default: the number of
	// CPUs).
	Workers int
	// MaxPrograms bounds the compiled policies kept, the least recently
	// played dropped first (0: keep all; a long-lived worker sets it).
	MaxPrograms int
	// Profile, when set, adds up the time spent compiling and playing.
	Profile *timing.Profile

	once   sync.Once
	slots  chan struct{} // one per episode in play
	limits Limits

	mu       sync.Mutex // guards programs and recent
	programs map[string]*list.Element
	recent   list.List // of *compiled, most recently played first
}

var _ Executor = (*Local)(nil)

type compiled struct {
	id   string
	prog *sandbox.Program
}

func (l *Local) init() {
	if l.Workers <= 0 {
		l.Workers = runtime.NumCPU()
	}
	l.slots = make(chan struct{}, l.Workers)
	l.limits = LimitsOf(l.Sandbox)
	l.programs = map[string]*list.Element{}
}

// Play plays one episode when one of the Workers slots is free.
func (l *Local) Play(ctx context.Context, ep *Episode) (*envs.Result, error) {
	l.once.Do(l.init)
	select {
	case l.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-l.slots }()
	// Compile the policies (the first time) before the clock of playing
	// starts.
	progs := make([]*sandbox.Program, len(ep.Policies))
	for k := range ep.Policies {
		var err error
		if progs[k], err = l.Compile(ctx, &ep.Policies[k], ep.Limits); err != nil {
			return nil, err
		}
	}
	cfg, err := ep.config()
	if err != nil {
		return nil, err
	}
	l.Profile.Episode()
	defer l.Profile.Start(timing.Playing)()
	if len(progs) == 1 && progs[0] != nil {
		return progs[0].SelfPlay(ctx, cfg, envs.Options{Seed: ep.Seed})
	}
	env, err := envs.New(cfg)
	if err != nil {
		return nil, err
	}
	seats := make([]envs.Seat, len(progs))
	for k, prog := range progs {
		if prog != nil {
			seats[k].Actor = prog.Actor()
			continue
		}
		p := &ep.Policies[k]
		if seats[k].Actor, err = BuiltinActor(&store.Policy{ID: p.ID, Source: p.Source, Builtin: p.Builtin}); err != nil {
			return nil, err
		}
	}
	for i, s := range ep.Side {
		seats[s].Agents = append(seats[s].Agents, i)
	}
	var used []envs.Seat
	for _, s := range seats {
		if len(s.Agents) > 0 {
			used = append(used, s)
		}
	}
	return envs.Run(ctx, env, used, envs.Options{Seed: ep.Seed, Verify: true})
}

// Compile returns a source policy's compiled Program (nil for a
// built-in), compiled once while it is kept. The sandbox must have the
// limits the episode asks for.
func (l *Local) Compile(ctx context.Context, p *Policy, want Limits) (*sandbox.Program, error) {
	l.once.Do(l.init)
	if p.Builtin != "" {
		return nil, nil
	}
	if l.Sandbox == nil {
		return nil, fmt.Errorf("policy %.12s is source code and no sandbox is configured", p.ID)
	}
	if want != l.limits {
		return nil, fmt.Errorf("policy %.12s: the episode asks for the sandbox limits %+v, this one has %+v", p.ID, want, l.limits)
	}
	l.mu.Lock()
	if e := l.programs[p.ID]; e != nil {
		l.recent.MoveToFront(e)
		l.mu.Unlock()
		return e.Value.(*compiled).prog, nil
	}
	l.mu.Unlock()
	done := l.Profile.Start(timing.Compiling)
	prog, err := l.Sandbox.Compile(ctx, []byte(p.Source))
	done()
	if err != nil {
		return nil, fmt.Errorf("policy %.12s: %w", p.ID, err)
	}
	var evicted []*sandbox.Program
	l.mu.Lock()
	if e := l.programs[p.ID]; e != nil {
		prog = e.Value.(*compiled).prog // compiled meanwhile by another goroutine
		l.recent.MoveToFront(e)
	} else {
		l.programs[p.ID] = l.recent.PushFront(&compiled{p.ID, prog})
		for l.MaxPrograms > 0 && l.recent.Len() > l.MaxPrograms {
			c := l.recent.Remove(l.recent.Back()).(*compiled)
			delete(l.programs, c.id)
			evicted = append(evicted, c.prog)
		}
	}
	l.mu.Unlock()
	// An evicted Program may still be playing: Close ends only its idle
	// workers, and a worker it takes back later ends when idle.
	for _, old := range evicted {
		old.Close()
	}
	return prog, nil
}

// Programs is how many compiled policies the Local keeps.
func (l *Local) Programs() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.programs)
}

// Close ends the idle policy workers. The Local stays usable.
func (l *Local) Close() {
	l.mu.Lock()
	var progs []*sandbox.Program
	for _, e := range l.programs {
		progs = append(progs, e.Value.(*compiled).prog)
	}
	l.programs = map[string]*list.Element{}
	l.recent.Init()
	l.mu.Unlock()
	for _, p := range progs {
		p.Close()
	}
}
