package sandbox

import (
	"context"
	"fmt"
	"time"

	"policyevolve/envs"
	"policyevolve/envs/ssd"
	"policyevolve/envs/ssd/worker"
)

// actor plays a Program step by step in a pooled worker, which keeps its
// own replica of the game: every step the host sends the joint actions of
// the step before (Observe), the worker steps its replica and answers its
// agents' actions with the hash of the state it chose them in, which must
// be the host's.
type actor struct {
	prog *Program

	w        *proc
	ctx      context.Context
	agents   []int
	game     ssd.Game
	acts     []int64
	payload  []byte
	prev     []int // the joint actions of the last step; nil before the first
	stopCtx  func() bool
	finished bool // the worker failed or was stopped: nothing more to ask

	// The cost of the episode so far: CPU time the worker reported for
	// its steps, and the budgets for the whole episode (0: none).
	cpu    time.Duration
	steps  int
	budget time.Duration
}

var (
	_ envs.Actor    = (*actor)(nil)
	_ envs.Observer = (*actor)(nil)
)

func (a *actor) Begin(ctx context.Context, info envs.EpisodeInfo) error {
	w, err := a.prog.acquire(ctx)
	if err != nil {
		return err
	}
	a.w, a.ctx, a.agents, a.game, a.finished = w, ctx, info.Agents, info.Layout.Game, false
	a.acts = make([]int64, len(info.Agents))
	a.prev, a.cpu, a.steps = nil, 0, 0
	a.budget = a.prog.sb.costPerAgentStep(a.prog.Backend) * time.Duration(len(info.Agents)*info.Layout.MaxSteps)
	a.stopCtx = context.AfterFunc(ctx, func() { w.kill("cancelled") })
	ep := a.prog.episodeFor(worker.Lockstep, info.Config, info.Seed, info.Agents)
	w.clearProgress()
	w.req.SetWriteDeadline(time.Now().Add(a.prog.sb.cfg.StepWall))
	if err := worker.WriteFrame(w.req, worker.MsgEpisode, worker.EncodeEpisode(ep)); err != nil {
		a.finished = true
		return w.failure(ctx, a.prog, -1, err)
	}
	return nil
}

// Observe keeps the step's joint actions, to send with the next request.
func (a *actor) Observe(actions []int) { a.prev = append(a.prev[:0], actions...) }

func (a *actor) Act(ctx context.Context, st *ssd.State, actions []int) error {
	if a.finished {
		return a.w.protocol(a.prog, st.Step, "worker already stopped")
	}
	if err := ctx.Err(); err != nil {
		a.stop()
		return err
	}
	if st.Step > 0 && len(a.prev) == 0 {
		// Run calls Observe after every step; a caller that does not
		// cannot play a worker that keeps a replica.
		a.stop()
		return fmt.Errorf("sandbox actor: step %d without the joint actions of the step before (call Observe)", st.Step)
	}
	a.payload = worker.AppendStep(a.payload[:0], a.prev)
	cfg := &a.prog.sb.cfg
	wall := cfg.StepWall
	if a.steps == 0 {
		wall = a.prog.sb.startWall() // the worker re-initialises the policy first
	}
	typ, payload, err := a.w.exchange(worker.MsgStep, a.payload, wall)
	if err != nil {
		a.finished = true
		return a.w.failure(ctx, a.prog, st.Step, err)
	}
	switch typ {
	case worker.MsgActions:
	case worker.MsgError:
		a.finished = true
		return a.w.reported(a.prog, payload, st.Step)
	default:
		a.finished = true
		return a.w.protocol(a.prog, st.Step, fmt.Sprintf("unexpected reply %q to a step", typ))
	}
	used, hash, err := worker.DecodeActions(payload, a.acts)
	if err != nil {
		a.finished = true
		return a.w.protocol(a.prog, st.Step, err.Error())
	}
	a.cpu += used
	a.steps++
	if hash != st.Hash() {
		a.stop()
		return fmt.Errorf("step %d: the worker's replica of the game differs from the host's: %w", st.Step, envs.ErrTampered)
	}
	if used > cfg.StepTimeout {
		// Over the limit, but done before the watchdog looked.
		a.stop()
		return &PolicyError{Kind: ErrTimeout, Agent: -1, Step: st.Step, Program: a.prog.ID,
			Detail: fmt.Sprintf("the step used %v of CPU time, more than the limit of %v", used.Round(time.Millisecond), cfg.StepTimeout)}
	}
	if a.cpu > cfg.EpisodeCPU {
		a.stop()
		return &PolicyError{Kind: ErrCPUBudget, Agent: -1, Step: st.Step, Program: a.prog.ID,
			Detail: fmt.Sprintf("used %.1fs of CPU; the episode budget is %v", a.cpu.Seconds(), cfg.EpisodeCPU)}
	}
	if a.budget > 0 && a.cpu > a.budget {
		a.stop()
		return &PolicyError{Kind: ErrCost, Agent: -1, Step: st.Step, Program: a.prog.ID,
			Detail: a.prog.sb.costDetail(a.prog.Backend, a.cpu, a.steps, len(a.agents))}
	}
	n := int64(a.game.NumActions())
	for k, v := range a.acts {
		if v < 0 || v >= n {
			a.stop()
			return &PolicyError{Kind: ErrInvalidAction, Agent: a.agents[k], Step: st.Step, Program: a.prog.ID,
				Detail: fmt.Sprintf("returned %d; %s actions are 0-%d", v, a.game, n-1)}
		}
		actions[a.agents[k]] = int(v)
	}
	return nil
}

// End gives a healthy worker back to the Program (an episode cut short
// by another seat leaves it healthy: the next Episode frame ends the old
// one), and ends a failed one.
func (a *actor) End() error {
	if a.w == nil {
		return nil
	}
	a.stopCtx()
	if a.finished || a.ctx.Err() != nil {
		a.w.kill("stopped")
		a.w.close()
	} else {
		a.prog.release(a.w, a.cpu)
	}
	a.w = nil
	return nil
}

func (a *actor) stop() {
	a.finished = true
	a.w.kill("stopped")
}
