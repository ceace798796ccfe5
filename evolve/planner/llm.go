package planner

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"policyevolve/evolve/planner/prompts"
	"policyevolve/llm"
	"policyevolve/store"
)

// LLMPlanner writes policies with a language model, from the paper's
// prompts (package prompts). Every call goes through the Client, whose
// Recorder keeps the ledger.
type LLMPlanner struct {
	Client  *llm.Client
	Prompts *prompts.Set
	// Guidance, when set, ends the system message as its strategy
	// guidance (a GEPA prompt candidate; see Guide).
	Guidance string
	// Style is the prompting style: prompts.StyleStandard (""), naive,
	// cot or react (reason–act turns that test drafts with Task.Try).
	Style string
	// ReactTurns bounds the drafts a ReAct proposal tests (default
	// DefaultReactTurns).
	ReactTurns int
	// Adversarial adds the "no holds barred" section to the system
	// message (prompts.Game.Adversarial).
	Adversarial bool
}

var _ Planner = (*LLMPlanner)(nil)

// conversation is an LLM proposal's State: the messages it answered, so
// that Fix appends the error to the same user prompt, as in the paper.
type conversation struct {
	system, prompt string
	operator       string
	parents        []string
}

// Name is "llm:PROVIDER:MODEL".
func (p *LLMPlanner) Name() string { return "llm:" + p.Client.Name() }

func (p *LLMPlanner) game(t Task) (prompts.Game, error) {
	if t.Env.Map == nil {
		return prompts.Game{}, errors.New("llm planner: the task has no environment")
	}
	g, err := prompts.NewGame(t.Env.Map, t.Env.Config.Agents, t.Env.Config.MaxSteps)
	g.Style, g.Adversarial = p.Style, p.Adversarial
	return g, err
}

// system is the system message for g, ending with the planner's
// guidance when it has one.
func (p *LLMPlanner) system(g prompts.Game) (string, error) {
	sys, err := p.Prompts.System(g)
	if err != nil || p.Guidance == "" {
		return sys, err
	}
	sec, err := p.Prompts.Guidance(prompts.GuidanceData{Game: g, Guidance: p.Guidance})
	if err != nil {
		return "", err
	}
	return strings.TrimRight(sys, "\n") + "\n" + sec, nil
}

func (p *LLMPlanner) start(ctx context.Context, t Task, op string, parents []string, user func(prompts.Game) (string, error)) (*Proposal, error) {
	g, err := p.game(t)
	if err != nil {
		return nil, err
	}
	sys, err := p.system(g)
	if err != nil {
		return nil, err
	}
	prompt, err := user(g)
	if err != nil {
		return nil, err
	}
	return p.ask(ctx, t, &conversation{system: sys, prompt: prompt, operator: op, parents: parents}, op)
}

// ask sends a conversation and turns the answer into a proposal.
func (p *LLMPlanner) ask(ctx context.Context, t Task, c *conversation, purpose string) (*Proposal, error) {
	if p.Style == prompts.StyleReact {
		return p.react(ctx, t, c, purpose)
	}
	resp, err := p.Client.Generate(ctx, llm.Request{System: c.system, Prompt: c.prompt, Sample: t.Sample, Purpose: purpose})
	var ae *llm.APIError
	if errors.As(err, &ae) && errors.Is(err, llm.ErrEmptyAnswer) {
		// The model said nothing (often: its max tokens went on
		// reasoning). It cost a call; the fix loop asks again.
		return &Proposal{Problem: fmt.Errorf("%w: the answer was empty", ErrNoPolicy), State: c,
			Usage: Usage{LLMCalls: 1}, Origin: p.origin(t, c, 0)}, nil
	}
	if err != nil {
		return nil, err
	}
	return withAnswer(&Proposal{State: c, Origin: p.origin(t, c, resp.CallID), Usage: usageOf(resp)}, resp.Text), nil
}

// withAnswer fills a proposal from the model's answer: the policy and the
// notes before it, or the Problem of an answer that holds none.
func withAnswer(prop *Proposal, answer string) *Proposal {
	prop.Source, prop.Notes, prop.Problem = Extract(answer)
	return prop
}

func (p *LLMPlanner) origin(t Task, c *conversation, call uint64) store.Origin {
	o := store.Origin{Run: t.Run, Iteration: t.Iteration, Planner: p.Name(), Operator: c.operator, Parents: c.parents}
	if call != 0 {
		o.Prompt = fmt.Sprintf("llm-call:%d", call)
	}
	return o
}

func usageOf(r *llm.Response) Usage {
	if r.Cached {
		return Usage{}
	}
	return Usage{LLMCalls: 1, InputTokens: r.Usage.InputTokens, OutputTokens: r.Usage.OutputTokens,
		ReasoningTokens: r.Usage.ReasoningTokens, Cost: r.Usage.Cost}
}

// Init asks for a policy from scratch (the paper's iteration 0).
func (p *LLMPlanner) Init(ctx context.Context, req InitRequest) (*Proposal, error) {
	return p.start(ctx, req.Task, OpInit, nil, func(g prompts.Game) (string, error) {
		return p.Prompts.Init(prompts.InitData{Game: g, Iteration: req.Iteration, Iterations: req.Iterations})
	})
}

// Improve asks for a better version of the parent, with the feedback of
// the task's level: sparse shows rewards, dense adds the social metrics,
// critic adds the critic's reflections.
func (p *LLMPlanner) Improve(ctx context.Context, req ImproveRequest) (*Proposal, error) {
	dense := req.Feedback.ShowsMetrics()
	return p.start(ctx, req.Task, OpImprove, []string{req.Parent.Policy.ID}, func(g prompts.Game) (string, error) {
		d := prompts.ImproveData{Game: g, Iteration: req.Iteration, Iterations: req.Iterations, Dense: dense,
			Parent: promptPolicy(req.Parent, "current")}
		for i, h := range req.History {
			pp := promptPolicy(h, fmt.Sprintf("iteration-%d", i))
			pp.Iteration = i
			d.History = append(d.History, pp)
		}
		for i, s := range req.Inspirations {
			if i == 3 {
				break
			}
			d.Inspirations = append(d.Inspirations, promptPolicy(s, fmt.Sprintf("inspiration-%d", i+1)))
		}
		switch req.Feedback {
		case Critic:
			d.Reflections = req.Reflections
		case Raw:
			d.Excerpt = req.Excerpt
		}
		return p.Prompts.Improve(d)
	})
}

// Crossover asks for a policy that merges two parents.
func (p *LLMPlanner) Crossover(ctx context.Context, req CrossoverRequest) (*Proposal, error) {
	dense := req.Feedback.ShowsMetrics()
	return p.start(ctx, req.Task, OpCrossover, []string{req.A.Policy.ID, req.B.Policy.ID}, func(g prompts.Game) (string, error) {
		return p.Prompts.Crossover(prompts.CrossoverData{Game: g, Dense: dense,
			A: promptPolicy(req.A, "parent-a"), B: promptPolicy(req.B, "parent-b")})
	})
}

// Fix appends the problem, with advice for its kind, to the user prompt
// of the failed proposal and asks again. The fixed proposal keeps the
// operator and parents of the one it repairs: it is another attempt at
// the same request, as in the paper.
func (p *LLMPlanner) Fix(ctx context.Context, req FixRequest) (*Proposal, error) {
	c, ok := req.Failed.State.(*conversation)
	if !ok {
		return nil, fmt.Errorf("llm planner: cannot fix a proposal of another planner (%T)", req.Failed.State)
	}
	g, err := p.game(req.Task)
	if err != nil {
		return nil, err
	}
	pr := DescribeProblem(req.Problem)
	para, err := p.Prompts.Fix(prompts.FixData{Game: g, Kind: pr.Kind, Summary: pr.Summary, Error: pr.Detail,
		Attempt: req.Attempt, MaxAttempts: MaxAttempts})
	if err != nil {
		return nil, err
	}
	next := &conversation{system: c.system, prompt: c.prompt + para, operator: c.operator, parents: c.parents}
	return p.ask(ctx, req.Task, next, OpFix)
}

// promptPolicy shows a scored policy to the prompts.
func promptPolicy(s Scored, fallback string) prompts.Policy {
	name := s.Policy.Name
	if name == "" {
		name = fallback
		if len(s.Policy.ID) >= 12 {
			name = s.Policy.ID[:12]
		}
	}
	pp := prompts.Policy{Name: name, Source: strings.TrimRight(s.Policy.Source, "\n"), Elo: s.Elo, Rated: s.Rated}
	if e := s.Eval; e != nil {
		var sum float64
		n := 0
		for _, r := range e.PerSeed {
			if r.Status != store.StatusOK || len(r.Returns) == 0 {
				continue
			}
			var tot float64
			for _, x := range r.Returns {
				tot += x
			}
			sum += tot / float64(len(r.Returns))
			n++
		}
		if n > 0 {
			pp.HasEval = true
			pp.Reward = sum / float64(n)
			pp.Efficiency, pp.Equality = e.Mean.Efficiency, e.Mean.Equality
			pp.Sustainability, pp.Peace = e.Mean.Sustainability, e.Mean.Peace
		}
		if e.Status != store.StatusOK {
			pp.Failed = e.Error
		}
	}
	return pp
}
