package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"policyevolve/evolve"
	"policyevolve/evolve/episode"
	"policyevolve/evolve/experiment"
	"policyevolve/llm"
	"policyevolve/store"
)

// TestCompare runs compare on a CI-sized budget: the chain, population,
// GEPA (the paper's sparse reflections and the critic variant) and
// Q-learner rows next to the baselines, each search within the budget of
// planner calls, the Q-learner with its training time and no planner
// call; each search's best-so-far curve, which climbs to the chain's
// champion; every champion replayed on held-out seeds; the report's
// files; and a second compare with the same flags that finds every run
// (and training) again.
func TestCompare(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db, prefix := filepath.Join(dir, "cmp.db"), filepath.Join(dir, "report")
	args := append([]string{"compare", "--store", db, "--seeds", "0-1", "--budget", "3", "--runs", "1", "--candidates", "1",
		"--local-rounds", "0", "--qlearn-episodes", "3", "--gepa-feedback", "sparse,critic", "--held-out", "100-101", "-o", prefix},
		"--game", "gathering", "--map", "small", "--agents", "4", "--steps", "100")
	out, errOut := cli(t, args...)
	t.Logf("%s", out)
	for _, m := range []string{"chain", "population", "gepa", "gepa-critic", "qlearn", "bfs", "exploit", "coop"} {
		if !strings.Contains(out, "| "+m+" |") {
			t.Errorf("no %s row in the report", m)
		}
	}
	if !strings.Contains(out, "qlearn: the tabular Q-learner trained for 3 episodes per seed") || !strings.Contains(errOut, "training 3 episodes") {
		t.Errorf("the Q-learner's training is not reported:\n%s", errOut)
	}
	rep, _, _ := readCompareRows(t, prefix)
	if !strings.HasPrefix(rep.ID, "cmp-") || !strings.Contains(errOut, "policyevolve report "+rep.ID) {
		t.Errorf("the comparison's id %q is not given for report:\n%s", rep.ID, errOut)
	}
	if _, err := os.Stat(prefix + ".csv"); err != nil {
		t.Error(err)
	}
	rows := map[string]experiment.Row{}
	for _, r := range rep.Rows {
		rows[r.Method] = r
	}
	for _, m := range []string{"chain", "population", "gepa", "gepa-critic", "qlearn"} {
		r := rows[m]
		if len(r.Runs) != 1 || len(r.Champions) != 1 || r.Efficiency.N != 1 || r.Rating.N != 1 {
			t.Errorf("row %s: %+v", m, r)
		}
	}
	for _, m := range []string{"gepa", "gepa-critic"} {
		// The seed candidate, then a reflection and its policy: 3 calls.
		if r := rows[m]; r.PlannerCalls.Mean != 3 {
			t.Errorf("row %s: %v planner calls, want 3", m, r.PlannerCalls.Mean)
		}
	}
	for _, m := range []string{"chain", "population", "gepa", "gepa-critic"} {
		p := rows[m].Progress
		if len(p) != 3 || p[0].Calls != 1 || p[2].Calls != 3 {
			t.Fatalf("row %s: progress %+v, want points at calls 1, 2 and 3", m, p)
		}
		for k := 1; k < len(p); k++ {
			if p[k].Best.N != 1 || p[k].Best.Mean < p[k-1].Best.Mean {
				t.Errorf("row %s: the best so far fell or is missing: %+v", m, p)
			}
		}
	}
	// The chain's champion is its best policy by efficiency: its curve
	// ends there.
	if c := rows["chain"]; c.Progress[2].Best.Mean != c.Efficiency.Mean {
		t.Errorf("chain: best so far %v after its 3 calls, champion's efficiency %v", c.Progress[2].Best.Mean, c.Efficiency.Mean)
	}
	for _, r := range rep.Rows {
		if r.Method != "qlearn" && r.HeldOut.N != len(r.Champions) {
			t.Errorf("row %s: %d held-out replays for %d champions", r.Method, r.HeldOut.N, len(r.Champions))
		}
		if len(r.HeldOutChampions) != r.HeldOut.N || (r.HeldOut.N == 1 && r.HeldOutChampions[0] != r.HeldOut.Mean) {
			t.Errorf("row %s: champion by champion %v, held out %+v", r.Method, r.HeldOutChampions, r.HeldOut)
		}
	}
	if !slices.Equal(rep.HeldOutSeeds, []uint64{100, 101}) || !strings.Contains(out, "on seeds 100–101, which no search saw") ||
		!strings.Contains(out, "Best so far per planner call") {
		t.Errorf("no held-out or best-so-far table:\n%s", out)
	}
	// Counts as whole numbers, one run not "1 runs" (gepa: 3 planner
	// calls, 0 LLM calls, 0 tokens).
	if !strings.Contains(out, "1 run per method, 3 planner calls per run") || !strings.Contains(out, " | 3 | 0 | 0 | ") {
		t.Errorf("counts are not written as counts:\n%s", out)
	}
	// The comparison's page has the best-so-far table too.
	page := filepath.Join(dir, "cmp.html")
	cli(t, "report", rep.ID, "-o", page, "--store", db)
	if html, _ := os.ReadFile(page); !strings.Contains(string(html), "Best so far per planner call") || strings.Contains(string(html), "<td>3.000</td>") {
		t.Errorf("the comparison's page lacks the best-so-far table or writes counts as decimals")
	}
	q := rows["qlearn"]
	if q.PlannerCalls.Mean != 0 || q.LLMCalls.Mean != 0 || q.WallSeconds.Mean <= 0 {
		t.Errorf("qlearn row %+v", q)
	}
	s, err := store.Open(db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var runs []store.Run
	var table *store.Policy
	err = s.View(func(tx *store.Tx) (err error) {
		if runs, err = tx.Runs(); err != nil {
			return err
		}
		table, err = tx.Policy(q.Champions[0])
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if table.Builtin != episode.QLearnBuiltin {
		t.Errorf("the qlearn champion is %+v", table)
	}
	modes := map[string]int{}
	for _, r := range runs {
		modes[r.Mode]++
		var cfg evolve.JobConfig
		json.Unmarshal(r.Config, &cfg)
		if r.Mode == evolve.ModeGEPA && cfg.Feedback != "sparse" && cfg.Feedback != "critic" {
			t.Errorf("gepa run %s with feedback %q", r.ID, cfg.Feedback)
		}
	}
	if modes["gepa"] != 2 || modes["qlearn"] != 1 || modes["chain"] != 1 || modes["population"] != 1 {
		t.Errorf("runs by mode %v", modes)
	}

	// Again, without -o, in a folder of its own: every run and the
	// training are found, nothing is redone, and no file is written.
	wd := t.TempDir()
	cmd := exec.Command(os.Args[0], append(slices.DeleteFunc(slices.Clone(args), func(a string) bool { return a == "-o" || a == prefix }), "--json")...)
	cmd.Dir, cmd.Env = wd, append(os.Environ(), envTestMain+"=1")
	var out2, errOut2 bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out2, &errOut2
	if err := cmd.Run(); err != nil {
		t.Fatalf("compare again: %v\n%s", err, errOut2.String())
	}
	var again experiment.Report
	if err := json.Unmarshal(out2.Bytes(), &again); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(again.Rows, rep.Rows) {
		t.Errorf("compare again gave another table:\n%+v\nfirst:\n%+v", again.Rows, rep.Rows)
	}
	if strings.Contains(errOut2.String(), "training") {
		t.Errorf("the Q-learner was trained again:\n%s", errOut2.String())
	}
	if files, _ := os.ReadDir(wd); len(files) != 0 || strings.Contains(errOut2.String(), "wrote") {
		t.Errorf("compare without -o wrote %v:\n%s", files, errOut2.String())
	}

	// Again with a population setting changed: another comparison, whose
	// population runs anew while the chain and gepa rows reuse the runs
	// above, which never read that setting.
	other := filepath.Join(dir, "other")
	args3 := slices.Clone(args)
	args3[slices.Index(args3, "--local-rounds")+1] = "1"
	args3[slices.Index(args3, prefix)] = other
	_, errOut3 := cli(t, args3...)
	rep3, _, rows3 := readCompareRows(t, other)
	if rep3.ID == rep.ID {
		t.Fatalf("--local-rounds 1 gave the same comparison %s", rep.ID)
	}
	for _, m := range []string{"chain", "gepa", "gepa-critic"} {
		if !slices.Equal(rows3[m].Runs, rows[m].Runs) || !strings.Contains(errOut3, rows[m].Runs[0]+": reused") {
			t.Errorf("row %s: runs %v, want %v reused:\n%s", m, rows3[m].Runs, rows[m].Runs, errOut3)
		}
	}
	if p := rows3["population"].Runs; len(p) != 1 || p[0] == rows["population"].Runs[0] {
		t.Errorf("population runs %v: want a new run, not %v", p, rows["population"].Runs)
	}
}

func TestCompareBadFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--gepa-feedback", "loud"}, `--gepa-feedback: unknown feedback level "loud"`},
		{[]string{"--qlearn-episodes", "-1"}, "--qlearn-episodes -1: out of range; want an integer from 0 to 1000000"},
		{[]string{"--budget", "0"}, "--budget 0: out of range; want an integer from 1 to 100000"},
		{[]string{"-o", "/nonexistent/dir/table"}, "-o: create /nonexistent/dir/table.csv: no such file or directory"},
		// A population setting, reported before the chain's runs play.
		{[]string{"--refine", "bogus"}, `refine "bogus": want race or all`},
		{[]string{"--parent-order", "sideways"}, `parent order "sideways": want lead, best or shuffled`},
		{[]string{"--candidates", "-3"}, "candidates"},
		// Held-out seeds are seeds no search chose a champion on.
		{[]string{"--held-out", "3-9"}, "held-out seed 3 is an evaluation seed of the chain runs"},
		{[]string{"--held-out", "20-30"}, "held-out seed 20 is a recheck seed (--recheck) of the chain runs"},
		{[]string{"--held-out", "5", "--recheck", "1"}, "held-out seed 5 is a recheck seed (--recheck) of the chain runs"},
		{[]string{"--recheck", "1001"}, "--recheck 1001: out of range; want an integer from 0 to 1000"},
	} {
		db := filepath.Join(t.TempDir(), "x.db")
		code, _, errOut := runCLI(t, t.Context(), append([]string{"compare", "--store", db}, tc.args...)...)
		if code != 2 || !strings.Contains(errOut, tc.want) || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
			t.Errorf("%v: exit %d, %q; want exit 2 and one line with %q", tc.args, code, errOut, tc.want)
		}
		if _, err := os.Stat(db); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%v: the store was created (%v)", tc.args, err)
		}
	}
}

// markdownTable is the Markdown tables of compare's output, every column:
// a rerun reuses the stored runs, wall times included.
func markdownTable(out string) string {
	var rows []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "|") {
			rows = append(rows, l)
		}
	}
	return strings.Join(rows, "\n")
}

// TestCompareSuitePaper: --suite paper gives the paper's Table 1 rows in
// its order; the zero-shot row is the chain runs' initial policies (the
// first chain row's runs, their iteration 0); rerunning reproduces the
// table.
func TestCompareSuitePaper(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db, prefix := filepath.Join(dir, "suite.db"), filepath.Join(dir, "suite")
	args := []string{"compare", "--suite", "paper", "--store", db, "--seeds", "0-1", "--budget", "3", "--runs", "1",
		"--candidates", "1", "--local-rounds", "0", "--qlearn-episodes", "3", "-o", prefix,
		"--game", "gathering", "--map", "small", "--agents", "4", "--steps", "100"}
	out, _ := cli(t, args...)
	rep, methods, rows := readCompareRows(t, prefix)
	want := []string{"zero-shot", "chain-sparse", "chain-dense", "chain-raw", "chain-critic", "population", "gepa", "qlearn", "bfs", "exploit", "coop"}
	if !slices.Equal(methods, want) {
		t.Fatalf("rows %v, want %v", methods, want)
	}
	for _, m := range want {
		r := rows[m]
		if len(r.Transfer) != 3 || r.Transfer["large"].N != len(r.Champions) || len(r.WorstInvader) != len(r.Champions) || r.InvaderGain.N != len(r.Champions) {
			t.Errorf("%s: transfer %v, worst invader %v (%+v) for champions %v", m, r.Transfer, r.WorstInvader, r.InvaderGain, r.Champions)
		}
	}
	for _, table := range []string{"Transfer: self-play efficiency", "Worst invader", "| method | default | large | small |"} {
		if !strings.Contains(out, table) {
			t.Errorf("no %q in the report:\n%s", table, out)
		}
	}
	z, first := rows["zero-shot"], rows["chain-sparse"]
	if !slices.Equal(z.Runs, first.Runs) || len(z.Champions) != 1 || z.PlannerCalls.Mean < 1 || z.PlannerCalls.Mean > 3 {
		t.Fatalf("zero-shot %+v, chain-sparse runs %v", z, first.Runs)
	}
	its := iterations(t, db, z.Runs[0])
	if its[0].Candidates[0].Policy != z.Champions[0] {
		t.Errorf("zero-shot champion %.12s, the chain's iteration 0 wrote %.12s", z.Champions[0], its[0].Candidates[0].Policy)
	}
	s, err := store.Open(db, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, level := range []string{"sparse", "dense", "raw", "critic"} {
		var run *store.Run
		if err := s.View(func(tx *store.Tx) (err error) {
			run, err = tx.Run(rows["chain-"+level].Runs[0])
			return err
		}); err != nil {
			t.Fatal(err)
		}
		var cfg evolve.JobConfig
		json.Unmarshal(run.Config, &cfg)
		if run.Mode != evolve.ModeChain || cfg.Feedback != level {
			t.Errorf("chain-%s row's run: mode %s, feedback %s", level, run.Mode, cfg.Feedback)
		}
	}
	// The HTML report shows the table as compare stored it, every row.
	page := filepath.Join(dir, "suite.html")
	cli(t, "report", rep.ID, "--store", db, "-o", page, "--no-replay")
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range want {
		if !strings.Contains(string(html), ">"+m+"<") {
			t.Errorf("the report of %s has no row %s", rep.ID, m)
		}
	}
	again, _ := cli(t, args...)
	if markdownTable(again) != markdownTable(out) {
		t.Errorf("rerun gave another table:\n%s\nfirst:\n%s", markdownTable(again), markdownTable(out))
	}
	code, _, errOut := runCLI(t, t.Context(), "compare", "--suite", "nope", "--store", db)
	if code != 2 || !strings.Contains(errOut, `--suite: unknown suite "nope"`) {
		t.Errorf("--suite nope: exit %d, %s", code, errOut)
	}
}

// TestExperimentReplay: the experiment command end to end with the
// replay: LLM planner on a CI budget (yaegi, so that no policy needs a
// compiler): the paper's rows plus a chain row per prompt style, each
// run with its style; a --transfer-map joins the transfer table; the same
// command again answers from the store (the replay file would be read
// from its first answer again) and prints the same table.
func TestExperimentReplay(t *testing.T) {
	t.Parallel() // --llm names the model: the environment's does not matter
	dir := t.TempDir()
	var answers []string
	for k := range 120 {
		answers = append(answers, fmt.Sprintf("Turn now and then.\n```go\npackage policy\n\nimport \"ssd\"\n\nfunc Policy(v *ssd.View, agent int) int {\n\tif (v.Step()+agent)%%%d == 0 {\n\t\treturn ssd.RotateLeft\n\t}\n\treturn v.GreedyAction(agent)\n}\n```\n", k+7))
	}
	replay := writeFile(t, "answers.txt", llm.FormatReplay(answers))
	custom := writeFile(t, "strip.txt", "@@@@@@@@@@\n@P A  A P@\n@ AA  AA @\n@@@@@@@@@@\n")
	db, prefix := filepath.Join(dir, "exp.db"), filepath.Join(dir, "exp")
	args := []string{"experiment", "--llm", "replay:" + replay, "--backend", "yaegi", "--store", db, "--seeds", "0",
		"--budget", "1", "--runs", "1", "--candidates", "1", "--local-rounds", "0", "--qlearn-episodes", "2",
		"--transfer-map", custom, "-o", prefix, "--game", "gathering", "--map", "small", "--agents", "2", "--steps", "50"}
	out, _ := cli(t, args...)
	_, methods, rows := readCompareRows(t, prefix)
	want := []string{"zero-shot", "chain-sparse", "chain-dense", "chain-raw", "chain-critic", "chain-naive", "chain-cot", "chain-react",
		"population", "gepa", "qlearn", "bfs", "exploit", "coop"}
	if !slices.Equal(methods, want) {
		t.Fatalf("rows %v, want %v", methods, want)
	}
	s, err := store.Open(db, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, style := range []string{"naive", "cot", "react"} {
		r := rows["chain-"+style]
		if len(r.Runs) != 1 || r.LLMCalls.Mean < 1 || len(r.Champions) != 1 {
			t.Fatalf("chain-%s: %+v", style, r)
		}
		var run *store.Run
		if err := s.View(func(tx *store.Tx) (err error) {
			run, err = tx.Run(r.Runs[0])
			return err
		}); err != nil {
			t.Fatal(err)
		}
		var cfg evolve.JobConfig
		json.Unmarshal(run.Config, &cfg)
		if cfg.PromptStyle != style || cfg.Feedback != "dense" || run.Mode != evolve.ModeChain {
			t.Errorf("chain-%s's run: style %q, feedback %s, mode %s", style, cfg.PromptStyle, cfg.Feedback, run.Mode)
		}
	}
	if r := rows["chain-dense"]; r.Transfer[custom].N != 1 || !strings.Contains(out, filepath.Base(custom)) {
		t.Errorf("the custom map is not in the transfer table: %v\n%s", r.Transfer, out)
	}
	again, _ := cli(t, args...)
	if again != out {
		t.Errorf("the same experiment again printed another table:\n%s\nfirst:\n%s", again, out)
	}
}

// readCompareRows reads PREFIX.json: the report, its methods in order and
// its rows by method.
func readCompareRows(t *testing.T, prefix string) (experiment.Report, []string, map[string]experiment.Row) {
	t.Helper()
	data, err := os.ReadFile(prefix + ".json")
	if err != nil {
		t.Fatal(err)
	}
	var rep experiment.Report
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	var methods []string
	rows := map[string]experiment.Row{}
	for _, r := range rep.Rows {
		methods = append(methods, r.Method)
		rows[r.Method] = r
	}
	return rep, methods, rows
}
