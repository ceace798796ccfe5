package planner

import (
	"context"

	"policyevolve/critic"
	"policyevolve/llm"
)

// CriticModel lets the LLM critic ask a model through the llm package:
// every critique is one call, recorded in the ledger like a planner's
// (purpose "critic").
type CriticModel struct {
	Client *llm.Client
	// Sample tells apart critiques of the same diagnostics in one run.
	Sample int
}

var _ critic.Model = CriticModel{}

// Generate asks the model.
func (m CriticModel) Generate(ctx context.Context, system, user string) (string, error) {
	r, err := m.Client.Generate(ctx, llm.Request{System: system, Prompt: user, Sample: m.Sample, Purpose: "critic"})
	if err != nil {
		return "", err
	}
	return r.Text, nil
}
