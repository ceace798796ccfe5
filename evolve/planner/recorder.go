package planner

import (
	"context"
	"errors"

	"policyevolve/llm"
	"policyevolve/store"
)

// LLMRecorder is the ledger of LLM calls in the store: every call becomes
// an LLMCall record, written in its own short transaction before the
// answer is used, and a successful call is found again by its run and
// request key, so that a resumed run pays for no request twice.
type LLMRecorder struct {
	Store *store.Store
	// Run scopes the answers found again: only calls of the same run are
	// reused ("" is the scope of calls made outside a run).
	Run string
}

var _ llm.Recorder = (*LLMRecorder)(nil)

// Lookup returns the call recorded in the run with this key, or nil.
func (r *LLMRecorder) Lookup(_ context.Context, key string) (*llm.Call, error) {
	var c *store.LLMCall
	err := r.Store.View(func(tx *store.Tx) (err error) {
		c, err = tx.LLMCallByKey(r.Run, key)
		return err
	})
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var turns []llm.Turn
	for _, t := range c.Turns {
		turns = append(turns, llm.Turn{Role: t.Role, Text: t.Text})
	}
	return &llm.Call{ID: c.ID, Key: c.Key, Provider: c.Provider, Model: c.Model, BaseURL: c.BaseURL,
		Settings: llm.Settings{Temperature: c.Temperature, MaxTokens: c.MaxTokens, Reasoning: c.Reasoning},
		Request:  llm.Request{System: c.System, Prompt: c.Prompt, Turns: turns, Sample: c.Sample, Purpose: c.Purpose},
		Answer:   c.Answer, Thinking: c.Thinking, Latency: c.Latency, Attempts: c.Attempts, Err: c.Error,
		Usage: llm.Usage{InputTokens: c.TokensIn, OutputTokens: c.TokensOut, ReasoningTokens: c.TokensReasoning,
			Cost: c.Cost, Priced: !c.Unpriced}}, nil
}

// Record stores the call and sets its id.
func (r *LLMRecorder) Record(_ context.Context, c *llm.Call) error {
	rec := &store.LLMCall{Run: r.Run, Provider: c.Provider, Model: c.Model, Prompt: c.Request.Prompt,
		Answer: c.Answer, TokensIn: c.Usage.InputTokens, TokensOut: c.Usage.OutputTokens, Cost: c.Usage.Cost,
		Latency: c.Latency, Error: c.Err, Key: c.Key, BaseURL: c.BaseURL, System: c.Request.System,
		Sample: c.Request.Sample, Purpose: c.Request.Purpose, Temperature: c.Settings.Temperature,
		MaxTokens: c.Settings.MaxTokens, Reasoning: c.Settings.Reasoning, Thinking: c.Thinking,
		TokensReasoning: c.Usage.ReasoningTokens, Attempts: c.Attempts, Unpriced: !c.Usage.Priced}
	for _, t := range c.Request.Turns {
		rec.Turns = append(rec.Turns, store.LLMTurn{Role: t.Role, Text: t.Text})
	}
	err := r.Store.Update(func(tx *store.Tx) error { return tx.AddLLMCall(rec) })
	c.ID = rec.ID
	return err
}
