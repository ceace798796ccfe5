package planner

import (
	"context"
	"errors"
	"fmt"
	"slices"
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

// conversation is an LLM proposal's State: the messages it answered and
// the model's answer, so that Fix can go on with the same conversation.
type conversation struct {
	system, prompt string
	turns          []llm.Turn
	// answer is the model's answer ("" when it gave none).
	answer string
	// legacy is the same request in the words of the prompts before they
	// were built per game and before a fix was a conversation (a fix
	// paragraph appended to the first prompt): a run recorded then finds
	// its answers under them (nil: no such words).
	legacy   *legacyRequest
	operator string
	parents  []string
}

// legacyRequest is a single-turn request: a system message and a prompt.
type legacyRequest struct{ system, prompt string }

// request is the conversation as a request, with extra appended to its
// last user message (the first prompt, or the last reply).
func (c *conversation) request(extra string, sample int, purpose string) llm.Request {
	r := llm.Request{System: c.system, Prompt: c.prompt, Turns: slices.Clone(c.turns), Sample: sample, Purpose: purpose}
	if extra != "" {
		if n := len(r.Turns); n > 0 {
			r.Turns[n-1].Text += extra
		} else {
			r.Prompt += extra
		}
	}
	return r
}

// then is the conversation after the model's answer and the user's
// reply. An empty answer cannot be a turn (providers refuse empty
// messages): the reply is then appended to the last user message.
func (c *conversation) then(answer, reply string) *conversation {
	next := &conversation{system: c.system, prompt: c.prompt, turns: slices.Clone(c.turns), operator: c.operator, parents: c.parents}
	if strings.TrimSpace(answer) == "" {
		r := c.request(reply, 0, "")
		next.prompt, next.turns = r.Prompt, r.Turns
		return next
	}
	next.turns = append(next.turns, llm.Turn{Role: llm.RoleAssistant, Text: answer},
		llm.Turn{Role: llm.RoleUser, Text: strings.TrimLeft(reply, "\n")})
	return next
}

// generate asks the model the conversation with extra appended to its
// last user message; an answer recorded under the legacy words of the
// same request is taken first.
func (p *LLMPlanner) generate(ctx context.Context, t Task, c *conversation, extra, purpose string) (*llm.Response, error) {
	if l := c.legacy; l != nil && (l.system != c.system || l.prompt != c.prompt || len(c.turns) > 0) {
		resp, err := p.Client.Recorded(ctx, llm.Request{System: l.system, Prompt: l.prompt + extra, Sample: t.Sample})
		if resp != nil || err != nil {
			return resp, err
		}
	}
	return p.Client.Generate(ctx, c.request(extra, t.Sample, purpose))
}

// Name is "llm:PROVIDER:MODEL".
func (p *LLMPlanner) Name() string { return "llm:" + p.Client.Name() }

func (p *LLMPlanner) game(t Task) (prompts.Game, error) {
	if t.Env.Map == nil {
		return prompts.Game{}, errors.New("llm planner: the task has no environment")
	}
	g, err := prompts.NewGame(t.Env.Map, t.Env.Config.Agents, t.Env.Config.MaxSteps)
	g.Style, g.Adversarial = p.Style, p.Adversarial
	if tg := t.Target; tg != nil {
		g.Exploit = &prompts.Exploit{Residents: tg.Name, Source: strings.TrimRight(tg.Source, "\n"), Invaders: tg.Invaders}
	}
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
	now, err := p.words(g, user)
	if err != nil {
		return nil, err
	}
	// The same request as the prompts said it before they were built per
	// game (prompts.Game.LegacyGame).
	lg, err := g.LegacyGame()
	if err != nil {
		return nil, err
	}
	before, err := p.words(lg, user)
	if err != nil {
		return nil, err
	}
	c := &conversation{system: now.system, prompt: now.prompt, legacy: before, operator: op, parents: parents}
	return p.ask(ctx, t, c, op)
}

// words are a request's system message and first prompt for g.
func (p *LLMPlanner) words(g prompts.Game, user func(prompts.Game) (string, error)) (*legacyRequest, error) {
	sys, err := p.system(g)
	if err != nil {
		return nil, err
	}
	prompt, err := user(g)
	if err != nil {
		return nil, err
	}
	return &legacyRequest{system: sys, prompt: prompt}, nil
}

// ask sends a conversation and turns the answer into a proposal.
func (p *LLMPlanner) ask(ctx context.Context, t Task, c *conversation, purpose string) (*Proposal, error) {
	if p.Style == prompts.StyleReact {
		return p.react(ctx, t, c, purpose)
	}
	resp, err := p.generate(ctx, t, c, "", purpose)
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
	c.answer = resp.Text
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

// Fix goes on with the failed proposal's conversation: the model's
// answer as its turn, then the problem, with advice for its kind and its
// line:column positions counted in that answer, as the user's reply (an
// empty answer cannot be a turn: the problem is then appended to the last
// user message). The fixed proposal keeps the operator and parents of the
// one it repairs: it is another attempt at the same request, as in the
// paper.
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
	d := prompts.FixData{Game: g, Kind: pr.Kind, Summary: pr.Summary, Error: pr.Detail, Attempt: req.Attempt, MaxAttempts: MaxAttempts}
	if c.answer != "" {
		d.Summary, d.Error = InAnswer(pr.Summary, c.answer, req.Failed.Source), InAnswer(pr.Detail, c.answer, req.Failed.Source)
	}
	reply, err := p.Prompts.Fix(d)
	if err != nil {
		return nil, err
	}
	next := c.then(c.answer, reply)
	if c.legacy != nil {
		// Before, the problem was appended to the first prompt, in the
		// code block's lines.
		lg, err := g.LegacyGame()
		if err != nil {
			return nil, err
		}
		para, err := p.Prompts.Fix(prompts.FixData{Game: lg, Kind: pr.Kind, Summary: pr.Summary, Error: pr.Detail,
			Attempt: req.Attempt, MaxAttempts: MaxAttempts})
		if err != nil {
			return nil, err
		}
		next.legacy = &legacyRequest{system: c.legacy.system, prompt: c.legacy.prompt + para}
	}
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
			// An invasion's reward is its invaders' (agents 0…K−1).
			returns := r.Returns
			if e.Against != "" && e.K > 0 && e.K <= len(returns) {
				returns = returns[:e.K]
			}
			var tot float64
			for _, x := range returns {
				tot += x
			}
			sum += tot / float64(len(returns))
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
