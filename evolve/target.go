package evolve

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"policyevolve/envs"
	"policyevolve/evolve/episode"
	"policyevolve/store"
)

// ErrUnknownTarget: the exploit objective's --against names no built-in
// and no stored policy.
var ErrUnknownTarget = errors.New("unknown policy")

// ResolveTarget reads the exploit objective's target: a built-in's name
// (stored, as the baselines are, so that it has an id) or a unique prefix
// of a stored policy's id. It returns the policy's full id.
func ResolveTarget(st *store.Store, name string) (string, error) {
	var id string
	err := st.Update(func(tx *store.Tx) error {
		if slices.Contains(envs.BuiltinPolicies(), name) {
			p := &store.Policy{Source: episode.BuiltinSource(name), Name: name, Builtin: name, Origin: store.Origin{Operator: "builtin"}}
			if _, err := tx.PutPolicy(p); err != nil {
				return err
			}
			id = p.ID
			return nil
		}
		var err error
		if id, err = tx.ResolvePolicy(name); err != nil {
			return fmt.Errorf("--against %s: %w: neither a built-in (%s) nor a stored policy's id (%v)",
				name, ErrUnknownTarget, strings.Join(envs.BuiltinPolicies(), ", "), err)
		}
		return nil
	})
	return id, err
}
