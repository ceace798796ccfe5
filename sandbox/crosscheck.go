package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"policyevolve/envs"
	"policyevolve/envs/ssd"
)

// The cross-check of admission. The yaegi interpreter runs some Go
// differently from the compiler; the rewrite for yaegi fixes or refuses
// every such construct known (TestYaegiProbes, FuzzAgree), and the
// cross-check is the safety net behind it: when both backends are
// available, a policy that passed the smoke test is run once more on the
// other backend, over the same 50 steps, and refused when any agent's
// action differs at any step. A policy that the yaegi backend refuses
// with a precise message (statically, or at run time by a check the
// rewrite added) is admitted on the native backend: it can never be
// scored silently wrong, since the yaegi backend would refuse it too. So
// is one the other backend stops for its cost (a timeout, the cost
// budget: the interpreter is 100-650 times slower), on the steps it
// played. Any other failure on one backend only (a panic, a crash) is a
// disagreement.

// otherBackend returns a Sandbox of the other backend, or nil and why
// there is none.
func (s *Sandbox) otherBackend() (*Sandbox, string) {
	s.otherOnce.Do(func() {
		if s.cfg.SkipCrossCheck {
			s.otherWhy = "the cross-check is off"
			return
		}
		cfg := s.cfg
		cfg.SkipCrossCheck = true
		cfg.Notice = io.Discard
		cfg.EpisodeCPU = 0 // the other backend's default
		switch s.backend {
		case Native:
			if raceEnabled {
				s.otherWhy = "a binary built with the race detector cannot serve as yaegi worker"
				return
			}
			cfg.Backend = Yaegi
		case Yaegi:
			cfg.Backend = Native
			cfg.WorkerExe = ""
		}
		o, err := New(cfg)
		if err != nil {
			s.otherWhy = fmt.Sprintf("no %s backend: %v", cfg.Backend, err)
			return
		}
		s.other = o
	})
	return s.other, s.otherWhy
}

// crossCheck plays first's episode (cfg, from its seed: admission's
// whole episode, or the smoke test's first when AdmissionSteps is
// negative) on the other backend and compares its actions with first's.
// It records what it compared in rep; it returns an ErrDisagree
// PolicyError when the backends disagree, another error only when ctx
// ends.
func (s *Sandbox) crossCheck(ctx context.Context, p *Program, cfg envs.Config, rep *SmokeReport, first *envs.Result) error {
	src := p.Source
	rep.Compared = []Backend{s.backend}
	other, why := s.otherBackend()
	if other == nil {
		rep.CrossNote = why
		return nil
	}
	po, err := other.Compile(ctx, src)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var ve *ValidationError
		if errors.As(err, &ve) && len(ve.Issues) > 0 {
			is := ve.Issues[0]
			rep.CrossNote = fmt.Sprintf("the %s backend refuses this policy: line %d:%d: %s", other.backend, is.Line, is.Col, is.Msg)
		} else {
			rep.CrossNote = fmt.Sprintf("the %s backend could not prepare this policy: %v", other.backend, err)
		}
		return nil
	}
	defer po.Close()
	key := s.verdictKey(p, po, cfg, first.Seed)
	if v, ok := s.readVerdict(key); ok {
		rep.Compared = append(rep.Compared, v.Compared...)
		rep.CrossNote, rep.CrossSteps = v.Note, v.Steps
		return nil
	}
	err = s.crossRun(ctx, po, cfg, rep, first)
	if err == nil {
		s.writeVerdict(key, verdict{Compared: rep.Compared[1:], Note: rep.CrossNote, Steps: rep.CrossSteps})
	}
	return err
}

// crossRun plays the episode on the other backend's program po and
// compares (see crossCheck).
func (s *Sandbox) crossRun(ctx context.Context, po *Program, cfg envs.Config, rep *SmokeReport, first *envs.Result) error {
	other := po.sb
	res, _, runErr := po.selfPlay(ctx, cfg, envs.Options{Seed: first.Seed, Record: true}, s.cfg.AdmissionCPU)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	steps := 0
	if res != nil && res.Trajectory != nil {
		steps = len(res.Trajectory.Steps)
		if t, i, differ := firstDivergence(first.Trajectory, res.Trajectory); differ {
			a, b := first.Trajectory.Steps[t].Actions[i], res.Trajectory.Steps[t].Actions[i]
			where := ""
			if note := partingNote(traceOf(ctx, s, po.Source, cfg, first.Seed, t, i), traceOf(ctx, other, po.Source, cfg, first.Seed, t, i),
				s.backend, other.backend); note != "" {
				where = " (" + note + ")"
			}
			return &PolicyError{Kind: ErrDisagree, Step: t, Agent: i, Program: po.ID,
				Detail: fmt.Sprintf("the %s backend chose %s, the %s backend %s%s — the yaegi interpreter computes something differently from Go in what this step runs; write it another way",
					s.backend, ssd.ActionName(a), other.backend, ssd.ActionName(b), where)}
		}
	}
	played := 0
	if first.Trajectory != nil {
		played = len(first.Trajectory.Steps)
	}
	rep.CrossSteps = min(steps, played)
	if runErr == nil {
		rep.Compared = append(rep.Compared, other.backend)
		return nil
	}
	var pe *PolicyError
	if !errors.As(runErr, &pe) {
		rep.CrossNote = fmt.Sprintf("the %s backend could not run this policy: %v", other.backend, runErr)
		return nil
	}
	switch {
	case errors.Is(pe, ErrTimeout), errors.Is(pe, ErrCost), errors.Is(pe, ErrCPUBudget):
		rep.Compared = append(rep.Compared, other.backend)
		rep.CrossNote = fmt.Sprintf("compared on %d of %d steps: the %s backend stopped for its cost (%v)", steps, cfg.MaxSteps, other.backend, pe)
		return nil
	case strings.Contains(pe.Detail, refusalPrefix):
		rep.CrossNote = fmt.Sprintf("compared on %d of %d steps: the %s backend stops this policy: %v", steps, cfg.MaxSteps, other.backend, pe)
		return nil
	case steps >= played && played < cfg.MaxSteps:
		// This backend stopped first, or at the same step (a panic the
		// policy raises on both): nothing played here to compare after.
		rep.Compared = append(rep.Compared, other.backend)
		return nil
	}
	failed, ran := other.backend, s.backend
	return &PolicyError{Kind: ErrDisagree, Step: pe.Step, Agent: pe.Agent, Program: po.ID, Line: pe.Line, Output: pe.Output,
		Detail: fmt.Sprintf("the %s backend ran this step, the %s backend failed: %s — the yaegi interpreter runs something here differently from Go; write it another way",
			ran, failed, pe.Error())}
}

// firstDivergence returns the first step, and the first agent in it, at
// which two trajectories' actions differ, over the steps both have.
func firstDivergence(a, b *envs.Trajectory) (step, agent int, differ bool) {
	if a == nil || b == nil {
		return 0, 0, false
	}
	for t := range min(len(a.Steps), len(b.Steps)) {
		x, y := a.Steps[t].Actions, b.Steps[t].Actions
		for i := range min(len(x), len(y)) {
			if x[i] != y[i] {
				return t, i, true
			}
		}
	}
	return 0, 0, false
}
