package evolve

import (
	"context"
	"fmt"
	"sync"

	"policyevolve/llm"
	"policyevolve/store"
)

// gate admits the run's LLM calls against its cost and token budgets
// (llm.Gate), call by call: a call is sent only when its worst case (its
// max tokens at the model's price, and the request's size) fits in what
// the budget has left once the calls in flight are counted at their
// worst. So the run stays within its budget as long as providers bill no
// more than the max tokens they are sent; were a bill above the worst
// case (a price table below the provider's), the run would pass its
// budget by at most that difference, and the next call would be refused.
//
// A call refused for the budget records the budget as why the run stops
// and fails with an error wrapping llm.ErrNotAdmitted: the request ends
// there, nothing is sent. A usage that cannot be read, or a model whose
// worst case is unknown under a cost budget, fails the call with an error
// that stops the run.
type gate struct {
	j      *Job
	mu     sync.Mutex // guards cost and tokens
	cost   float64    // the worst cost of the calls in flight
	tokens int        // their worst tokens
}

var _ llm.Gate = (*gate)(nil)

// Admit implements llm.Gate.
func (g *gate) Admit(_ context.Context, a llm.Admission) (func(), error) {
	c := g.j.Config
	if c.MaxCost <= 0 && c.MaxTokens <= 0 {
		return func() {}, nil
	}
	if c.MaxCost > 0 && (!a.Priced || !a.Bounded) {
		why := "it has no price"
		if a.Priced {
			why = "its answers have no known bound: set its max tokens"
		}
		return nil, fmt.Errorf("the cost budget ($%.2f) cannot hold a call to %s:%s: %s", c.MaxCost, a.Provider, a.Model, why)
	}
	if err := g.j.refreshUsage(); err != nil {
		return nil, fmt.Errorf("check the budgets: %w", err)
	}
	g.j.mu.Lock()
	u := g.j.run.Usage
	g.j.mu.Unlock()
	worst := a.InputTokens + a.OutputTokens
	g.mu.Lock()
	defer g.mu.Unlock()
	var reason string
	switch left := c.MaxCost - u.Cost - g.cost; {
	case c.MaxCost > 0 && a.Cost > left:
		reason = fmt.Sprintf("cost budget reached ($%.2f): a %s call could cost up to $%.4f and $%.4f is left", c.MaxCost, a.Purpose, a.Cost, max(0, left))
	case c.MaxTokens > 0 && worst > c.MaxTokens-(u.InputTokens+u.OutputTokens)-g.tokens:
		reason = fmt.Sprintf("token budget reached (%d): a %s call could take up to %d tokens and %d are left", c.MaxTokens, a.Purpose, worst,
			max(0, c.MaxTokens-(u.InputTokens+u.OutputTokens)-g.tokens))
	}
	if reason != "" {
		g.j.mu.Lock()
		g.j.stopFor(store.StopBudget, reason)
		g.j.mu.Unlock()
		return nil, fmt.Errorf("%w: %s", llm.ErrNotAdmitted, reason)
	}
	g.cost += a.Cost
	g.tokens += worst
	var once sync.Once
	return func() {
		once.Do(func() {
			g.mu.Lock()
			g.cost -= a.Cost
			g.tokens -= worst
			g.mu.Unlock()
		})
	}, nil
}
