package llm

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// ErrNotAdmitted: a Gate did not let a call be sent (a run's budget
// cannot afford it). Nothing was sent, nothing is recorded.
var ErrNotAdmitted = errors.New("call not admitted")

// Why a call's worst case cannot be known, so that no cost budget can
// hold it (Client.Budgetable).
var (
	ErrUnpriced  = errors.New("no price for the model")
	ErrUnbounded = errors.New("no bound on the answer's length")
	ErrNoUsage   = errors.New("no token counts reported")
)

// Admission is a call as a Gate is asked about it before it is sent: what
// it may cost at worst.
type Admission struct {
	Provider, Model, Purpose string
	// InputTokens bounds the request's tokens: its size in bytes (no
	// tokenizer makes more tokens than bytes) plus an allowance per
	// message for the chat format.
	InputTokens int
	// OutputTokens bounds the answer, reasoning included: the max tokens
	// sent, or the model's largest output; 0 when unknown (Bounded false).
	OutputTokens int
	Bounded      bool
	// Cost is the worst case in US dollars: InputTokens and OutputTokens
	// at the model's price. Meaningful when Priced and Bounded (a model
	// that costs nothing costs nothing however long its answer).
	Cost   float64
	Priced bool
}

// A Gate admits calls before they are sent: a run's budgets. Admit is
// called for every call that would be sent (not for answers found in the
// ledger) and returns the function to call once the call is over and
// recorded; it may block. It refuses with an error wrapping
// ErrNotAdmitted when a budget cannot afford the call, and with another
// error when it cannot tell (the budget could not be read), which the
// caller must take for a failure.
//
// Implementations must be safe for concurrent use.
type Gate interface {
	Admit(ctx context.Context, a Admission) (release func(), err error)
}

// perMessage is the allowance, in tokens, for the chat format around one
// message (role markers and the like).
const perMessage = 16

// maxOutputs is the largest answer, in tokens, of the OpenAI and Google
// models we know (Anthropic's are in anthropicModels), by prefix: the
// worst case of a call that sends no max tokens.
var maxOutputs = []struct {
	name string
	max  int
}{
	{"openai:gpt-5", 128000},
	{"openai:gpt-4.1", 32768},
	{"openai:gpt-4o", 16384},
	{"openai:o1", 100000},
	{"openai:o3", 100000},
	{"openai:o4", 100000},
	{"google:gemini-2.5", 65536},
	{"google:gemini-3", 65536},
}

// maxOutput is the largest answer of provider's model, if known.
func maxOutput(provider, model string) (int, bool) {
	if provider == Anthropic {
		return lookupAnthropic(model).maxOutput, true
	}
	name, best, n := provider+":"+model, "", 0
	for _, m := range maxOutputs {
		if strings.HasPrefix(name, m.name) && len(m.name) > len(best) {
			best, n = m.name, m.max
		}
	}
	return n, best != ""
}

// Worst is what r may cost at worst with this Client's model, settings and
// prices.
func (c *Client) Worst(r Request) Admission {
	a := Admission{Provider: c.provider, Model: c.model, Purpose: r.Purpose}
	a.InputTokens = len(r.System) + len(r.Prompt) + 2*perMessage
	for _, t := range r.Turns {
		a.InputTokens += len(t.Text) + perMessage
	}
	switch {
	case c.settings.MaxTokens > 0:
		a.OutputTokens, a.Bounded = c.settings.MaxTokens, true
	default:
		a.OutputTokens, a.Bounded = maxOutput(c.provider, c.model)
	}
	price, ok := c.cfg.Prices.Lookup(c.provider, c.model)
	a.Priced = ok && c.provider != Exec
	if a.Priced {
		a.Cost = price.Cost(Usage{InputTokens: a.InputTokens, OutputTokens: a.OutputTokens})
		if price.Output == 0 && price.Input == 0 {
			a.Bounded = true // free however long
		}
	}
	return a
}

// Budgetable reports why a cost budget could not hold this Client's calls
// (nil when it can): the model has no price (ErrUnpriced), its answers
// have no known bound and no max tokens is set (ErrUnbounded), or it is a
// command that reports no token counts (ErrNoUsage).
func (c *Client) Budgetable() error {
	switch a := c.Worst(Request{}); {
	case c.provider == Exec:
		return fmt.Errorf("%s: %w: a command's calls cannot be priced", c.Name(), ErrNoUsage)
	case !a.Priced:
		return fmt.Errorf("%s: %w", c.Name(), ErrUnpriced)
	case !a.Bounded:
		return fmt.Errorf("%s: %w: the largest answer of this model is not known", c.Name(), ErrUnbounded)
	}
	return nil
}
