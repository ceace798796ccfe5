package store

import "fmt"

// Add adds u2 to u.
func (u *RunUsage) Add(u2 RunUsage) {
	u.Proposals += u2.Proposals
	u.LLMCalls += u2.LLMCalls
	u.InputTokens += u2.InputTokens
	u.OutputTokens += u2.OutputTokens
	u.ReasoningTokens += u2.ReasoningTokens
	u.Cost += u2.Cost
	u.UnpricedCalls += u2.UnpricedCalls
	u.Episodes += u2.Episodes
	u.WallSeconds += u2.WallSeconds
}

// CostWords is what a run's LLM calls cost, saying how many had no price:
// their cost is unknown, not zero.
func (u RunUsage) CostWords() string {
	s := fmt.Sprintf("$%.4f", u.Cost)
	switch {
	case u.UnpricedCalls > 0 && u.UnpricedCalls == u.LLMCalls:
		s = "cost unknown (no price for the model)"
	case u.UnpricedCalls > 0:
		calls := "calls"
		if u.UnpricedCalls == 1 {
			calls = "call" // store is a leaf: no internal/plural here
		}
		s += fmt.Sprintf(" + %d %s of unknown cost", u.UnpricedCalls, calls)
	}
	return s
}

// CostShort is CostWords for a table's column: "$0.420", "?" when no
// call had a price, "$0.100+?" when some had none.
func (u RunUsage) CostShort() string {
	switch {
	case u.UnpricedCalls > 0 && u.UnpricedCalls == u.LLMCalls:
		return "?"
	case u.UnpricedCalls > 0:
		return fmt.Sprintf("$%.3f+?", u.Cost)
	}
	return fmt.Sprintf("$%.3f", u.Cost)
}

// Candidate returns the record of the iteration's candidate sample, or
// nil when it has none yet.
func (it *Iteration) Candidate(sample int) *Candidate {
	for i := range it.Candidates {
		if it.Candidates[i].Sample == sample {
			return &it.Candidates[i]
		}
	}
	return nil
}

// SetCandidate records the candidate c, replacing the record of the same
// sample if there is one.
func (it *Iteration) SetCandidate(c Candidate) {
	if old := it.Candidate(c.Sample); old != nil {
		*old = c
		return
	}
	it.Candidates = append(it.Candidates, c)
}
