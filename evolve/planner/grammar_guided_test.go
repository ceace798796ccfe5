package planner

import (
	"context"
	"strings"
	"testing"

	"policyevolve/critic"
	"policyevolve/evolve/episode"
)

// TestGrammarReflect: at the critic level the offline reflector follows
// the diagnostics; at the sparse level it changes the guidance at random,
// the same way for the same task, and says so.
func TestGrammarReflect(t *testing.T) {
	env, err := episode.ResolveEnv("cleanup", "small", 4, 100)
	if err != nil {
		t.Fatal(err)
	}
	p := &GrammarPlanner{}
	task := Task{Env: env, Seed: 5, Feedback: Critic}
	starved := &critic.Diagnostics{Cleanup: &critic.Cleanup{AtThreshold: 0.7, Threshold: 0.4}}
	r, err := p.Reflect(context.Background(), ReflectRequest{Task: task, Guidance: "aggression: never", Diagnostics: starved})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.Guidance, "aggression: never") || !strings.Contains(r.Guidance, "cleaning: fixed, adaptive") ||
		!strings.Contains(r.Guidance, "cleaning.Cleaners") || !strings.Contains(r.Notes, "diagnostics") {
		t.Errorf("critic reflection:\n%s\n%s", r.Guidance, r.Notes)
	}
	task.Feedback = Sparse
	a, err := p.Reflect(context.Background(), ReflectRequest{Task: task, Guidance: "aggression: never", Diagnostics: starved})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := p.Reflect(context.Background(), ReflectRequest{Task: task, Guidance: "aggression: never"})
	if a.Guidance == "aggression: never" || a.Guidance != b.Guidance || !strings.Contains(a.Notes, "at random") {
		t.Errorf("sparse reflections %q / %q (%s)", a.Guidance, b.Guidance, a.Notes)
	}
	if _, err := p.Guide("Be kind to the others."); err == nil || !strings.Contains(err.Error(), "not \"key: values\"") {
		t.Errorf("prose guidance for the grammar: %v", err)
	}
	// Guidance only one game reads is well formed: Gathering's cycle,
	// Cleanup's cleaners.
	for _, g := range []string{"harvest: cycle\nmore: harvest.Spacing", "more: cleaning.Cleaners"} {
		if _, err := p.Guide(g); err != nil {
			t.Errorf("guidance %q: %v", g, err)
		}
	}
}
