package arena

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"policyevolve/critic"
	"policyevolve/envs"
	"policyevolve/envs/ssd"
)

// TestCritiqueRecord: the stored record carries the level, the report and
// diagnostics that read back as they were.
func TestCritiqueRecord(t *testing.T) {
	m, err := envs.BuiltinMap(ssd.Gathering, "small")
	if err != nil {
		t.Fatal(err)
	}
	env, err := envs.New(envs.Config{Map: m, Agents: 2, MaxSteps: 100})
	if err != nil {
		t.Fatal(err)
	}
	f, _ := envs.Builtin("exploit")
	res, err := envs.Run(context.Background(), env, []envs.Seat{{Actor: &envs.PolicyActor{New: f}, Agents: []int{0, 1}}}, envs.Options{Record: true})
	if err != nil {
		t.Fatal(err)
	}
	d, err := critic.Diagnose([]critic.Episode{{Trajectory: res.Trajectory}}, critic.Config{})
	if err != nil {
		t.Fatal(err)
	}
	rep := &critic.Report{Reflections: []critic.Reflection{{Code: "idle", Text: "Move.", Stake: 2}}, By: "analytic", Fallback: "the LLM call failed"}
	c, err := CritiqueRecord("abc", ReflectLevel, d, rep)
	if err != nil {
		t.Fatal(err)
	}
	if c.Policy != "abc" || c.Level != "critic" || c.Source != "analytic" || c.Fallback != rep.Fallback ||
		len(c.Reflections) != 1 || c.Reflections[0].Text != "Move." || c.Text == "" {
		t.Fatalf("record %+v", c)
	}
	var back critic.Diagnostics
	if err := json.Unmarshal(c.Diagnostics, &back); err != nil || !reflect.DeepEqual(&back, d) {
		t.Fatalf("diagnostics read back as %+v (%v), want %+v", back, err, d)
	}
}
