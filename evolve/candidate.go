package evolve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"policyevolve/critic"
	"policyevolve/envs"
	"policyevolve/store"
)

// request is what a candidate asks its planner.
type request struct {
	op           string
	parent       string   // improve
	history      []string // chain: earlier iterations' policies, oldest first
	inspirations []string
	mate         string // crossover
	// planner, when set, writes instead of the plan's planner (GEPA: the
	// planner under a candidate's guidance).
	planner Planner
	// known accepts a policy written before instead of refusing it as a
	// duplicate (GEPA scores whatever a prompt makes the planner write).
	known bool
}

// propose runs one request through the fix loop: the planner's operator,
// admission (stored verdicts), the duplicate screen, storage.
func (j *Job) propose(ctx context.Context, it *store.Iteration, pc store.PlannedCandidate, sample int, r request) (*Outcome, error) {
	planner := j.planners[pc.Planner]
	if r.planner != nil {
		planner = r.planner
	}
	if planner == nil {
		return nil, fmt.Errorf("iteration %d: no planner %q", it.Index, pc.Planner)
	}
	task := Task{Env: j.env, Run: j.RunID, Iteration: it.Index, Iterations: j.Config.Iterations, Sample: sample,
		Seed: j.seedFor("task", it.Index, sample, pc.Seed), Feedback: Feedback(j.Config.Feedback)}
	self := store.Origin{Run: j.RunID, Iteration: it.Index, Sample: sample, Operator: r.op}
	loop := &FixLoop{Planner: planner, Sandbox: j.Sandbox, Store: j.Store, Log: j.Log, Screen: j.dedupe.screen(self), Profile: j.profile}
	if r.known {
		loop.Screen = nil
	}
	var out *Outcome
	var err error
	switch r.op {
	case OpInit:
		out, err = loop.Init(ctx, InitRequest{Task: task})
	case OpCrossover:
		a, err := j.scored(ctx, r.parent)
		if err != nil {
			return nil, err
		}
		b, err := j.scored(ctx, r.mate)
		if err != nil {
			return nil, err
		}
		out, err = loop.Crossover(ctx, CrossoverRequest{Task: task, A: a, B: b})
	default:
		req := ImproveRequest{Task: task}
		if req.Parent, err = j.scored(ctx, r.parent); err != nil {
			return nil, err
		}
		for _, id := range r.history {
			s, err := j.scored(ctx, id)
			if err != nil {
				return nil, err
			}
			req.History = append(req.History, s)
		}
		for _, id := range r.inspirations {
			s, err := j.scored(ctx, id)
			if err != nil {
				return nil, err
			}
			req.Inspirations = append(req.Inspirations, s)
		}
		if task.Feedback == Critic || planner.Name() == GrammarName {
			// The critic's findings (and, for planners that act on
			// numbers, its diagnostics).
			if req.Reflections, req.Diagnostics, err = j.reflect(ctx, it.Index, r.parent); err != nil {
				return nil, err
			}
			if task.Feedback != Critic {
				req.Reflections = nil
			}
		}
		out, err = loop.Improve(ctx, req)
	}
	if err != nil {
		return out, err
	}
	if out.Policy != nil {
		j.dedupe.add(out.Policy)
	}
	return out, nil
}

// reflect returns the critic's reflections on a policy's self-play and its
// diagnostics: from the store when this critique was made before, else
// from episodes recorded now (stored).
func (j *Job) reflect(ctx context.Context, iteration int, id string) ([]critic.Reflection, *critic.Diagnostics, error) {
	_, isLLM := j.critic.(*critic.LLM)
	var found *store.Critique
	err := j.Store.View(func(tx *store.Tx) error {
		cs, err := tx.Critiques(id)
		for i := range cs {
			c := &cs[i]
			if c.Level != string(Critic) || c.Env != j.env.Config || !slices.Equal(c.Seeds, j.Config.EvalSeeds) || len(c.Opponents) > 0 {
				continue
			}
			if (isLLM && c.Run == j.RunID) || (!isLLM && c.Source == "analytic" && c.Fallback == "") {
				found = c
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
	for _, seed := range j.Config.EvalSeeds {
		tr, src, err := j.record(ctx, id, seed)
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
	done := j.profile.start(Planning)
	rep, err := j.critic.Critique(ctx, d, source)
	done()
	if err != nil {
		return nil, nil, err
	}
	rec, err := CritiqueRecord(id, Critic, d, rep)
	if err != nil {
		return nil, nil, err
	}
	rec.Run, rec.Iteration, rec.Env, rec.Seeds = j.RunID, iteration, j.env.Config, j.Config.EvalSeeds
	if err := j.Store.Update(func(tx *store.Tx) error { return tx.AddCritique(rec) }); err != nil {
		return nil, nil, err
	}
	return rep.Reflections, d, nil
}

// record plays a policy's self-play episode on seed with its trajectory
// recorded (nil when it failed before its first step) and returns its
// source ("" for a built-in).
func (j *Job) record(ctx context.Context, id string, seed uint64) (*envs.Trajectory, string, error) {
	p, prog, err := j.arena.program(ctx, id)
	if err != nil {
		return nil, "", err
	}
	cfg := envs.Config{Map: j.env.Map, Agents: j.env.Config.Agents, MaxSteps: j.env.Config.MaxSteps}
	opt := envs.Options{Seed: seed, Record: true}
	var res *envs.Result
	j.arena.episodes.Add(1)
	j.profile.episodes.Add(1)
	defer j.profile.start(Playing)()
	if prog != nil {
		res, err = prog.SelfPlay(ctx, cfg, opt)
	} else {
		var act envs.Actor
		if act, err = builtinActor(p); err != nil {
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
	if err != nil && !policyFailure(err) {
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

// outcomeUsage is what a request cost, as a candidate records it.
func outcomeUsage(out *Outcome) store.RunUsage {
	if out == nil {
		return store.RunUsage{}
	}
	return runUsage(len(out.Attempts), out.Usage)
}

// runUsage is the record of proposals planner calls that cost u.
func runUsage(proposals int, u Usage) store.RunUsage {
	return store.RunUsage{Proposals: proposals, LLMCalls: u.LLMCalls, InputTokens: u.InputTokens,
		OutputTokens: u.OutputTokens, ReasoningTokens: u.ReasoningTokens, Cost: u.Cost}
}

func addUsage(a *store.RunUsage, b store.RunUsage) {
	a.Proposals += b.Proposals
	a.LLMCalls += b.LLMCalls
	a.InputTokens += b.InputTokens
	a.OutputTokens += b.OutputTokens
	a.ReasoningTokens += b.ReasoningTokens
	a.Cost += b.Cost
	a.Episodes += b.Episodes
}

// refusal describes a request none of whose attempts passed: duplicate or
// refused.
func refusal(out *Outcome) (status, problem string) {
	p := out.Problem()
	if p == nil {
		return store.CandidateRefused, "no proposal"
	}
	if errors.Is(p, ErrDuplicate) || DescribeProblem(p).Kind == "duplicate" {
		return store.CandidateDuplicate, p.Error()
	}
	return store.CandidateRefused, p.Error()
}

// metricsOf is an evaluation's mean metrics, or zero for none.
func metricsOf(ev *store.Evaluation) store.Metrics {
	if ev == nil {
		return store.Metrics{}
	}
	return ev.Mean
}
