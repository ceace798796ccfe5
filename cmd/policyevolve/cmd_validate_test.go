package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestValidateCommand(t *testing.T) {
	example := filepath.Join("..", "..", "examples", "policies", "bfs.go")
	for _, be := range testBackends() {
		code, out, errOut := runCLI(t, context.Background(), "validate", example, "--game", "cleanup", "--backend", be)
		if code != 0 || !strings.HasPrefix(out, "OK "+example) || !strings.Contains(out, "("+be+")") {
			t.Fatalf("%s: exit %d, out %q, err %q", be, code, out, errOut)
		}
	}
	// With a toolchain, the other backend plays the smoke test too.
	if !raceEnabled {
		code, out, errOut := runCLI(t, context.Background(), "validate", example, "--verbose")
		// How many steps depends on the machine's speed (the interpreter
		// plays within its CPU time): at least one.
		if code != 0 || !regexp.MustCompile(`backends compared: native and yaegi, on [1-9][0-9]* steps\n`).MatchString(out) ||
			!regexp.MustCompile(`and the yaegi backend chose the same actions on [1-9][0-9]* of 1000 steps`).MatchString(out) {
			t.Fatalf("--verbose: exit %d, out %q, err %q", code, out, errOut)
		}
	}
	bad := writeFile(t, "bad.go", "package policy\n\nimport \"os\"\n\nfunc Policy() {}\n")
	code, _, errOut := runCLI(t, context.Background(), "validate", bad)
	if code != 1 || !strings.Contains(errOut, bad+`:3:8: import "os" is not allowed`) {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	random := writeFile(t, "random.go", `package policy

import "ssd"

func Policy(v *ssd.View, agent int) int {
	for a := range map[int]bool{ssd.Forward: true, ssd.Backward: true, ssd.StepLeft: true, ssd.StepRight: true} {
		return a
	}
	return ssd.Stand
}
`)
	code, _, errOut = runCLI(t, context.Background(), "validate", "--game", "gathering", random)
	if code != 1 || !strings.Contains(errOut, "policy is not deterministic (step 0, agent") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	for _, args := range [][]string{{"validate"}, {"validate", "a.go", "b.go"}, {"validate", "nope.go"}, {"validate", example, "--backend", "jit"}} {
		if code, _, _ := runCLI(t, context.Background(), args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}

func TestPlaySourcePolicy(t *testing.T) {
	example := filepath.Join("..", "..", "examples", "policies", "exploit.go")
	var reports []playReport
	for _, be := range testBackends() {
		code, out, errOut := runCLI(t, context.Background(), "play", "--policy", example, "--backend", be,
			"--map", "small", "--agents", "2", "--seeds", "0-1", "--json")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", be, code, errOut)
		}
		var rep playReport
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatal(err)
		}
		reports = append(reports, rep)
	}
	// Both backends, and the built-in the example reimplements, agree.
	_, out, _ := runCLI(t, context.Background(), "play", "--policy", "exploit", "--map", "small", "--agents", "2", "--seeds", "0-1", "--json")
	var builtin playReport
	json.Unmarshal([]byte(out), &builtin)
	for _, rep := range reports {
		for k := range rep.Episodes {
			if rep.Episodes[k].Metrics != builtin.Episodes[k].Metrics {
				t.Fatalf("source %+v vs built-in %+v", rep.Episodes[k], builtin.Episodes[k])
			}
		}
	}

	failing := writeFile(t, "fail.go", "package policy\n\nimport \"ssd\"\n\nfunc Policy(v *ssd.View, agent int) int {\n\tif v.Step() == 5 {\n\t\treturn 42\n\t}\n\treturn ssd.Stand\n}\n")
	code, out, errOut := runCLI(t, context.Background(), "play", "--policy", failing, "--map", "small", "--agents", "2", "--seeds", "3")
	if code != 1 || !strings.Contains(out, "failed after 5 steps: invalid action at step 5 (agent 0): returned 42") ||
		!strings.Contains(errOut, "the policy failed on every seed") {
		t.Fatalf("exit %d\nout %s\nerr %s", code, out, errOut)
	}
	// As JSON too: each failed episode with its error, no mean.
	code, out, errOut = runCLI(t, context.Background(), "play", "--policy", failing, "--map", "small", "--agents", "2", "--seeds", "3-4", "--json")
	var rep playReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 1 {
		t.Fatalf("--json: exit %d, %v\nout %s\nerr %s", code, err, out, errOut)
	}
	if len(rep.Episodes) != 2 || rep.Mean != nil || !strings.Contains(errOut, "the policy failed on every seed: invalid action at step 5") {
		t.Fatalf("--json: %+v\nerr %s", rep, errOut)
	}
	for _, e := range rep.Episodes {
		if !strings.HasPrefix(e.Error, "invalid action at step 5 (agent 0): returned 42") || e.Steps != 5 {
			t.Errorf("--json: episode %+v", e)
		}
	}
}

// testBackends are the sandbox backends the CLI tests use: under the race
// detector, the yaegi worker (this instrumented test binary) cannot start
// within a worker's address-space limit.
func testBackends() []string {
	if raceEnabled {
		return []string{"native"}
	}
	return []string{"native", "yaegi"}
}
