package evolve

import (
	"testing"

	"policyevolve/evolve/arena"
	"policyevolve/evolve/planner"
)

// TestReflectLevel: the arena stores and finds again its critiques under
// the feedback level at which planners are shown them.
func TestReflectLevel(t *testing.T) {
	if arena.ReflectLevel != string(planner.Critic) {
		t.Fatalf("arena.ReflectLevel %q, planner.Critic %q", arena.ReflectLevel, planner.Critic)
	}
}
