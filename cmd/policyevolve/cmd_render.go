package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"policyevolve/elo"
	"policyevolve/envs"
	"policyevolve/envs/ssd"
	"policyevolve/render"
	"policyevolve/sandbox"
)

// renderOptions are the flags of "render".
type renderOptions struct {
	playOptions          // --game, --map, --agents, --policy, --length (as steps), sandbox flags
	vs          string   // --vs: the policy of the odd agents
	seed        uint64   // --seed
	out         string   // -o
	span        string   // --steps A-B: the frames of the GIF
	frames      []string // --frame T, repeatable: PNGs instead of a GIF
	scale       int
	fps         float64
}

func cmdRender(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var o renderOptions
	fs := newFlagSet("render", "-o FILE [flags]", `
Play one episode and draw it: an animated GIF of the whole map (walls,
apples, river, waste, stream, agents as triangles pointing where they face,
tagged-out agents grey, tagging and penalty beams yellow, cleaning beams
cyan), or with --frame one PNG per chosen frame.

Frame T is the state after T steps: frame 0 is the start, and the beams
drawn in frame T are those fired during step T. --frames A-B limits the
GIF to frames A to B; the episode is played only as far as needed.
(--frames was called --steps, a name every other command gives the
episode length, here --length; --steps is kept as a deprecated alias.)

--policy plays every agent; with --vs Q, --policy plays the even agents and
Q the odd ones, as in a match, and each policy has its own hue (its agents
are shades of it). Either may be a built-in name or a FILE.go run in the
sandbox.

With one --frame, -o names the PNG. With several, -o NAME.png writes
NAME-T.png for each frame T, T padded with zeros to the width of the
episode length (shot-0042.png for 1000 steps). "-o -" writes a GIF or a
single PNG to standard output.

A 1000-step Gathering episode on the large map at the default scale is
about 0.2-0.6 MB: every GIF frame holds only the rectangle that changed.`, stdout)
	fs.StringVar(&o.game, "game", "gathering", "game: gathering or cleanup")
	fs.StringVar(&o.mapArg, "map", "", "built-in map name or map file (default: large for gathering, default for cleanup)")
	fs.IntVar(&o.agents, "agents", 10, "number of agents")
	fs.StringVar(&o.policy, "policy", "bfs", "policy of every agent, or of the even agents with --vs: a built-in name or a FILE.go")
	fs.StringVar(&o.vs, "vs", "", "policy of the odd agents (a built-in name or a FILE.go)")
	fs.Uint64Var(&o.seed, "seed", 0, "episode seed")
	fs.IntVar(&o.steps, "length", envs.DefaultMaxSteps, "episode length in steps")
	fs.StringVar(&o.out, "o", "", "output file: a GIF, or a PNG with --frame (required; - for standard output)")
	fs.StringVar(&o.span, "frames", "", "frames of the GIF: A-B, inclusive (default: all, 0 to the episode length)")
	fs.alias("steps", "frames") // its old name, deprecated: --steps is the episode length elsewhere
	fs.Func("frame", "write frame `T` as a PNG instead of a GIF (repeatable)", func(s string) error {
		o.frames = append(o.frames, s)
		return nil
	})
	fs.IntVar(&o.scale, "scale", render.DefaultScale, fmt.Sprintf("pixels per cell, 1-%d", render.MaxScale))
	fs.Float64Var(&o.fps, "fps", 10, "GIF frames per second, up to 50")
	o.sandboxOptions.register(fs)
	if err := parseFlags(fs, args, false); err != nil {
		return err
	}
	return runRender(ctx, o, stdout, stderr)
}

// renderPlan is what to draw: a GIF of frames from-to, or PNGs of frames.
type renderPlan struct {
	from, to int
	pngs     []int
	files    []string // one per PNG, or the GIF
}

// last is the last frame the plan needs.
func (p *renderPlan) last() int {
	if p.pngs == nil {
		return p.to
	}
	return slices.Max(p.pngs)
}

func runRender(ctx context.Context, o renderOptions, stdout, stderr io.Writer) error {
	env, _, err := o.env()
	if err != nil {
		return err
	}
	plan, err := o.plan()
	if err != nil {
		return err
	}
	var sides []int
	if o.vs != "" {
		if o.agents < 2 {
			return usagef("--vs needs at least 2 agents (got %d)", o.agents)
		}
		sides = elo.Sides(o.agents, false)
	}
	outs, err := createOutputs(plan.files, stdout)
	if err != nil {
		return err
	}
	done := false
	defer func() {
		if !done {
			outs.discard()
		}
	}()

	tr, failure, err := o.play(ctx, env, sides, plan.last(), stderr)
	if err != nil {
		return err
	}
	ro := render.Options{Scale: o.scale, Sides: sides}
	reached := render.Frames(tr) - 1
	if plan.pngs == nil {
		to := min(plan.to, reached)
		if plan.from > to {
			return fmt.Errorf("%w; frame %d was never reached", failure, plan.from)
		}
		delay := int(math.Round(100 / o.fps))
		if err := render.WriteGIF(outs.w[0], tr, ro, render.Animation{From: plan.from, To: to, Delay: max(delay, 2)}); err != nil {
			return err
		}
		if failure != nil {
			failure = fmt.Errorf("%w; %s holds frames %d-%d", failure, o.out, plan.from, to)
		}
	} else {
		for i, t := range plan.pngs {
			if t > reached {
				return fmt.Errorf("%w; frame %d was never reached", failure, t)
			}
			if err := render.WritePNG(outs.w[i], tr, t, ro); err != nil {
				return err
			}
		}
	}
	done = true
	if err := outs.commit(); err != nil {
		return err
	}
	if o.out != "-" {
		for _, f := range plan.files {
			fmt.Fprintf(stdout, "wrote %s (%s)\n", f, fileSize(f))
		}
	}
	return failure
}

// plan checks -o, --steps and --frame against the episode length.
func (o *renderOptions) plan() (*renderPlan, error) {
	if o.out == "" {
		return nil, usagef("-o is required: the GIF (or with --frame, the PNG) to write")
	}
	ext := strings.ToLower(filepath.Ext(o.out))
	p := &renderPlan{to: o.steps}
	if len(o.frames) == 0 {
		if ext == ".png" {
			return nil, usagef("-o %s: an episode is written as a GIF; pass --frame T for a PNG", o.out)
		}
		if ext != ".gif" && ext != "" && o.out != "-" {
			return nil, usagef("-o %s: render writes an animated GIF, whatever the name says; name the output NAME.gif", o.out)
		}
		if o.span != "" {
			var err error
			if p.from, p.to, err = parseSpan(o.span, o.steps); err != nil {
				return nil, usagef("--frames: %v", err)
			}
		}
		p.files = []string{o.out}
		return p, nil
	}
	if o.span != "" {
		return nil, usagef("--frames selects the frames of a GIF; with --frame, name each frame")
	}
	if ext != ".png" && ext != "" && o.out != "-" {
		return nil, usagef("-o %s: --frame writes PNGs; name the output NAME.png", o.out)
	}
	if o.out == "-" && len(o.frames) > 1 {
		return nil, usagef("-o - takes one --frame (got %d)", len(o.frames))
	}
	for _, s := range o.frames {
		t, err := strconv.Atoi(s)
		if err != nil || t < 0 {
			return nil, usagef("--frame %q is not a frame number (0 to %d)", s, o.steps)
		}
		if t > o.steps {
			return nil, usagef("--frame %d is beyond the episode (frames 0-%d for --length %d)", t, o.steps, o.steps)
		}
		p.pngs = append(p.pngs, t)
	}
	if len(p.pngs) == 1 {
		p.files = []string{o.out}
		return p, nil
	}
	seen := map[int]bool{}
	base := strings.TrimSuffix(o.out, filepath.Ext(o.out))
	width := len(strconv.Itoa(o.steps))
	for _, t := range p.pngs {
		if seen[t] {
			return nil, usagef("--frame %d appears twice", t)
		}
		seen[t] = true
		p.files = append(p.files, fmt.Sprintf("%s-%0*d.png", base, width, t))
	}
	return p, nil
}

// play runs the episode with a recorded trajectory, stopping after step
// last. A policy that fails is a result: the trajectory holds the steps
// before it and failure says why.
func (o *renderOptions) play(ctx context.Context, env *envs.Env, sides []int, last int, stderr io.Writer) (tr *envs.Trajectory, failure, err error) {
	loader := policyLoader{game: env.Game(), sandbox: &o.sandboxOptions, stderr: stderr}
	defer loader.close()
	a, sourceA, err := loader.actor(ctx, "--policy", o.policy)
	if err != nil {
		return nil, nil, err
	}
	var seats []envs.Seat
	source := sourceA
	if sides == nil {
		all := make([]int, o.agents)
		for i := range all {
			all[i] = i
		}
		seats = []envs.Seat{{Actor: a, Agents: all}}
	} else {
		b, sourceB, err := loader.actor(ctx, "--vs", o.vs)
		if err != nil {
			return nil, nil, err
		}
		source = source || sourceB
		var even, odd []int
		for i, s := range sides {
			if s == 0 {
				even = append(even, i)
			} else {
				odd = append(odd, i)
			}
		}
		seats = []envs.Seat{{Actor: a, Agents: even}, {Actor: b, Agents: odd}}
	}
	seats[0].Actor = &stopAfter{Actor: seats[0].Actor, last: last}
	res, err := envs.Run(ctx, env, seats, envs.Options{Seed: o.seed, Record: true, Verify: source})
	var pe *sandbox.PolicyError
	switch {
	case errors.Is(err, errEnough):
		err = nil
	case errors.As(err, &pe):
		failure, err = fmt.Errorf("the policy failed: %w", err), nil
	}
	if err != nil {
		return nil, nil, err
	}
	return res.Trajectory, failure, nil
}

// errEnough stops an episode once the frames to draw are played.
var errEnough = errors.New("enough steps for the frames asked for")

// stopAfter is an actor that stops the episode before step last+1.
type stopAfter struct {
	envs.Actor
	last int
}

func (s *stopAfter) Act(ctx context.Context, st *ssd.State, actions []int) error {
	if st.Step >= s.last {
		return errEnough
	}
	return s.Actor.Act(ctx, st, actions)
}

// Observe passes the step's actions on to an actor that keeps a replica
// (a sandboxed policy's worker).
func (s *stopAfter) Observe(actions []int) {
	if o, ok := s.Actor.(envs.Observer); ok {
		o.Observe(actions)
	}
}
