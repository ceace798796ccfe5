package arena

import (
	"encoding/json"
	"fmt"
	"strings"

	"policyevolve/critic"
	"policyevolve/store"
)

// CritiqueRecord turns a critic's diagnostics and report on a policy into
// the store's record, with the feedback level it was made for and the run
// and episodes it concerns (Run, Iteration, Env, Seeds and Opponents are
// the caller's to set). Text holds the reflections as a planner is shown
// them.
func CritiqueRecord(policy string, level string, d *critic.Diagnostics, rep *critic.Report) (*store.Critique, error) {
	diag, err := json.Marshal(d)
	if err != nil {
		return nil, fmt.Errorf("critique of %.12s: %w", policy, err)
	}
	var text strings.Builder
	if err := critic.WriteReflections(&text, rep.Reflections); err != nil {
		return nil, err
	}
	c := &store.Critique{
		Policy: policy, Source: rep.By, Text: text.String(), Level: level,
		Diagnostics: diag, Fallback: rep.Fallback,
	}
	for _, r := range rep.Reflections {
		c.Reflections = append(c.Reflections, store.Reflection(r))
	}
	return c, nil
}
