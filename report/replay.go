package report

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image/gif"

	"policyevolve/envs"
	"policyevolve/evolve"
	"policyevolve/evolve/episode"
	"policyevolve/render"
	"policyevolve/sandbox"
	"policyevolve/store"
)

// Replay is the champion's replay: frames From to To of its self-play
// episode on Seed, as an animated GIF.
type Replay struct {
	GIF           []byte
	Seed          uint64
	From, To      int
	Scale         int
	Width, Height int // pixels
	// Note says why there is no GIF, or why it ends early.
	Note string
}

// ReplayOptions choose the replay. The zero value shows frames 0 to
// DefaultReplayFrames of the first evaluation seed at DefaultReplayScale.
type ReplayOptions struct {
	// Sandbox runs a source champion (nil: only built-ins can play).
	Sandbox *sandbox.Sandbox
	Seed    *uint64 // nil: the run's first evaluation seed
	// From and To are the first and last frames (To 0: From plus
	// DefaultReplayFrames), cut to the episode's length.
	From, To int
	Scale    int // pixels per cell (0: DefaultReplayScale)
	Delay    int // hundredths of a second per frame (0: render.DefaultDelay)
}

// Replay defaults: ten seconds of play at ten steps a second, at a scale
// that keeps the paper's largest map (38x16) 190 pixels wide. The GIF of
// a 10-agent Gathering run is then some tens of KB.
const (
	DefaultReplayFrames = 100
	DefaultReplayScale  = 5
)

// AddReplay plays the run's champion in self-play and keeps the frames
// asked for as a GIF. A replay that cannot be made (no champion yet, a
// map file gone, a policy that fails or no longer compiles) leaves a Note
// instead, which the page shows; only a cancelled context is an error.
func (r *Report) AddReplay(ctx context.Context, o ReplayOptions) error {
	run := r.Run
	if run == nil {
		return nil
	}
	rp := &Replay{From: o.From, To: o.To, Scale: o.Scale}
	run.Replay = rp
	if rp.Scale <= 0 {
		rp.Scale = DefaultReplayScale
	}
	if rp.To <= 0 {
		rp.To = rp.From + DefaultReplayFrames
	}
	rp.To = min(rp.To, run.Env.Config.MaxSteps)
	rp.Seed = run.Config.EvalSeeds[0]
	if o.Seed != nil {
		rp.Seed = *o.Seed
	}
	switch {
	case run.Champion == nil:
		rp.Note = "no champion yet: the first iteration has not ended"
		return nil
	case run.Env.Map == nil:
		rp.Note = fmt.Sprintf("the map %q can no longer be read", run.Config.Map)
		return nil
	case rp.From > rp.To || rp.From < 0:
		rp.Note = fmt.Sprintf("frames %d-%d are not in the episode (frames 0-%d)", rp.From, rp.To, run.Env.Config.MaxSteps)
		return nil
	}
	return rp.draw(ctx, "the champion", run.Champion, run.Env, o)
}

// draw plays p (what, in a note) in self-play on rp.Seed and keeps
// frames rp.From to rp.To (cut to the episode) as a GIF, or leaves a Note
// saying why there is none. Only a cancelled context is an error.
func (rp *Replay) draw(ctx context.Context, what string, p *store.Policy, env episode.Env, o ReplayOptions) error {
	tr, note, err := play(ctx, p, env, rp.Seed, o.Sandbox)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		rp.Note = what + " could not be replayed: " + err.Error()
		return nil
	}
	rp.Note = note
	if last := render.Frames(tr) - 1; rp.To > last {
		rp.To = last
		if rp.From > last {
			rp.Note = fmt.Sprintf("%s; frame %d was never reached", note, rp.From)
			return nil
		}
	}
	var buf bytes.Buffer
	if err := render.WriteGIF(&buf, tr, render.Options{Scale: rp.Scale}, render.Animation{From: rp.From, To: rp.To, Delay: o.Delay}); err != nil {
		rp.Note = "the replay could not be drawn: " + err.Error()
		return nil
	}
	cfg, err := gif.DecodeConfig(bytes.NewReader(buf.Bytes()))
	if err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	rp.GIF, rp.Width, rp.Height = buf.Bytes(), cfg.Width, cfg.Height
	return nil
}

// play records the policy's self-play episode on seed. A policy that
// fails is a result: the trajectory holds the steps before it and note
// says what happened.
func play(ctx context.Context, p *store.Policy, env episode.Env, seed uint64, sb *sandbox.Sandbox) (tr *envs.Trajectory, note string, err error) {
	cfg := envs.Config{Map: env.Map, Agents: env.Config.Agents, MaxSteps: env.Config.MaxSteps}
	opt := envs.Options{Seed: seed, Record: true}
	var res *envs.Result
	var played error
	switch {
	case p.Builtin != "":
		factory, err := envs.Builtin(p.Builtin)
		if err != nil {
			return nil, "", fmt.Errorf("built-in %s: %w", p.Builtin, err)
		}
		e, err := envs.New(cfg)
		if err != nil {
			return nil, "", err
		}
		all := make([]int, cfg.Agents)
		for i := range all {
			all[i] = i
		}
		res, played = envs.Run(ctx, e, []envs.Seat{{Actor: &envs.PolicyActor{New: factory}, Agents: all}}, opt)
	case sb == nil:
		return nil, "", errors.New("no sandbox to run its source")
	default:
		prog, err := sb.Compile(ctx, []byte(p.Source))
		if err != nil {
			return nil, "", err
		}
		defer prog.Close()
		res, played = prog.SelfPlay(ctx, cfg, opt)
	}
	var pe *sandbox.PolicyError
	switch {
	case played != nil && errors.As(played, &pe) && res != nil && res.Trajectory != nil:
		return res.Trajectory, fmt.Sprintf("the policy failed after %d steps: %v", res.Steps, played), nil
	case played != nil:
		return nil, "", played
	}
	return res.Trajectory, "", nil
}

// ErrNoReplay: the replay asked for cannot be made (see ReplayGIF).
var ErrNoReplay = errors.New("no replay")

// ReplayGIF makes the replay ref names, frames From to To at Scale as o
// says (Seed in o is ignored: ref has it): the policy and its environment
// are read in one short read-only transaction, the episode is played
// outside it. An unknown policy is an error wrapping ErrNotFound; a
// policy that cannot be played (a map file the store does not resolve, a
// source that no longer compiles, a policy that fails before the first
// frame) one wrapping ErrNoReplay, saying why.
func ReplayGIF(ctx context.Context, s *store.Store, ref ReplayRef, o ReplayOptions) (*Replay, error) {
	var p *store.Policy
	var env episode.Env
	err := s.View(func(tx *store.Tx) (err error) {
		if p, err = tx.Policy(ref.Policy); err != nil {
			if errors.Is(err, store.ErrNotFound) {
				return fmt.Errorf("%w: no policy %.12s in the store", ErrNotFound, ref.Policy)
			}
			return err
		}
		env, err = resolveEnv(tx, ref)
		return err
	})
	if err != nil {
		return nil, err
	}
	rp := &Replay{Seed: ref.Seed, From: o.From, To: o.To, Scale: o.Scale}
	if rp.Scale <= 0 {
		rp.Scale = DefaultReplayScale
	}
	if rp.To <= 0 {
		rp.To = rp.From + DefaultReplayFrames
	}
	rp.To = min(rp.To, env.Config.MaxSteps)
	if rp.From < 0 || rp.From > rp.To {
		return nil, fmt.Errorf("%w: frames %d-%d are not in the episode (frames 0-%d)", ErrNoReplay, rp.From, rp.To, env.Config.MaxSteps)
	}
	if err := rp.draw(ctx, "the policy", p, env, o); err != nil {
		return nil, err
	}
	if len(rp.GIF) == 0 {
		return nil, fmt.Errorf("%w: %s", ErrNoReplay, rp.Note)
	}
	return rp, nil
}

// resolveEnv is the environment of a replay: its run's (whose map may be
// a file), else the built-in map its EnvConfig names.
func resolveEnv(tx *store.Tx, ref ReplayRef) (episode.Env, error) {
	if ref.Run != "" {
		rec, err := tx.Run(ref.Run)
		if err != nil {
			return episode.Env{}, fmt.Errorf("%w: run %s: %v", ErrNoReplay, ref.Run, err)
		}
		var cfg evolve.JobConfig
		if err := json.Unmarshal(rec.Config, &cfg); err != nil {
			return episode.Env{}, fmt.Errorf("%w: run %s: its configuration does not read: %v", ErrNoReplay, ref.Run, err)
		}
		env, err := runEnv(tx, rec, cfg.WithDefaults())
		if err == nil && env.Map == nil {
			err = fmt.Errorf("the map %q can no longer be read", cfg.Map)
		}
		if err != nil {
			return env, fmt.Errorf("%w: %v", ErrNoReplay, err)
		}
		return env, nil
	}
	e := ref.Env
	env, err := episode.ResolveEnv(e.Game, e.Map, e.Agents, e.MaxSteps)
	if err != nil {
		return env, fmt.Errorf("%w: environment %s: %v (a map file is known only through its run)", ErrNoReplay, e.Key(), err)
	}
	return env, nil
}
