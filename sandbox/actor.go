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

	// The cost of the episode so far: CPU time the worker reported for
	// its steps, and the budget for the whole episode (0: none).
	cpu    time.Duration
	steps  int
	budget time.Duration
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
	a.cpu, a.steps = 0, 0
	a.budget = sb.costPerAgentStep(a.prog.Backend) * time.Duration(len(info.Agents)*info.Layout.MaxSteps)
	a.stopCtx = context.AfterFunc(ctx, func() { w.kill("cancelled") })
	hello := &worker.Hello{
		Seed:        info.Seed,
		StepTimeout: uint32(min(sb.cfg.StepTimeout.Microseconds(), math.MaxUint32)),
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
		conf, err := worker.DecodeReady(payload)
		if err != nil {
			return a.protocol(-1, err.Error())
		}
		sb.recordConfinement(conf)
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
	cfg := &a.prog.sb.cfg
	typ, payload, err := a.w.exchange(worker.MsgStep, a.payload, cfg.StepWall)
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
	used, err := worker.DecodeActions(payload, a.acts)
	if err != nil {
		return a.protocol(st.Step, err.Error())
	}
	a.cpu += used
	a.steps++
	if used > cfg.StepTimeout {
		// Over the limit, but done before the watchdog looked.
		a.stop()
		return &PolicyError{Kind: ErrTimeout, Agent: -1, Step: st.Step, Program: a.prog.ID,
			Detail: fmt.Sprintf("the step used %v of CPU time, more than the limit of %v", used.Round(time.Millisecond), cfg.StepTimeout)}
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

// failure explains an exchange that failed: cancellation, or the
// worker's end. What the policy did decides, not when the host noticed:
// a worker that printed past the output limit, or reported a panic, is
// reported as such even when the wait for it ran out first.
func (a *actor) failure(ctx context.Context, step int, err error) error {
	a.finished = true
	if ctx.Err() != nil {
		a.w.kill("cancelled")
		return ctx.Err()
	}
	a.w.reap(5 * time.Second)
	if !a.w.printedTooMuch() {
		if typ, payload, ok := a.w.pending(); ok && typ == worker.MsgError {
			return a.reported(payload, step)
		}
	}
	pe, sysErr := a.w.death(step)
	if sysErr != nil {
		return sysErr
	}
	pe.Program = a.prog.ID
	if pe.Kind == ErrTimeout {
		pe.Detail = fmt.Sprintf("no answer within %v of wall-clock time; worker killed", a.prog.sb.cfg.StepWall)
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
	if a.w.printedTooMuch() {
		pe, _ := a.w.death(step)
		pe.Program = a.prog.ID
		return pe
	}
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
