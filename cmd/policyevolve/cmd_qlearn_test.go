package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"policyevolve/baselines/qlearn"
	"policyevolve/envs"
	"policyevolve/envs/ssd"
)

// tinyTrain is a quick training run: 2 agents on the small Gathering map,
// 3 episodes of 150 steps.
var tinyTrain = []string{"qlearn", "train", "--game", "gathering", "--map", "small", "--agents", "2",
	"--episodes", "3", "--steps", "150", "--seed", "7", "--eps-decay", "2"}

// TestQLearnTrainAndPlay trains end to end through the CLI, checks the file
// is the library's table for the same run, and plays it with
// --policy qlearn:FILE, which must give the library's greedy evaluation.
func TestQLearnTrainAndPlay(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "q.json")
	code, stdout, stderr := runCLI(t, context.Background(), append(tinyTrain, "-o", out)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "trained gathering on small, 2 agents, 3 episodes of 150 steps from seed 7") ||
		!strings.Contains(stdout, "states visited; wrote "+out) {
		t.Errorf("stdout:\n%s", stdout)
	}
	// Not a terminal: plain progress lines, no bar.
	if !strings.Contains(stderr, "episode 3/3: mean team reward") || strings.Contains(stderr, "\r") {
		t.Errorf("stderr:\n%q", stderr)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	m, _ := envs.BuiltinMap(ssd.Gathering, "small")
	p := qlearn.DefaultParams(ssd.Gathering)
	p.EpsDecay = 2
	want, err := qlearn.Train(context.Background(), qlearn.Config{Map: m, MapName: "small", Agents: 2, Episodes: 3,
		MaxSteps: 150, Seed: 7, Params: &p})
	if err != nil {
		t.Fatal(err)
	}
	wantData, _ := want.MarshalJSON()
	if string(data) != string(wantData) {
		t.Fatal("the CLI's table is not the library's for the same run")
	}
	if leftovers, _ := filepath.Glob(filepath.Join(dir, ".qtable-*")); len(leftovers) > 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}

	code, stdout, stderr = runCLI(t, context.Background(), "play", "--game", "gathering", "--map", "small", "--agents", "2",
		"--steps", "150", "--seeds", "9999-10000", "--policy", "qlearn:"+out, "--json")
	if code != 0 {
		t.Fatalf("play: exit %d: %s", code, stderr)
	}
	var rep playReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("play output: %v\n%s", err, stdout)
	}
	ev, err := qlearn.Evaluate(context.Background(), want, m, 2, 150, []uint64{9999, 10000})
	if err != nil {
		t.Fatal(err)
	}
	for k, e := range rep.Episodes {
		if e.Metrics != ev.Episodes[k].Metrics {
			t.Errorf("seed %d: play gives %+v, qlearn.Evaluate %+v", *e.Seed, e.Metrics, ev.Episodes[k].Metrics)
		}
	}
}

// TestQLearnBadInput: wrong flags and bad Q-table files are one line on
// stderr, exit 2, nothing on stdout.
func TestQLearnBadInput(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.json")
	os.WriteFile(garbage, []byte("{not json"), 0o644)
	source := filepath.Join(dir, "policy.go")
	os.WriteFile(source, []byte("package policy\n"), 0o644)
	cleanupTable := filepath.Join(dir, "cleanup.json")
	code, _, stderr := runCLI(t, context.Background(), "qlearn", "train", "--game", "cleanup", "--map", "small", "--agents", "2",
		"--episodes", "1", "--steps", "20", "-o", cleanupTable)
	if code != 0 {
		t.Fatalf("train cleanup: exit %d: %s", code, stderr)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"qlearn", "train", "--map", "small"}, "-o FILE is required"},
		{[]string{"qlearn", "train", "--game", "chess", "-o", "x.json"}, `--game: unknown game "chess"`},
		{[]string{"qlearn", "train", "--episodes", "0", "-o", "x.json"}, "--episodes 0: out of range; want an integer from 1 to 1000000"},
		{[]string{"qlearn", "train", "--agents", "0", "-o", "x.json"}, "--agents 0: out of range; want an integer from 1 to 64"},
		{[]string{"qlearn", "train", "--eps-decay", "-1", "-o", "x.json"}, "--eps-decay -1: out of range; want an integer from 1 to 1000000"},
		{[]string{"qlearn", "train", "--map", "nowhere", "-o", "x.json"}, `--map: map "nowhere"`},
		{[]string{"qlearn", "train", "--frobnicate"}, "unknown flag --frobnicate"},
		{[]string{"qlearn", "dance"}, `unknown subcommand "dance"`},
		{[]string{"play", "--policy", "qlearn:" + garbage}, garbage + ": not a Q-table file"},
		{[]string{"play", "--policy", "qlearn:" + source}, source + ": not a Q-table file"},
		{[]string{"play", "--policy", "qlearn:" + filepath.Join(dir, "missing.json")}, "no such file"},
		{[]string{"play", "--policy", "qlearn:" + cleanupTable}, "the Q-table was trained on cleanup, not gathering"},
	} {
		code, out, errOut := runCLI(t, context.Background(), c.args...)
		if code != 2 || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and one line containing %q", c.args, code, out, errOut, c.want)
		}
	}
	// A path that cannot be written fails before any training.
	bad := filepath.Join(dir, "no", "such", "dir", "q.json")
	code, _, errOut := runCLI(t, context.Background(), "qlearn", "train", "-o", bad)
	if code != 2 || !strings.Contains(errOut, "-o: create "+bad+": no such file or directory") || strings.Contains(errOut, "episode") {
		t.Errorf("unwritable -o: exit %d, stderr %q", code, errOut)
	}
}

func TestQLearnTrainInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out := filepath.Join(t.TempDir(), "q.json")
	code, _, errOut := runCLI(t, ctx, append(tinyTrain, "-o", out)...)
	if code != 130 || !strings.Contains(errOut, "interrupted") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(out), "*")); len(left) > 0 {
		t.Fatalf("an interrupted run left %v", left)
	}
}

func TestQLearnHelp(t *testing.T) {
	for _, args := range [][]string{{"qlearn", "--help"}, {"qlearn", "train", "--help"}} {
		code, out, errOut := runCLI(t, context.Background(), args...)
		if code != 0 || !strings.Contains(out, "Usage: policyevolve qlearn") || errOut != "" {
			t.Errorf("%v: exit %d, out %q, err %q", args, code, out, errOut)
		}
	}
	code, out, _ := runCLI(t, context.Background(), "qlearn", "train", "--help")
	for _, want := range []string{"-episodes", "-seed", "-eps-decay", "-o string", "bit for bit"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("qlearn train --help lacks %q:\n%s", want, out)
		}
	}
}

// TestQLearnInPool: a trained table joins a global pool as a baseline,
// stored by content, and plays matches and leagues; importing a table of
// the other game is refused.
func TestQLearnInPool(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "pe.db")
	table := filepath.Join(dir, "q.json")
	cli(t, append(tinyTrain, "-o", table)...)

	out, _ := cli(t, append([]string{"pool", "import", "qlearn:" + table, "--store", db, "--seeds", "0-1", "--name", "qtab"}, envFlags...)...)
	if !strings.Contains(out, "imported ") || !strings.Contains(out, "(qtab) into global/gathering/small/4/200") {
		t.Fatalf("import output:\n%s", out)
	}
	id := strings.Fields(out)[1]
	// The same table again, as FILE.json: the same policy, nothing new.
	out, _ = cli(t, append([]string{"pool", "import", table, "--store", db, "--seeds", "0-1"}, envFlags...)...)
	if !strings.HasPrefix(out, "already stored: "+id) {
		t.Fatalf("second import:\n%s", out)
	}

	out, _ = cli(t, "pool", "ls", "--store", db, "--json")
	var pools []poolListing
	if err := json.Unmarshal([]byte(out), &pools); err != nil {
		t.Fatal(err)
	}
	var bfs string
	found := false
	for _, m := range pools[0].Members {
		if m.Name == "bfs" {
			bfs = m.ID
		}
		if strings.HasPrefix(m.ID, id) {
			found = m.Evaluated && m.Reason == "baseline"
		}
	}
	if !found || bfs == "" {
		t.Fatalf("pool members %+v", pools[0].Members)
	}
	out, _ = cli(t, "pool", "show", id, "--store", db)
	if !strings.Contains(out, "a gathering Q-table of ") || strings.Contains(out, `"entries"`) {
		t.Errorf("pool show:\n%s", out)
	}
	out, _ = cli(t, "pool", "export", id, "--store", db)
	if back, err := qlearn.Parse([]byte(out)); err != nil || back.Game != ssd.Gathering {
		t.Errorf("pool export does not give the table back: %v", err)
	}
	out, _ = cli(t, append([]string{"match", id, bfs, "--store", db, "--seeds", "0"}, envFlags...)...)
	if !strings.Contains(out, "seed 0: A ") {
		t.Errorf("match:\n%s", out)
	}
	// A stored table is a policy reference like any other: invade and
	// scenarios play it (the resolver once refused its Builtin marker).
	out, _ = cli(t, append([]string{"invade", id, "bfs", "--store", db, "--seeds", "0"}, envFlags...)...)
	if !strings.Contains(out, id[:12]+" (A) invading bfs (B)") {
		t.Errorf("invade:\n%s", out)
	}
	suite := filepath.Join(dir, "q.toml")
	if err := os.WriteFile(suite, []byte("[[scenario]]\nbackground = \""+id+"\"\nmode = \"resident\"\nk = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _ = cli(t, append([]string{"scenarios", "bfs", "--suite", suite, "--store", db, "--seeds", "0"}, envFlags...)...)
	if !strings.Contains(out, id+" resident k=1") {
		t.Errorf("scenarios:\n%s", out)
	}
	out, _ = cli(t, append([]string{"league", "--store", db, "--seeds", "0"}, envFlags...)...)
	if !strings.Contains(out, id[:12]) {
		t.Errorf("league does not list the table:\n%s", out)
	}

	cleanupTable := filepath.Join(dir, "c.json")
	cli(t, "qlearn", "train", "--game", "cleanup", "--map", "small", "--agents", "2", "--episodes", "1", "--steps", "20", "-o", cleanupTable)
	code, _, errOut := runCLI(t, context.Background(), append([]string{"pool", "import", cleanupTable, "--store", db}, envFlags...)...)
	if code == 0 || !strings.Contains(errOut, "trained on cleanup, not gathering") {
		t.Errorf("cleanup table into a gathering pool: exit %d, %q", code, errOut)
	}
}
