package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"policyevolve/envs"
	"policyevolve/envs/ssd/worker"
)

// SelfPlay plays one episode of cfg in which the program plays every
// agent. The episode is played inside a worker, on the worker's own
// replica of the game: it sends back the actions of every step and the
// replica's hash after each. The host then replays those actions through
// its own environment — the only source of rewards and metrics — and
// checks every hash: a worker whose replica went its own way (a policy
// that wrote into its game, say) stops the episode with envs.ErrTampered
// at the step where it happened.
//
// opt.Seed and opt.Record are honoured (opt.Verify is what the replay
// does); the Result and the error are those envs.Run would give: a
// policy's failure is an *envs.ActorError wrapping a *PolicyError, with
// the Result of the steps before it.
func (p *Program) SelfPlay(ctx context.Context, cfg envs.Config, opt envs.Options) (*envs.Result, error) {
	res, _, err := p.selfPlay(ctx, cfg, opt, episodeBudget)
	return res, err
}

// selfPlay is SelfPlay, which also returns the CPU time the worker
// reported for a whole episode (0 when it stopped early). limit is the
// CPU time the episode may use before it stops with ErrCost:
// episodeBudget for the cost budget, a positive duration for at most
// that, 0 for none (the smoke test measures the cost itself).
//
// The host replays each chunk of steps as it arrives, while the worker
// plays the next: the episode's wall time is the longer of the two, not
// their sum.
// episodeBudget, as a limit of selfPlay, is the episode's cost budget.
const episodeBudget time.Duration = -1

func (p *Program) selfPlay(ctx context.Context, cfg envs.Config, opt envs.Options, limit time.Duration) (*envs.Result, time.Duration, error) {
	env, err := envs.New(cfg)
	if err != nil {
		return nil, 0, err
	}
	cfg = env.Config()
	all := make([]int, cfg.Agents)
	for i := range all {
		all[i] = i
	}
	rep := newChecked(env, opt)
	played, playErr := p.play(ctx, cfg, opt.Seed, all, limit, rep.feed)
	var re *replayError
	switch {
	case playErr != nil && ctx.Err() != nil:
		return nil, 0, ctx.Err()
	case errors.As(playErr, &re):
		return rep.Result(), 0, re.err
	}
	var pe *PolicyError
	if playErr != nil && !errors.As(playErr, &pe) {
		return nil, 0, playErr // the system's failure
	}
	res := rep.Result()
	if playErr != nil {
		// The worker stopped where the recorded steps end: its reason.
		step := res.Steps
		if pe.Step >= 0 {
			step = pe.Step
		}
		return res, 0, &envs.ActorError{Agents: all, Step: step, Err: playErr}
	}
	return res, played.cpu, nil
}

// checked replays what a worker plays through the host's env, as it
// arrives, checking the worker's hash after every step.
type checked struct {
	*envs.Replayer
	hashes []uint64
}

func newChecked(env *envs.Env, opt envs.Options) *checked {
	c := &checked{}
	opt.AfterStep = func(t int, env *envs.Env) error {
		if env.Hash() != c.hashes[t] {
			return fmt.Errorf("step %d: the worker's replica of the game differs from the host's: %w", t, envs.ErrTampered)
		}
		return nil
	}
	c.Replayer = envs.NewReplayer(env, opt)
	return c
}

// feed replays a chunk: the joint actions of its steps and the worker's
// hash after each.
func (c *checked) feed(ctx context.Context, actions []byte, hashes []uint64) error {
	c.hashes = append(c.hashes, hashes...)
	return c.Feed(ctx, actions)
}

// replayPlayed replays a whole episode a worker played, checking every
// hash.
func replayPlayed(ctx context.Context, env *envs.Env, played *played, opt envs.Options) (*envs.Result, error) {
	c := newChecked(env, opt)
	err := c.feed(ctx, played.actions, played.hashes)
	return c.Result(), err
}

// replayError is the host's replay stopping an episode (tampering, an
// invalid action): the episode's outcome, not the worker's failure.
type replayError struct{ err error }

func (e *replayError) Error() string { return e.err.Error() }
func (e *replayError) Unwrap() error { return e.err }

// played is what a worker sent of a self-play episode: the steps, and
// their actions and hashes when no feed took them.
type played struct {
	steps   int
	actions []byte // steps × agents
	hashes  []uint64
	cpu     time.Duration
}

// play has a worker play a self-play episode and collects what it sends.
// It returns what was played before the worker stopped, and why it
// stopped: nil after a whole episode, a *PolicyError for the policy's
// failure, another error for the system's. Each chunk of steps goes to
// feed (when not nil) as it arrives; feed's error stops the episode and
// the worker, and comes back as a *replayError.
func (p *Program) play(ctx context.Context, cfg envs.Config, seed uint64, all []int, limit time.Duration,
	feed func(ctx context.Context, actions []byte, hashes []uint64) error) (*played, error) {
	w, err := p.acquire(ctx)
	if err != nil {
		return &played{}, err
	}
	stop := context.AfterFunc(ctx, func() { w.kill("cancelled") })
	defer stop()
	ep := p.episodeFor(worker.SelfPlay, cfg, seed, all)
	switch {
	case limit == 0:
		ep.Budget = 0
	case limit > 0 && (ep.Budget == 0 || uint64(limit) < ep.Budget):
		ep.Budget = uint64(limit)
	}
	s := p.sb
	out := &played{}
	w.clearProgress()
	w.req.SetWriteDeadline(time.Now().Add(s.cfg.StepWall))
	if err := worker.WriteFrame(w.req, worker.MsgEpisode, worker.EncodeEpisode(ep)); err != nil {
		err = w.failure(ctx, p, -1, err)
		w.close()
		return out, err
	}
	var chunk worker.Chunk
	for {
		// A chunk may take its steps' deadlines; wall time is only the
		// backstop for a worker that cannot answer at all.
		wall := time.Duration(chunkSteps) * s.cfg.StepWall
		if out.steps == 0 {
			wall += s.startWall() // the worker re-initialises the policy first
		}
		w.rep.SetReadDeadline(time.Now().Add(wall))
		typ, payload, buf, err := worker.ReadFrame(w.rep, w.buf)
		w.buf = buf
		step := out.steps
		if errors.Is(err, os.ErrDeadlineExceeded) {
			w.kill("timeout")
		}
		if err != nil {
			err = w.failure(ctx, p, step, err)
			w.close()
			return out, err
		}
		switch typ {
		case worker.MsgChunk:
			if err := worker.DecodeChunk(payload, cfg.Agents, &chunk); err != nil || chunk.First != step ||
				step+len(chunk.Hashes) > cfg.MaxSteps {
				err = w.protocol(p, step, fmt.Sprintf("a chunk of steps %d-%d after step %d: %v", chunk.First, chunk.First+len(chunk.Hashes)-1, step, err))
				w.close()
				return out, err
			}
			out.steps += len(chunk.Hashes)
			if feed == nil {
				out.actions = append(out.actions, chunk.Actions...)
				out.hashes = append(out.hashes, chunk.Hashes...)
			} else if err := feed(ctx, chunk.Actions, chunk.Hashes); err != nil {
				w.kill("its episode was stopped by the replay")
				w.close()
				return out, &replayError{err}
			}
		case worker.MsgDone:
			steps, cpu, err := worker.DecodeDone(payload)
			if err != nil || steps != cfg.MaxSteps || step != steps {
				err = w.protocol(p, step, fmt.Sprintf("done after %d steps, %d sent: %v", steps, step, err))
				w.close()
				return out, err
			}
			out.cpu = cpu
			p.release(w, cpu)
			return out, nil
		case worker.MsgError:
			err := w.reported(p, payload, step)
			w.close()
			return out, err
		default:
			err := w.protocol(p, step, fmt.Sprintf("unexpected reply %q in a self-play episode", typ))
			w.close()
			return out, err
		}
	}
}
