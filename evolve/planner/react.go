package planner

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"policyevolve/evolve/planner/prompts"
	"policyevolve/llm"
)

// DefaultReactTurns is how many drafts a ReAct proposal may test before
// its final answer.
const DefaultReactTurns = 2

// playAction matches the line by which a ReAct answer asks to test its
// draft: "Action: play", in any case, markdown emphasis allowed.
var playAction = regexp.MustCompile(`(?im)^[\s*_#>-]*action[\s*_]*:[\s*_]*play\b`)

// react is ask in the ReAct style (PolicyEvolve's baseline): reason–act
// turns in which the model may test a draft with the task's Try tool and
// read its scores before it answers. Each turn is one LLM request and one
// planner call; the turns stop at the planner's limit, at the run's
// budget (Task.CallsLeft, one call kept for the answer) or when the model
// answers without asking to play. The transcript grows in the last user
// message: turn, observation, turn…
func (p *LLMPlanner) react(ctx context.Context, t Task, c *conversation, purpose string) (*Proposal, error) {
	limit := p.ReactTurns
	if limit <= 0 {
		limit = DefaultReactTurns
	}
	var usage Usage
	var transcript strings.Builder
	calls, tested := 0, 0
	for {
		left := limit - tested
		if t.CallsLeft > 0 {
			left = min(left, t.CallsLeft-calls-1)
		}
		if t.Try == nil {
			left = 0
		}
		left = max(left, 0)
		turn, err := p.Prompts.React(prompts.ReactData{Turn: tested + 1, Left: left})
		if err != nil {
			return nil, err
		}
		resp, err := p.generate(ctx, t, c, transcript.String()+turn, purpose)
		calls++
		var ae *llm.APIError
		if errors.As(err, &ae) && errors.Is(err, llm.ErrEmptyAnswer) {
			usage.Add(Usage{LLMCalls: 1})
			return &Proposal{Problem: fmt.Errorf("%w: the answer was empty", ErrNoPolicy), State: c.withTranscript(transcript.String(), ""),
				Usage: usage, Calls: calls, Origin: p.origin(t, c, 0)}, nil
		}
		if err != nil {
			return nil, err
		}
		usage.Add(usageOf(resp))
		if left > 0 && playAction.MatchString(resp.Text) {
			obs := "your answer asked to play but holds no ```go code block: nothing was played."
			if src, _, err := Extract(resp.Text); err == nil {
				obs = t.Try(ctx, src)
			}
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			tested++
			fmt.Fprintf(&transcript, "\n\n## Turn %d (yours)\n\n%s\n\n## Observation %d\n\n%s", tested, strings.TrimSpace(resp.Text), tested, obs)
			continue
		}
		// The answer. Fix goes on from the conversation with the
		// transcript.
		next := c.withTranscript(transcript.String(), resp.Text)
		return withAnswer(&Proposal{State: next, Origin: p.origin(t, c, resp.CallID), Usage: usage, Calls: calls}, resp.Text), nil
	}
}

// withTranscript is the conversation with a ReAct transcript appended to
// its last user message, and the model's final answer.
func (c *conversation) withTranscript(transcript, answer string) *conversation {
	r := c.request(transcript, 0, "")
	next := &conversation{system: c.system, prompt: r.Prompt, turns: r.Turns, answer: answer, operator: c.operator, parents: c.parents}
	if c.legacy != nil {
		next.legacy = &legacyRequest{system: c.legacy.system, prompt: c.legacy.prompt + transcript}
	}
	return next
}
