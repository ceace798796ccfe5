package sandbox

import (
	"context"
	"fmt"
	"go/ast"
	"go/token"
	"math"
	"sync"
	"time"

	"policyevolve/envs"
	"policyevolve/envs/ssd/worker"
)

// Program is a validated policy, ready to run: for the native backend a
// compiled worker binary, for yaegi the source to interpret. It keeps
// idle workers between episodes: a worker loads its policy once and plays
// every episode it is given, each from the policy's fresh state. Programs
// are safe for concurrent use; Close ends the idle workers.
//
// A Program holds no open file: a native worker is started from the
// cache by path, pinned there while it runs (see pin), and built
// again if the cache lost it meanwhile (another process's trim, a user
// clearing ~/.cache). So a long search that keeps thousands of Programs
// keeps no descriptor and no evicted binary for them.
type Program struct {
	ID      string // content address of the source (hex SHA-256)
	Source  []byte
	Backend Backend

	sb     *Sandbox
	binary string // native worker, in the cache
	code   []byte // yaegi: the rewritten source
	// reusable: a worker may play several episodes. False for a policy
	// with package-level state that could not be made resettable (no type
	// information): it gets a fresh worker per episode.
	reusable bool

	mu     sync.Mutex
	idle   []idleWorker
	reaper *time.Timer // pending while workers are idle
}

type idleWorker struct {
	w     *proc
	since time.Time
}

// Idle workers: at most maxIdle per Program, each ended after idleTimeout
// without an episode (a search moves on to other policies; a worker holds
// tens of megabytes).
const (
	maxIdle     = 8
	idleTimeout = 5 * time.Second
)

// Compile validates src and prepares it for the Sandbox's backend, in a
// bounded child process (see analyse), then builds it (native). A bad
// source gives a *ValidationError (errors.Is(err, ErrInvalid)), and so
// do a panic anywhere in its analysis (see refusePanic), an analysis
// that passes its bounds and a build that fails on the policy; any other
// error is a failure of the system (no toolchain, a full disk…).
func (s *Sandbox) Compile(ctx context.Context, src []byte) (*Program, error) {
	prep, err := s.analyse(ctx, src, s.backend)
	if err != nil {
		return nil, err
	}
	p := &Program{ID: prep.id, Source: prep.source, Backend: s.backend, sb: s, reusable: prep.reusable}
	switch s.backend {
	case Native:
		p.binary, err = s.build(ctx, prep)
	case Yaegi:
		p.code = prep.code
	}
	if err != nil {
		return nil, err
	}
	return p, nil
}

// hasState reports whether a policy declares package-level variables or
// init functions, judged on the syntax.
func hasState(c *Checked) bool {
	for _, d := range c.File.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil && d.Name.Name == "init" {
				return true
			}
		case *ast.GenDecl:
			if d.Tok == token.VAR {
				return true
			}
		}
	}
	return false
}

// Actor returns an envs.Actor that plays the program step by step, sent the
// joint actions of every step (an envs.Observer): for matches, where the
// other seats play other policies. Self-play is faster with SelfPlay.
func (p *Program) Actor() envs.Actor { return &actor{prog: p} }

// Close ends the idle workers. The Program stays usable: a later episode
// starts a new worker.
func (p *Program) Close() {
	p.mu.Lock()
	idle := p.idle
	p.idle = nil
	p.mu.Unlock()
	for _, iw := range idle {
		iw.w.close()
	}
}

// reap ends the workers idle for idleTimeout, and comes back for the
// others.
func (p *Program) reap() {
	now := time.Now()
	var old []*proc
	p.mu.Lock()
	kept := p.idle[:0]
	for _, iw := range p.idle {
		if now.Sub(iw.since) >= idleTimeout {
			old = append(old, iw.w)
		} else {
			kept = append(kept, iw)
		}
	}
	p.idle = kept
	p.reaper = nil
	if len(kept) > 0 {
		p.reaper = time.AfterFunc(idleTimeout-now.Sub(kept[0].since), p.reap)
	}
	p.mu.Unlock()
	for _, w := range old {
		w.close()
	}
}

// acquire returns an idle worker, or starts a new one.
func (p *Program) acquire(ctx context.Context) (*proc, error) {
	if p.reusable {
		p.mu.Lock()
		if n := len(p.idle); n > 0 {
			w := p.idle[n-1].w
			p.idle = p.idle[:n-1]
			p.mu.Unlock()
			return w, nil
		}
		p.mu.Unlock()
	}
	return p.start(ctx)
}

// release takes back a worker after an episode that ended normally, having
// used cpu: it waits for the next episode unless it has used most of its
// lifetime CPU limit, or too many wait already.
func (p *Program) release(w *proc, cpu time.Duration) {
	w.used += cpu
	if !p.reusable || w.used > w.cpu*3/4 {
		w.close()
		return
	}
	p.mu.Lock()
	if len(p.idle) < maxIdle {
		p.idle = append(p.idle, idleWorker{w, time.Now()})
		w = nil
		if p.reaper == nil {
			p.reaper = time.AfterFunc(idleTimeout, p.reap)
		}
	}
	p.mu.Unlock()
	if w != nil {
		w.close()
	}
}

// start launches a worker and loads the policy into it.
func (p *Program) start(ctx context.Context) (*proc, error) {
	s := p.sb
	var w *proc
	var err error
	if p.Backend == Yaegi {
		w, err = s.launchFile(s.cfg.WorkerExe, []string{envWorker + "=yaegi"}, s.limits(p.Backend))
	} else {
		w, err = p.launchNative(ctx)
	}
	if err != nil {
		return nil, err
	}
	stop := context.AfterFunc(ctx, func() { w.kill("cancelled") })
	defer stop()
	hello := &worker.Hello{StepTimeout: micros(s.cfg.StepTimeout), InitTimeout: micros(s.cfg.StartTimeout), Source: p.code}
	typ, payload, err := w.exchange(worker.MsgHello, worker.EncodeHello(hello), s.startWall())
	if err != nil {
		err = w.failure(ctx, p, -1, err)
		w.close()
		return nil, err
	}
	switch typ {
	case worker.MsgReady:
		conf, err := worker.DecodeReady(payload)
		if err != nil {
			w.kill("protocol")
			w.close()
			return nil, w.protocol(p, -1, err.Error())
		}
		s.recordConfinement(conf)
		return w, nil
	case worker.MsgError:
		err := w.reported(p, payload, -1)
		w.close()
		return nil, err
	}
	w.kill("protocol")
	w.close()
	return nil, w.protocol(p, -1, fmt.Sprintf("unexpected reply %q to hello", typ))
}

// episodeFor describes an episode of cfg to a worker.
func (p *Program) episodeFor(mode byte, cfg envs.Config, seed uint64, agents []int) *worker.Episode {
	s := p.sb
	ep := &worker.Episode{Mode: mode, Seed: seed, Agents: agents, MapName: cfg.Map.Name, MapText: cfg.Map.Text,
		Game: cfg.Map.Game, NumAgents: cfg.Agents, MaxSteps: cfg.MaxSteps, Params: *cfg.Params, Chunk: chunkSteps,
		Limit: uint64(s.cfg.EpisodeCPU)}
	ep.Budget = uint64(s.costPerAgentStep(p.Backend) * time.Duration(len(agents)*cfg.MaxSteps))
	return ep
}

// chunkSteps is how many self-play steps a worker reports at a time: the
// host replays a chunk while the worker plays the next, and fewer, larger
// chunks cost fewer wake-ups of either side (100 steps measured 10-20%
// slower on Gathering large).
const chunkSteps = 250

func micros(d time.Duration) uint32 { return uint32(min(d.Microseconds(), math.MaxUint32)) }

// startWall bounds the wall-clock wait for a worker to start, or for the
// first step of an episode, which re-initialises the policy first (at most
// StartTimeout of CPU time): a backstop, far beyond what starting takes
// on a busy machine.
func (s *Sandbox) startWall() time.Duration { return 10*s.cfg.StartTimeout + s.cfg.StepWall }
