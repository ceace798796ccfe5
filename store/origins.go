package store

import "fmt"

// CandidateOrigins reads how the policies of iterations' candidates were
// made, by policy id: what runs show and the report describe them by
// (Origin.How), as pool show does.
func (tx *Tx) CandidateOrigins(its []Iteration) (map[string]Origin, error) {
	out := map[string]Origin{}
	for _, it := range its {
		for _, c := range it.Candidates {
			if c.Policy == "" {
				continue
			}
			p, err := tx.Policy(c.Policy)
			if err != nil {
				return nil, fmt.Errorf("candidate %.12s: %w", c.Policy, err)
			}
			out[c.Policy] = p.Origin
		}
	}
	return out, nil
}
