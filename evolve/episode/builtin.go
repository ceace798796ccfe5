package episode

import (
	"fmt"
	"sync"

	"policyevolve/baselines/qlearn"
	"policyevolve/envs"
	"policyevolve/store"
)

// QLearnBuiltin is the Builtin marker of a stored Q-table: the policy's
// Source is the table's file (as "policyevolve qlearn train" writes it),
// so that its id is the table's content address, and it plays in-process,
// greedily, as trusted data.
const QLearnBuiltin = "qlearn"

// Baselines are the built-in policies every global pool starts with.
var Baselines = []string{"bfs", "exploit", "coop", "random"}

// BuiltinSource is the stored "source" of a built-in baseline: a marker,
// not Go; built-ins run in-process, as trusted code.
func BuiltinSource(name string) string { return "// policyevolve built-in policy: " + name + "\n" }

// BuiltinActor returns the in-process actor of a stored built-in: a named
// policy of envs, or a Q-table.
func BuiltinActor(p *store.Policy) (envs.Actor, error) {
	if p.Builtin == QLearnBuiltin {
		t, err := storedTable(p)
		if err != nil {
			return nil, err
		}
		return qlearn.NewActor(t), nil
	}
	f, err := envs.Builtin(p.Builtin)
	if err != nil {
		return nil, err
	}
	return &envs.PolicyActor{New: f}, nil
}

// tables memoises parsed stored Q-tables by policy id. Parsing a paper-size
// table costs about an episode's time, and every episode of a match needs
// the table; an id names one content forever and a parsed Table is only
// read by its Actors, so entries never go stale. The cache grows with the
// number of distinct tables played in this process, a handful.
var tables sync.Map // policy id -> *qlearn.Table

func storedTable(p *store.Policy) (*qlearn.Table, error) {
	if t, ok := tables.Load(p.ID); ok {
		return t.(*qlearn.Table), nil
	}
	t, err := qlearn.Parse([]byte(p.Source))
	if err != nil {
		return nil, fmt.Errorf("policy %.12s: %w", p.ID, err)
	}
	tables.Store(p.ID, t)
	return t, nil
}

// QLearnPolicy returns the store record of a trained table: its canonical
// file as the source, so that the same table always has the same id.
func QLearnPolicy(t *qlearn.Table, name string) (*store.Policy, error) {
	data, err := t.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("q-table: %w", err)
	}
	return &store.Policy{Source: string(data), Name: name, Builtin: QLearnBuiltin,
		Origin: store.Origin{Operator: "import", Planner: "qlearn"}}, nil
}
