package experiment

import (
	"testing"

	"policyevolve/evolve"
	"policyevolve/pool"
)

// TestPoolTag: a run's pool tag names its comparison, method and run, and
// reads back; other tags do not read as a comparison's.
func TestPoolTag(t *testing.T) {
	for _, m := range []string{"chain", "chain-critic", "chain-react", "population", "gepa", "gepa-dense"} {
		id, method, run, ok := ParseTag(PoolTag("cmp-62580937", m, 3))
		if !ok || id != "cmp-62580937" || method != m || run != 3 {
			t.Errorf("%s: read back as %q %q %d %v", m, id, method, run, ok)
		}
	}
	for _, tag := range []string{"", "mine", "cmp-62580937", "cmp-xyz-chain-0", "cmp-62580937-chain-", "cmp-62580937-zero-shot-extra-0"} {
		if id, _, _, ok := ParseTag(tag); ok {
			t.Errorf("%q reads as comparison %s", tag, id)
		}
	}
}

// TestIDUnderObjectives: a comparison under elo keeps the id it had before
// runs chose an objective (so a comparison stored then is found again
// with --objective elo); another objective is another comparison.
func TestIDUnderObjectives(t *testing.T) {
	base := evolve.JobConfig{Game: "gathering", Map: "small", Agents: 4, Steps: 100, Planners: []string{"grammar"}, MaxPlannerCalls: 3}
	before := ID(base, 2, 1) // no objective: as every comparison was hashed before
	eloCfg, welfareCfg := base, base
	eloCfg.Objective, welfareCfg.Objective = pool.Elo, pool.Welfare
	if got := ID(eloCfg, 2, 1); got != before {
		t.Errorf("under elo the id is %s, not the old %s", got, before)
	}
	if got := ID(welfareCfg, 2, 1); got == before {
		t.Errorf("under welfare the id is the elo comparison's %s", got)
	}
}
