package sandbox

import (
	"context"
	"fmt"
	"math"
	"time"

	"policyevolve/envs"
	"policyevolve/envs/ssd"
	"policyevolve/envs/ssd/worker"
)

// actor plays a Program through one worker process per episode.
type actor struct {
	prog *Program

	w        *proc
	agents   []int
	game     ssd.Game
	acts     []int64
	payload  []byte
	stopCtx  func() bool
	finished bool // the worker failed or was stopped: nothing more to ask
}

var _ envs.Actor = (*actor)(nil)

func (a *actor) Begin(ctx context.Context, info envs.EpisodeInfo) (err error) {
	sb := a.prog.sb
	w, err := sb.start(a.prog)
	if err != nil {
		return err
	}
	// Run calls End only after a successful Begin: a failed one cleans up
	// after itself.
	defer func() {
		if err != nil {
			a.End()
		}
	}()
	a.w, a.agents, a.game, a.finished = w, info.Agents, info.Layout.Game, false
	a.acts = make([]int64, len(info.Agents))
	a.stopCtx = context.AfterFunc(ctx, func() { w.kill("cancelled") })
	hello := &worker.Hello{
		Seed:        info.Seed,
		StepTimeout: uint32(min(sb.cfg.StepTimeout.Microseconds()*9/10, math.MaxUint32)),
		Agents:      info.Agents,
		Layout:      info.Layout,
		Source:      a.prog.code,
	}
	typ, payload, err := w.exchange(worker.MsgHello, worker.EncodeHello(hello), sb.cfg.StartTimeout)
	if err != nil {
		return a.failure(ctx, -1, err)
	}
	switch typ {
	case worker.MsgReady:
		return nil
	case worker.MsgError:
		return a.reported(payload, -1)
	}
	return a.protocol(-1, fmt.Sprintf("unexpected reply %q to hello", typ))
}

func (a *actor) Act(ctx context.Context, st *ssd.State, actions []int) error {
	if a.finished {
		return a.protocol(st.Step, "worker already stopped")
	}
	if err := ctx.Err(); err != nil {
		a.stop()
		return err
	}
	a.payload = worker.AppendStep(a.payload[:0], st)
	typ, payload, err := a.w.exchange(worker.MsgStep, a.payload, a.prog.sb.cfg.StepTimeout)
	if err != nil {
		return a.failure(ctx, st.Step, err)
	}
	switch typ {
	case worker.MsgActions:
	case worker.MsgError:
		return a.reported(payload, st.Step)
	default:
		return a.protocol(st.Step, fmt.Sprintf("unexpected reply %q to a step", typ))
	}
	if err := worker.DecodeActions(payload, a.acts); err != nil {
		return a.protocol(st.Step, err.Error())
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

func (a *actor) End() error {
	if a.w == nil {
		return nil
	}
	a.stopCtx()
	a.w.close()
	a.w = nil
	return nil
}

func (a *actor) stop() {
	a.finished = true
	a.w.kill("stopped")
}

// failure explains an exchange that failed: cancellation, a deadline, or
// the worker's death.
func (a *actor) failure(ctx context.Context, step int, err error) error {
	a.finished = true
	if ctx.Err() != nil {
		a.w.kill("cancelled")
		return ctx.Err()
	}
	pe, sysErr := a.w.death(step)
	if sysErr != nil {
		return sysErr
	}
	pe.Program = a.prog.ID
	if pe.Kind == ErrTimeout {
		pe.Detail = fmt.Sprintf("no answer within %v", a.prog.sb.cfg.StepTimeout)
		if step < 0 {
			pe.Detail = fmt.Sprintf("the worker did not start within %v", a.prog.sb.cfg.StartTimeout)
		}
	}
	return pe
}

// reported turns a worker's Error reply into a PolicyError.
func (a *actor) reported(payload []byte, step int) error {
	a.finished = true
	r, err := worker.DecodeError(payload)
	if err != nil {
		a.w.kill("protocol")
		return a.protocol(step, err.Error())
	}
	a.w.reap(time.Second)
	pe := &PolicyError{Agent: r.Agent, Step: step, Line: r.Line, Detail: worker.Truncate(r.Message), Program: a.prog.ID,
		Output: a.w.out.String()}
	switch r.Kind {
	case worker.KindPanic:
		pe.Kind = ErrPanic
		if a.prog.Backend == Yaegi && r.Line > 0 {
			pe.Detail += fmt.Sprintf(" (yaegi reports the start of the panicking function's body: line %d)", r.Line)
			pe.Line = 0
		}
	case worker.KindTimeout:
		pe.Kind = ErrTimeout
	case worker.KindCompile:
		pe.Kind = ErrInvalid
		pe.Detail = "the interpreter could not load the policy: " + r.Message
	default:
		pe.Kind = ErrProtocol
	}
	return pe
}

func (a *actor) protocol(step int, detail string) error {
	a.finished = true
	a.w.kill("protocol")
	return &PolicyError{Kind: ErrProtocol, Agent: -1, Step: step, Detail: detail, Program: a.prog.ID}
}
