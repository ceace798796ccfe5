package arena

import "policyevolve/store"

// scoredBy is the backend that runs the source policies among ids, to
// record with their evaluation or match: "" when all are built-in (no
// backend plays them) or the arena has no sandbox.
func (a *Arena) scoredBy(ids ...string) string {
	if a.Sandbox == nil {
		return ""
	}
	source := false
	_ = a.Store.View(func(tx *store.Tx) error {
		for _, id := range ids {
			if p, err := tx.Policy(id); err == nil && p.Builtin == "" && p.Source != "" {
				source = true
			}
		}
		return nil
	})
	if !source {
		return ""
	}
	return string(a.Sandbox.Backend())
}
