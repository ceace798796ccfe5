package evolve

import (
	"encoding/json"
	"strings"
	"testing"

	"policyevolve/pool"
)

// TestJobConfigObjective: a new run's objective defaults to welfare and is
// stored; one stored without it is elo; an unknown one does not validate.
func TestJobConfigObjective(t *testing.T) {
	c := JobConfig{Planners: []string{"grammar"}}.WithDefaults()
	if c.Objective != pool.Welfare {
		t.Fatalf("default objective %q", c.Objective)
	}
	for _, o := range []pool.Objective{pool.Welfare, pool.Elo} {
		c.Objective = o
		b, _ := json.Marshal(c)
		var back JobConfig
		if err := json.Unmarshal(b, &back); err != nil || back.Objective != o {
			t.Errorf("%s stored as %s, read back as %q (%v)", o, b, back.Objective, err)
		}
	}
	var old JobConfig
	if err := json.Unmarshal([]byte(`{"mode":"population","game":"cleanup"}`), &old); err != nil || old.Objective != pool.Elo {
		t.Errorf("a configuration without an objective reads as %q (%v)", old.Objective, err)
	}
	c.Objective = "kindness"
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "want welfare or elo") {
		t.Errorf("unknown objective: %v", err)
	}
}
