package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runCLI runs the command line in-process and returns the exit code and
// both outputs.
func runCLI(t *testing.T, ctx context.Context, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := dispatch(ctx, args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestPlayTable(t *testing.T) {
	code, out, errOut := runCLI(t, context.Background(), "play", "--game", "gathering", "--map", "small",
		"--agents", "2", "--policy", "bfs", "--seeds", "0-2")
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	// Seed 0 of the golden trace gathering_small_n2_bfs_s0: efficiency 0.49, returns 245 245.
	for _, want := range []string{"gathering on small, 2 agents, policy bfs, 1000 steps, 3 seeds",
		"efficiency", "sustainability", "0.4900", "245 245", "mean"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestPlayJSON(t *testing.T) {
	code, out, errOut := runCLI(t, context.Background(), "play", "--game", "cleanup", "--agents", "10",
		"--seeds", "0,2", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep playReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	if rep.Map != "default" || rep.Agents != 10 || len(rep.Episodes) != 2 || *rep.Episodes[1].Seed != 2 {
		t.Fatalf("report %+v", rep)
	}
	if len(rep.Episodes[0].Returns) != 10 || rep.Episodes[0].Metrics.Peace != 10 {
		t.Fatalf("episode %+v", rep.Episodes[0])
	}
	mean := (rep.Episodes[0].Metrics.Efficiency + rep.Episodes[1].Metrics.Efficiency) / 2
	if rep.Mean.Metrics.Efficiency != mean {
		t.Errorf("mean efficiency %v, want %v", rep.Mean.Metrics.Efficiency, mean)
	}
}

func TestPlayMapFile(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "arena.txt")
	os.WriteFile(good, []byte("@@@@@@\n@P.AA@\n@.AA.@\n@@@@@@\n"), 0o644)
	code, out, errOut := runCLI(t, context.Background(), "play", "--map", good, "--agents", "1", "--seeds", "1", "--steps", "50")
	if code != 0 || !strings.Contains(out, "gathering on "+good) {
		t.Fatalf("exit %d, stderr %q, out %q", code, errOut, out)
	}
	bad := filepath.Join(dir, "bad.txt")
	os.WriteFile(bad, []byte("@@@@\n@PZ@\n@@@@\n"), 0o644)
	code, _, errOut = runCLI(t, context.Background(), "play", "--map", bad)
	if code != 2 || !strings.Contains(errOut, bad+":2:3: unexpected character 'Z'") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
}

// TestPlayBadInput: every wrong flag or value is one line on stderr and
// exit status 2, with nothing on stdout.
func TestPlayBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--game", "chess"}, `--game: unknown game "chess"`},
		{[]string{"--agents", "0"}, "--agents 0: out of range; want an integer from 1 to 64"},
		{[]string{"--agents", "ten"}, "--agents ten: not an integer; want an integer from 1 to 64"},
		{[]string{"--steps", "0"}, "--steps 0: out of range; want an integer from 1 to 100000"},
		{[]string{"--seeds", "4-1"}, `--seeds 4-1: seed range "4-1" runs backwards`},
		{[]string{"--policy", "nice"}, `--policy: unknown policy "nice" (built-in: bfs, coop, exploit, random)`},
		{[]string{"--map", "nowhere"}, `--map: map "nowhere" is neither a built-in gathering map`},
		{[]string{"--map", "large", "--game", "cleanup"}, `neither a built-in cleanup map (default, small)`},
		{[]string{"--frobnicate"}, "unknown flag --frobnicate"},
		{[]string{"--seds", "3"}, "unknown flag --seds (did you mean --seeds?)"},
		{[]string{"extra"}, `unexpected argument "extra"`},
	} {
		code, out, errOut := runCLI(t, context.Background(), append([]string{"play"}, c.args...)...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2", c.args, code)
		}
		if out != "" {
			t.Errorf("%v: printed to stdout: %q", c.args, out)
		}
		if strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, c.want) ||
			!strings.HasPrefix(errOut, "policyevolve play: ") {
			t.Errorf("%v: stderr %q, want one line containing %q", c.args, errOut, c.want)
		}
	}
}

func TestHelp(t *testing.T) {
	code, out, _ := runCLI(t, context.Background(), "play", "--help")
	if code != 0 || !strings.Contains(out, "Usage: policyevolve play") || !strings.Contains(out, "-seeds") {
		t.Fatalf("play --help: exit %d\n%s", code, out)
	}
	code, out, _ = runCLI(t, context.Background(), "help")
	if code != 0 || !strings.Contains(out, "play") {
		t.Fatalf("help: exit %d\n%s", code, out)
	}
	code, out2, _ := runCLI(t, context.Background(), "help", "play")
	if code != 0 || !strings.Contains(out2, "Usage: policyevolve play") {
		t.Fatalf("help play: exit %d\n%s", code, out2)
	}
	code, _, errOut := runCLI(t, context.Background(), "dance")
	if code != 2 || !strings.Contains(errOut, `unknown command "dance"`) {
		t.Fatalf("unknown command: exit %d, %q", code, errOut)
	}
}

func TestPlayInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	code, _, errOut := runCLI(t, ctx, "play", "--seeds", "0-3")
	if code != 130 || !strings.Contains(errOut, "interrupted") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
}

// TestEveryCommandHasHelp: --help works on every command and subcommand.
func TestEveryCommandHasHelp(t *testing.T) {
	var all [][]string
	for name := range commands {
		all = append(all, []string{name, "--help"})
	}
	for name := range poolCommands {
		all = append(all, []string{"pool", name, "--help"})
	}
	for name := range storeCommands {
		all = append(all, []string{"store", name, "--help"})
	}
	for name := range llmCommands {
		all = append(all, []string{"llm", name, "--help"})
	}
	all = append(all, []string{"pool", "--help"}, []string{"store", "--help"})
	for _, args := range all {
		code, out, errOut := runCLI(t, context.Background(), args...)
		if code != 0 || !strings.Contains(out, "Usage: policyevolve") || errOut != "" {
			t.Errorf("%v: exit %d, out %q, err %q", args, code, out, errOut)
		}
	}
}
