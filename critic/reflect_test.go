package critic_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"policyevolve/critic"
	"policyevolve/envs"
	"policyevolve/envs/ssd"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// checkGolden compares got with testdata/name, or rewrites it with -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./critic -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test ./critic -update rewrites it); got:\n%s", path, got)
	}
}

// selfPlay records the built-in policy on the paper's map, 10 agents,
// 1000 steps, seeds 0-2.
func selfPlay(t *testing.T, game ssd.Game, policy string) []critic.Episode {
	t.Helper()
	env := paperEnv(t, game, envs.DefaultAgents)
	var eps []critic.Episode
	for seed := range uint64(3) {
		eps = append(eps, critic.Episode{Trajectory: play(t, env, seed, make([]int, envs.DefaultAgents), builtin(t, policy))})
	}
	return eps
}

// render is what the critique command prints: the reflections, then the
// diagnostics table.
func render(t *testing.T, d *critic.Diagnostics, refl []critic.Reflection) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := critic.WriteReflections(&b, refl); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(&b)
	if err := d.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestReflectionGolden pins the diagnostics and reflections of every
// built-in policy in both games (the examples' sources play the same
// episodes: the cmd tests compare them with these files).
func TestReflectionGolden(t *testing.T) {
	for _, game := range []ssd.Game{ssd.Gathering, ssd.Cleanup} {
		for _, policy := range envs.BuiltinPolicies() {
			t.Run(game.String()+"_"+policy, func(t *testing.T) {
				t.Parallel()
				d := diagnose(t, selfPlay(t, game, policy)...)
				refl := critic.Analytic{}.Reflect(d)
				checkRanked(t, refl, critic.DefaultMax)
				checkGolden(t, filepath.Join("critique", game.String()+"_"+policy+".golden"), render(t, d, refl))
			})
		}
	}
}

// checkRanked: at most max reflections, by stake, largest first, each with
// a code, a text and a positive stake.
func checkRanked(t *testing.T, refl []critic.Reflection, max int) {
	t.Helper()
	if len(refl) > max {
		t.Errorf("%d reflections, want at most %d", len(refl), max)
	}
	for i, r := range refl {
		if r.Code == "" || r.Text == "" || r.Stake <= 0 {
			t.Errorf("reflection %d incomplete: %+v", i, r)
		}
		if i > 0 && r.Stake > refl[i-1].Stake {
			t.Errorf("reflection %d (stake %v) ranked below a smaller stake %v", i, r.Stake, refl[i-1].Stake)
		}
	}
}

// TestReflectDeterministic: the same episodes give byte-identical
// diagnostics and reflections; Max bounds the list.
func TestReflectDeterministic(t *testing.T) {
	eps := selfPlay(t, ssd.Cleanup, "random")
	a, b := diagnose(t, eps...), diagnose(t, eps...)
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if !bytes.Equal(ja, jb) {
		t.Fatal("two diagnoses of the same episodes differ")
	}
	ra, rb := critic.Analytic{}.Reflect(a), critic.Analytic{}.Reflect(b)
	if fmt.Sprint(ra) != fmt.Sprint(rb) {
		t.Fatal("two reflections on the same diagnostics differ")
	}
	if len(ra) < 3 {
		t.Fatalf("random Cleanup play gave only %d reflections: %+v", len(ra), ra)
	}
	two := critic.Analytic{Max: 2}.Reflect(a)
	if len(two) != 2 || fmt.Sprint(two) != fmt.Sprint(ra[:2]) {
		t.Errorf("Max 2 kept %+v, want the first two of %+v", two, ra)
	}
	// Diagnostics survive JSON: what the store keeps reflects the same.
	var back critic.Diagnostics
	if err := json.Unmarshal(ja, &back); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(critic.Analytic{}.Reflect(&back)) != fmt.Sprint(ra) {
		t.Error("diagnostics read back from JSON reflect differently")
	}
}
