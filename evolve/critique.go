package evolve

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"policyevolve/critic"
	"policyevolve/llm"
	"policyevolve/store"
)

// CritiqueRecord turns a critic's diagnostics and report on a policy into
// the store's record, with the feedback level it was made for and the run
// and episodes it concerns (Run, Iteration, Env, Seeds and Opponents are
// the caller's to set). Text holds the reflections as a planner is shown
// them.
func CritiqueRecord(policy string, level Feedback, d *critic.Diagnostics, rep *critic.Report) (*store.Critique, error) {
	diag, err := json.Marshal(d)
	if err != nil {
		return nil, fmt.Errorf("critique of %.12s: %w", policy, err)
	}
	var text strings.Builder
	if err := critic.WriteReflections(&text, rep.Reflections); err != nil {
		return nil, err
	}
	c := &store.Critique{
		Policy: policy, Source: rep.By, Text: text.String(), Level: string(level),
		Diagnostics: diag, Fallback: rep.Fallback,
	}
	for _, r := range rep.Reflections {
		c.Reflections = append(c.Reflections, store.Reflection(r))
	}
	return c, nil
}

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
