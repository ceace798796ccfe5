package envs

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"policyevolve/envs/ssd"
)

// EpisodeInfo is what an Actor learns when an episode begins.
type EpisodeInfo struct {
	Seed   uint64      // the episode seed
	Agents []int       // the agents this actor plays, ascending
	Layout *ssd.Layout // the game; shared, do not modify
	// Config builds a replica of the environment (New(Config), then
	// Reset(Seed)), for an actor that keeps its own (see Observer).
	Config Config
}

// Actor chooses the actions of a fixed set of agents for one episode at a
// time. Run calls Begin once, then Act once per step, then End (also after
// a failure, whenever Begin succeeded). An Actor is used by one episode at
// a time.
type Actor interface {
	// Begin starts an episode. The actor must start from a fresh policy
	// instance: nothing remembered from an earlier episode may leak in.
	Begin(ctx context.Context, info EpisodeInfo) error
	// Act writes actions[i] for each agent i of info.Agents, given the
	// snapshot of the state before the step. The snapshot is shared by all
	// actors of the step: read it, never modify it; it is valid only
	// during the call. Every agent is asked, tagged-out ones included.
	Act(ctx context.Context, st *ssd.State, actions []int) error
	// End releases what Begin acquired.
	End() error
}

// An Observer is an Actor that keeps its own replica of the environment:
// after every step, Run hands it the actions of all agents, so that it can
// take the step too. (A sandboxed policy's worker keeps a replica and is
// sent these actions instead of a state snapshot.) An Actor that wraps
// another must pass Observe on.
type Observer interface {
	Actor
	// Observe tells the actions of every agent at the step just taken.
	// The slice is valid only during the call.
	Observe(actions []int)
}

// Seat assigns agents to an actor.
type Seat struct {
	Actor  Actor
	Agents []int
}

// Options control one episode.
type Options struct {
	Seed   uint64 // episode seed: Reset(seed) and EpisodeInfo.Seed
	Record bool   // keep the whole trajectory in Result.Trajectory
	// Verify hashes the environment and the snapshot before and after the
	// actors of every step and stops the episode if either changed: proof
	// that no policy touched the game (see ErrTampered).
	Verify bool
	// AfterStep, when set, is called after every step with the step's
	// index and the environment; an error stops the episode (a replay
	// checks the hashes a worker reported, for one).
	AfterStep func(step int, env *Env) error
}

// Result is the outcome of one episode, complete or not.
type Result struct {
	Seed     uint64
	Steps    int         // steps completed
	Rewards  [][]float64 // [agent][step]
	TimedOut [][]bool    // [agent][step]: tagged out after the step
	Returns  []float64   // per agent
	Metrics  Metrics     // over the completed steps

	Trajectory *Trajectory // only with Options.Record
}

// Trajectory is a full record of an episode, for critics and replays.
type Trajectory struct {
	Layout *ssd.Layout
	Seed   uint64
	Reset  ssd.State    // the state after Reset
	Steps  []StepRecord // one per completed step
}

// StepRecord is one step: the actions chosen before it, and the rewards
// and state after it.
type StepRecord struct {
	Actions []int
	Rewards []float64
	State   ssd.State
}

// ActorError is a failure of an actor during an episode: the episode stops
// and the Result holds the steps completed before it.
type ActorError struct {
	Agents []int // the agents the failing actor plays
	Step   int   // 0-based step at which it failed; -1 in Begin
	Err    error
}

func (e *ActorError) Error() string {
	where := fmt.Sprintf("step %d", e.Step)
	if e.Step < 0 {
		where = "episode start"
	}
	return fmt.Sprintf("actor for agents %v failed at %s: %v", e.Agents, where, e.Err)
}

func (e *ActorError) Unwrap() error { return e.Err }

// Errors of Run.
var (
	// ErrNoAction is an actor that left one of its agents without an action.
	ErrNoAction = errors.New("no action chosen")
	// ErrTampered means the environment or the snapshot changed while the
	// actors chose their actions (found with Options.Verify).
	ErrTampered = errors.New("state changed during the policy step")
)

// Run plays one episode of env with the seated actors. Every agent must
// have exactly one seat. It returns the Result of the completed steps and,
// when an actor failed or ctx was cancelled, an error (an *ActorError for
// actors) alongside it.
func Run(ctx context.Context, env *Env, seats []Seat, opt Options) (*Result, error) {
	n := env.NumAgents()
	owner := make([]int, n)
	for i := range owner {
		owner[i] = -1
	}
	for s, seat := range seats {
		if seat.Actor == nil {
			return nil, fmt.Errorf("run: seat %d has no actor", s)
		}
		for _, a := range seat.Agents {
			if a < 0 || a >= n {
				return nil, fmt.Errorf("run: seat %d plays agent %d of %d", s, a, n)
			}
			if owner[a] >= 0 {
				return nil, fmt.Errorf("run: agent %d has two seats (%d and %d)", a, owner[a], s)
			}
			owner[a] = s
		}
	}
	for a, s := range owner {
		if s < 0 {
			return nil, fmt.Errorf("run: agent %d has no seat", a)
		}
	}

	env.Reset(opt.Seed)
	var st ssd.State
	env.Snapshot(&st)
	rec := newRecorder(env, &st, opt)
	res := rec.res
	T := env.MaxSteps()
	started := 0
	defer func() {
		for _, s := range seats[:started] {
			s.Actor.End()
		}
	}()
	for _, s := range seats {
		agents := slices.Sorted(slices.Values(s.Agents))
		if err := s.Actor.Begin(ctx, EpisodeInfo{Seed: opt.Seed, Agents: agents, Layout: env.Layout(), Config: env.Config()}); err != nil {
			return finish(res), &ActorError{Agents: agents, Step: -1, Err: err}
		}
		started++
	}

	actions := make([]int, n)
	for t := 0; t < T; t++ {
		if t&31 == 0 {
			if err := ctx.Err(); err != nil {
				return finish(res), err
			}
		}
		if t > 0 {
			env.Snapshot(&st)
		}
		var envHash, stHash uint64
		if opt.Verify {
			envHash, stHash = env.Hash(), st.Hash()
		}
		for i := range actions {
			actions[i] = -1
		}
		for _, s := range seats {
			if err := s.Actor.Act(ctx, &st, actions); err != nil {
				return finish(res), &ActorError{Agents: s.Agents, Step: t, Err: err}
			}
			for _, a := range s.Agents {
				if actions[a] == -1 {
					return finish(res), &ActorError{Agents: s.Agents, Step: t,
						Err: fmt.Errorf("agent %d: %w", a, ErrNoAction)}
				}
			}
		}
		if opt.Verify && (env.Hash() != envHash || st.Hash() != stHash) {
			return finish(res), fmt.Errorf("run: step %d: %w", t, ErrTampered)
		}
		rew, err := env.Step(actions)
		if err != nil {
			return finish(res), &ActorError{Agents: seats[owner[firstInvalid(actions, env.Game())]].Agents, Step: t, Err: err}
		}
		rec.step(t, actions, rew)
		for _, s := range seats {
			if o, ok := s.Actor.(Observer); ok {
				o.Observe(actions)
			}
		}
		if opt.AfterStep != nil {
			if err := opt.AfterStep(t, env); err != nil {
				return finish(res), err
			}
		}
	}
	return finish(res), nil
}

// Replay plays joint actions chosen elsewhere — actions[t*n:(t+1)*n] are
// the n agents' actions at step t — from Reset(opt.Seed), up to the end
// of the actions or of the episode: the Result of an episode whose policy
// ran in a worker, computed here. opt.Record and opt.AfterStep are
// honoured (opt.Verify has no actor to watch). An invalid action stops it
// with an *ActorError naming the agent.
func Replay(ctx context.Context, env *Env, actions []byte, opt Options) (*Result, error) {
	r := NewReplayer(env, opt)
	err := r.Feed(ctx, actions)
	return r.Result(), err
}

// A Replayer is Replay fed piece by piece, as the actions arrive: a host
// replays the steps a worker has sent while the worker plays the next
// ones. Feeding the pieces one after the other gives exactly what Replay
// gives with all of them at once.
type Replayer struct {
	env   *Env
	opt   Options
	rec   *recorder
	joint []int
	t     int   // steps replayed
	err   error // why it stopped, sticky
	done  bool  // Result was called
}

// NewReplayer resets env to opt.Seed and returns a Replayer of its
// episode.
func NewReplayer(env *Env, opt Options) *Replayer {
	env.Reset(opt.Seed)
	var st ssd.State
	if opt.Record {
		env.Snapshot(&st)
	}
	return &Replayer{env: env, opt: opt, rec: newRecorder(env, &st, opt), joint: make([]int, env.NumAgents())}
}

// Steps returns how many steps have been replayed.
func (r *Replayer) Steps() int { return r.t }

// Feed replays the joint actions of whole steps (a multiple of the number
// of agents; a trailing partial step is ignored) after those already fed,
// up to the end of the episode. After an error it does nothing and
// returns that error again.
func (r *Replayer) Feed(ctx context.Context, actions []byte) error {
	if r.err != nil {
		return r.err
	}
	n := r.env.NumAgents()
	steps := min(len(actions)/n, r.env.MaxSteps()-r.t)
	for k := range steps {
		t := r.t
		if t&255 == 0 {
			if err := ctx.Err(); err != nil {
				r.err = err
				return err
			}
		}
		for i, a := range actions[k*n : (k+1)*n] {
			r.joint[i] = int(a)
		}
		rew, err := r.env.Step(r.joint)
		if err != nil {
			r.err = &ActorError{Agents: []int{firstInvalid(r.joint, r.env.Game())}, Step: t, Err: err}
			return r.err
		}
		r.rec.step(t, r.joint, rew)
		r.t++
		if r.opt.AfterStep != nil {
			if err := r.opt.AfterStep(t, r.env); err != nil {
				r.err = err
				return err
			}
		}
	}
	return nil
}

// Result returns the Result of the steps replayed so far; the Replayer
// is not to be fed after it.
func (r *Replayer) Result() *Result {
	if !r.done {
		r.done = true
		finish(r.rec.res)
	}
	return r.rec.res
}

// recorder keeps the Result of an episode as it is played.
type recorder struct {
	env *Env
	res *Result
}

// newRecorder starts the Result of an episode of env just reset; st is
// the state after Reset (needed with opt.Record).
func newRecorder(env *Env, st *ssd.State, opt Options) *recorder {
	n, T := env.NumAgents(), env.MaxSteps()
	res := &Result{Seed: opt.Seed, Rewards: make([][]float64, n), TimedOut: make([][]bool, n)}
	rewardBuf := make([]float64, n*T)
	timedBuf := make([]bool, n*T)
	for i := range n {
		res.Rewards[i] = rewardBuf[i*T : i*T : (i+1)*T]
		res.TimedOut[i] = timedBuf[i*T : i*T : (i+1)*T]
	}
	if opt.Record {
		res.Trajectory = &Trajectory{Layout: env.Layout(), Seed: opt.Seed, Steps: make([]StepRecord, 0, T)}
		res.Trajectory.Reset.CopyFrom(st)
	}
	return &recorder{env: env, res: res}
}

// step records step t: the actions taken and the rewards they earned.
func (r *recorder) step(t int, actions []int, rew []float64) {
	res := r.res
	for i := range rew {
		res.Rewards[i] = append(res.Rewards[i], rew[i])
		res.TimedOut[i] = append(res.TimedOut[i], r.env.Timeout(i) > 0)
	}
	res.Steps = t + 1
	if res.Trajectory != nil {
		rec := StepRecord{Actions: slices.Clone(actions), Rewards: slices.Clone(rew)}
		r.env.Snapshot(&rec.State)
		res.Trajectory.Steps = append(res.Trajectory.Steps, rec)
	}
}

func firstInvalid(actions []int, g ssd.Game) int {
	for i, a := range actions {
		if a < 0 || a >= g.NumActions() {
			return i
		}
	}
	return 0
}

func finish(res *Result) *Result {
	res.Returns = Returns(res.Rewards)
	res.Metrics = ComputeMetrics(res.Rewards, res.TimedOut)
	return res
}
