package store

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
