package planner

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"policyevolve/evolve/planner/prompts"
	"policyevolve/llm"
)

var _ GuidedPlanner = (*LLMPlanner)(nil)

// OpReflect is the Purpose of a GEPA reflection's LLM call.
const OpReflect = "reflect"

// Guide returns the planner with g as its system message's strategy
// guidance: any text will do.
func (p *LLMPlanner) Guide(g string) (Planner, error) {
	q := *p
	q.Guidance = strings.TrimSpace(g)
	return &q, nil
}

// Reflect asks the model for new guidance, shown the parent's guidance,
// the policy it led to and its scores at the task's feedback level (the
// reflection prompt, in the paper's system message's place: the model
// reflects on the policy writer, it does not write a policy).
func (p *LLMPlanner) Reflect(ctx context.Context, req ReflectRequest) (*Reflection, error) {
	g, err := p.game(req.Task)
	if err != nil {
		return nil, err
	}
	dense := req.Feedback.ShowsMetrics()
	d := prompts.ReflectData{Game: g, Guidance: req.Guidance, Problem: req.Problem, Dense: dense}
	if req.Policy.Policy.ID != "" {
		d.Policy = promptPolicy(req.Policy, "policy")
	}
	var sum float64
	for _, s := range req.Seeds {
		m := s.Metrics
		d.Seeds = append(d.Seeds, prompts.SeedScore{Seed: s.Seed, Reward: s.Score, Failed: s.Failed,
			Efficiency: m.Efficiency, Equality: m.Equality, Sustainability: m.Sustainability, Peace: m.Peace})
		sum += s.Score
	}
	if len(req.Seeds) > 0 {
		d.Mean = sum / float64(len(req.Seeds))
	}
	if req.Feedback == Critic {
		d.Reflections = req.Reflections
	}
	prompt, err := p.Prompts.Reflect(d)
	if err != nil {
		return nil, err
	}
	resp, err := p.Client.Generate(ctx, llm.Request{Prompt: prompt, Sample: req.Sample, Purpose: OpReflect})
	if errors.Is(err, llm.ErrNotAdmitted) {
		return &Reflection{Stopped: err}, nil
	}
	var ae *llm.APIError
	if errors.As(err, &ae) && errors.Is(err, llm.ErrEmptyAnswer) {
		return &Reflection{Problem: fmt.Errorf("%w: the answer was empty", ErrNoGuidance), Usage: Usage{LLMCalls: 1}}, nil
	}
	if err != nil {
		return nil, err
	}
	r := &Reflection{Usage: usageOf(resp)}
	if resp.CallID != 0 {
		r.Call = fmt.Sprintf("llm-call:%d", resp.CallID)
	}
	r.Guidance, r.Notes, r.Problem = ExtractGuidance(resp.Text)
	return r, nil
}
