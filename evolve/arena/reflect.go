package arena

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"policyevolve/critic"
	"policyevolve/envs"
	"policyevolve/evolve/episode"
	"policyevolve/evolve/timing"
	"policyevolve/store"
)

// ReflectLevel is the feedback level of the critiques Reflect makes and
// finds again (store.Critique.Level): the level at which a planner is
// shown the critic's reflections (planner.Critic).
const ReflectLevel = "critic"

// Reflect returns critic c's reflections on a policy's self-play on the
// arena's evaluation seeds, and their diagnostics: from the store when the
// same critique was made before (by the analytic critic, or by an LLM
// critic in the same run), else from episodes recorded now; a new
// critique is stored with the run and iteration it was made for (run ""
// outside a job). A policy that fails before its first step has nothing
// to reflect on: nil, nil, nil.
func (a *Arena) Reflect(ctx context.Context, id string, c critic.Critic, run string, iteration int) ([]critic.Reflection, *critic.Diagnostics, error) {
	_, isLLM := c.(*critic.LLM)
	var found *store.Critique
	err := a.Store.View(func(tx *store.Tx) error {
		cs, err := tx.Critiques(id)
		for i := range cs {
			k := &cs[i]
			if k.Level != ReflectLevel || k.Env != a.Env.Config || !slices.Equal(k.Seeds, a.EvalSeeds) || len(k.Opponents) > 0 {
				continue
			}
			if (isLLM && k.Run == run) || (!isLLM && k.Source == "analytic" && k.Fallback == "") {
				found = k
			}
		}
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	if found != nil {
		var d critic.Diagnostics
		if err := json.Unmarshal(found.Diagnostics, &d); err != nil {
			return nil, nil, fmt.Errorf("critique %d of %.12s: %w", found.ID, id, err)
		}
		refl := make([]critic.Reflection, len(found.Reflections))
		for i, r := range found.Reflections {
			refl[i] = critic.Reflection(r)
		}
		return refl, &d, nil
	}
	var eps []critic.Episode
	var source string
	for _, seed := range a.EvalSeeds {
		tr, src, err := a.record(ctx, id, seed)
		if err != nil {
			return nil, nil, err
		}
		if tr != nil {
			eps = append(eps, critic.Episode{Trajectory: tr})
		}
		source = src
	}
	if len(eps) == 0 {
		return nil, nil, nil // it never played a step: nothing to say
	}
	d, err := critic.Diagnose(eps, critic.Config{})
	if err != nil {
		return nil, nil, err
	}
	done := a.Profile.Start(timing.Planning)
	rep, err := c.Critique(ctx, d, source)
	done()
	if err != nil {
		return nil, nil, err
	}
	rec, err := CritiqueRecord(id, ReflectLevel, d, rep)
	if err != nil {
		return nil, nil, err
	}
	rec.Run, rec.Iteration, rec.Env, rec.Seeds = run, iteration, a.Env.Config, a.EvalSeeds
	if err := a.Store.Update(func(tx *store.Tx) error { return tx.AddCritique(rec) }); err != nil {
		return nil, nil, err
	}
	return rep.Reflections, d, nil
}

// record plays a policy's self-play episode on seed with its trajectory
// recorded (nil when it failed before its first step) and returns its
// source ("" for a built-in).
func (a *Arena) record(ctx context.Context, id string, seed uint64) (*envs.Trajectory, string, error) {
	p, prog, err := a.program(ctx, id)
	if err != nil {
		return nil, "", err
	}
	cfg := envs.Config{Map: a.Env.Map, Agents: a.Env.Config.Agents, MaxSteps: a.Env.Config.MaxSteps}
	opt := envs.Options{Seed: seed, Record: true}
	var res *envs.Result
	a.episodes.Add(1)
	a.Profile.Episode()
	defer a.Profile.Start(timing.Playing)()
	if prog != nil {
		res, err = prog.SelfPlay(ctx, cfg, opt)
	} else {
		var act envs.Actor
		if act, err = episode.BuiltinActor(p); err != nil {
			return nil, "", err
		}
		env, err2 := envs.New(cfg)
		if err2 != nil {
			return nil, "", err2
		}
		all := make([]int, cfg.Agents)
		for i := range all {
			all[i] = i
		}
		res, err = envs.Run(ctx, env, []envs.Seat{{Actor: act, Agents: all}}, opt)
	}
	if err != nil && !episode.PolicyFailure(err) {
		return nil, "", err
	}
	src := p.Source
	if p.Builtin != "" {
		src = ""
	}
	if res == nil || res.Trajectory == nil || len(res.Trajectory.Steps) == 0 {
		return nil, src, nil
	}
	return res.Trajectory, src, nil
}
