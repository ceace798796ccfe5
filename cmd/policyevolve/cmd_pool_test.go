package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"policyevolve/internal/textdiff"
	"policyevolve/store"
)

// envFlags is a small, quick environment for the pool tests.
var envFlags = []string{"--game", "gathering", "--map", "small", "--agents", "4", "--steps", "200"}

func cli(t *testing.T, args ...string) (string, string) {
	t.Helper()
	code, out, errOut := runCLI(t, context.Background(), args...)
	if code != 0 {
		t.Fatalf("%v: exit %d\n%s%s", args, code, out, errOut)
	}
	return out, errOut
}

// TestPoolEndToEnd: import two source policies, then match, league and
// pool ls/show/diff/lineage/export/rm on a temporary store.
func TestPoolEndToEnd(t *testing.T) {
	db := filepath.Join(t.TempDir(), "pe.db")
	ex := func(name string) string { return filepath.Join("..", "..", "examples", "policies", name+".go") }

	out, _ := cli(t, append([]string{"pool", "import", ex("voronoi"), "--store", db, "--seeds", "0-1"}, envFlags...)...)
	if !strings.Contains(out, "imported ") || !strings.Contains(out, "into global/gathering/small/4/200@welfare") || !strings.Contains(out, "win rate") {
		t.Fatalf("import output:\n%s", out)
	}
	voronoi := strings.Fields(out)[1]
	out, _ = cli(t, append([]string{"pool", "import", ex("exploit"), "--store", db, "--seeds", "0-1", "--name", "exploit-src"}, envFlags...)...)
	exploit := strings.Fields(out)[1]

	out, _ = cli(t, "pool", "ls", "--store", db, "--json")
	var pools []poolListing
	if err := json.Unmarshal([]byte(out), &pools); err != nil {
		t.Fatalf("pool ls --json: %v\n%s", err, out)
	}
	if len(pools) != 1 || len(pools[0].Members) != 6 {
		t.Fatalf("pools %+v", pools)
	}
	for _, m := range pools[0].Members {
		if !m.Evaluated {
			t.Errorf("member %.12s not evaluated", m.ID)
		}
	}
	out, _ = cli(t, "pool", "ls", "--store", db, "--sort", "equality", "--game", "gathering")
	if !strings.Contains(out, "pool global/gathering/small/4/200@welfare, objective welfare (6 members)") || !strings.Contains(out, "exploit-src") {
		t.Fatalf("pool ls:\n%s", out)
	}
	if out, _ := cli(t, "pool", "ls", "--store", db, "--game", "cleanup"); !strings.Contains(out, "no global pools match") {
		t.Fatalf("filtered pool ls:\n%s", out)
	}

	out, _ = cli(t, "pool", "show", voronoi[:8], "--store", db)
	for _, want := range []string{"policy   " + voronoi[:12], "origin   import by human", "evaluation on gathering/small/4/200, seeds [0 1]: ok",
		"seed 0: efficiency", "global/gathering/small/4/200@welfare: elo ", "source:", "package policy"} {
		if !strings.Contains(out, want) {
			t.Errorf("pool show lacks %q:\n%s", want, out)
		}
	}
	out, _ = cli(t, "pool", "diff", voronoi[:8], exploit[:8], "--store", db)
	if !strings.HasPrefix(out, "--- "+voronoi[:12]) || !strings.Contains(out, "+ ") || !strings.Contains(out, "- ") {
		t.Fatalf("pool diff:\n%s", out)
	}
	out, _ = cli(t, "pool", "lineage", exploit[:8], "--store", db)
	if !strings.HasPrefix(out, exploit[:12]+" exploit-src  [import by human]") {
		t.Fatalf("pool lineage:\n%s", out)
	}
	out, _ = cli(t, "pool", "export", voronoi[:8], "--store", db)
	src, _ := os.ReadFile(ex("voronoi"))
	if out != string(src) {
		t.Fatal("pool export does not give back the imported source")
	}
	file := filepath.Join(t.TempDir(), "v.go")
	cli(t, "pool", "export", voronoi[:8], "-o", file, "--store", db)
	if b, _ := os.ReadFile(file); string(b) != string(src) {
		t.Fatal("pool export -o wrote something else")
	}

	out, _ = cli(t, append([]string{"match", voronoi[:8], exploit[:8], "--store", db, "--seeds", "0-1"}, envFlags...)...)
	if !strings.Contains(out, "seed 0: A ") || !strings.Contains(out, "seed 1: A ") || !strings.Contains(out, "of 2 points") {
		t.Fatalf("match:\n%s", out)
	}
	if out, _ := cli(t, "pool", "show", voronoi[:8], "--store", db); !strings.Contains(out, "matches (") {
		t.Errorf("pool show lists no matches after match:\n%s", out)
	}
	// The league of the welfare pool: mixed-match ratings beside the
	// objective's score, best by the objective first.
	out, _ = cli(t, append([]string{"league", "--store", db, "--json"}, envFlags...)...)
	var league struct {
		Objective string `json:"objective"`
		Rows      []struct {
			ID         string    `json:"id"`
			Rating     float64   `json:"rating"`
			Efficiency float64   `json:"efficiency"`
			Payoff     []float64 `json:"payoff"`
		} `json:"rows"`
	}
	if err := json.Unmarshal([]byte(out), &league); err != nil || len(league.Rows) != 6 || len(league.Rows[0].Payoff) != 6 || league.Objective != "welfare" {
		t.Fatalf("league --json: %v\n%s", err, out)
	}
	for k := 1; k < len(league.Rows); k++ {
		if a, b := league.Rows[k-1], league.Rows[k]; a.Efficiency < b.Efficiency || b.Efficiency == 0 {
			t.Errorf("league rows not ordered by self-play efficiency: %+v before %+v", a, b)
		}
	}
	out, _ = cli(t, append([]string{"league", "--store", db}, envFlags...)...)
	if !strings.Contains(out, "payoff (row's mean per-agent return against column)") || !strings.Contains(out, "worst opponent") {
		t.Fatalf("league:\n%s", out)
	}

	out, _ = cli(t, "pool", "rm", exploit[:10], "--store", db)
	if !strings.Contains(out, "removed "+exploit[:12]) {
		t.Fatalf("pool rm:\n%s", out)
	}
	out, _ = cli(t, "store", "check", "--store", db)
	if !strings.HasPrefix(out, "OK ") {
		t.Fatalf("store check:\n%s", out)
	}
	cli(t, "store", "compact", "--store", db)
	cli(t, "store", "check", "--store", db)
}

func TestPoolBadInput(t *testing.T) {
	db := filepath.Join(t.TempDir(), "empty.db")
	if _, err := store.Open(db, store.Options{}); err != nil {
		t.Fatal(err)
	}
	notStore := filepath.Join(t.TempDir(), "notes.txt")
	os.WriteFile(notStore, []byte(strings.Repeat("hello\n", 2000)), 0o644)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"pool"}, 2, "missing subcommand"},
		{[]string{"pool", "dance"}, 2, `unknown subcommand "dance"`},
		{[]string{"pool", "ls", "--store", filepath.Join(t.TempDir(), "none.db")}, 1, "no store at"},
		{[]string{"pool", "ls", "--store", notStore}, 1, "not a policyevolve store"},
		{[]string{"pool", "ls", "--store", db, "--sort", "height"}, 2, `--sort: unknown order "height"`},
		{[]string{"pool", "ls", "--store", db, "--sort", "peac"}, 2, `(did you mean peace?)`},
		{[]string{"pool", "ls", "--store", db, "--sort", "games", "--objective", "welfare"}, 0, ""},
		{[]string{"pool", "ls", "--store", db, "--objective", "wellfare"}, 2, `--objective wellfare: unknown objective "wellfare"`},
		{[]string{"pool", "show", "abc", "--store", db}, 1, "policy abc: not found"},
		{[]string{"pool", "show", "--store", db}, 2, "want one policy id"},
		{[]string{"pool", "import", "nothere.go", "--store", db}, 2, "nothere.go"},
		{[]string{"pool", "import", filepath.Join("..", "..", "examples", "policies", "bfs.go"), "--store", db, "--agents", "1"}, 2, "matches need at least 2 agents"},
		{[]string{"match", "a", "--store", db}, 2, "want two policy ids"},
		{[]string{"store", "check", "--store", notStore}, 1, "not a policyevolve store"},
		{[]string{"store", "fix"}, 2, `unknown subcommand "fix"`},
		// A run that is not there: exit 1 and where the runs are listed,
		// as report says it.
		{[]string{"runs", "show", "run-99", "--store", db}, 1, "no run run-99 in the store (policyevolve runs ls --store " + db + " lists them)"},
		{[]string{"evolve", "--resume", "run-99", "--store", db}, 1, "--resume: no run run-99 in the store"},
		{[]string{"report", "run-99", "-o", filepath.Join(t.TempDir(), "r.html"), "--store", db}, 1, `no run "run-99" in the store (policyevolve runs ls lists them)`},
	} {
		code, _, errOut := runCLI(t, context.Background(), c.args...)
		if code != c.code || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", c.args, code, errOut, c.code, c.want)
		}
	}
	if b, _ := os.ReadFile(notStore); string(b) != strings.Repeat("hello\n", 2000) {
		t.Fatal("a file that is not a store was modified")
	}
}

// writerJob is the two-process test's writer (run as a child process of
// this test binary): an evolve-like job adding policies to a pool, each
// with its evaluation and rating in one transaction, until killed.
func writerJob(path string) int {
	s, err := store.Open(path, store.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	env := store.EnvConfig{Game: "gathering", Map: "small", Agents: 4, MaxSteps: 200}
	pool := store.GlobalPool(env)
	w := bufio.NewWriter(os.Stdout)
	for i := 0; ; i++ {
		err := s.Update(func(tx *store.Tx) error {
			p := &store.Policy{Source: fmt.Sprintf("package policy // job %d", i), Name: fmt.Sprint("candidate-", i)}
			if _, err := tx.PutPolicy(p); err != nil {
				return err
			}
			ev := &store.Evaluation{Policy: p.ID, Env: env, Seeds: []uint64{0}, Status: store.StatusOK,
				Mean: store.Metrics{Efficiency: float64(i)}}
			if err := tx.PutEvaluation(ev); err != nil {
				return err
			}
			if err := tx.AddMember(&store.Member{Policy: p.ID, Pool: pool, Reason: "promoted"}); err != nil {
				return err
			}
			return tx.PutRating(&store.Rating{Policy: p.ID, Pool: pool, Elo: 1200 + float64(i)})
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		if i == 0 {
			fmt.Fprintln(w, "started")
			w.Flush()
		}
		time.Sleep(2 * time.Millisecond) // the job's work between commits
	}
}

// TestTwoProcesses: while a writer job commits continuously to a store, a
// second process runs pool ls again and again: it never hangs, never
// fails, and every listing is consistent and at least as long as the last.
func TestTwoProcesses(t *testing.T) {
	bin := buildBinary(t)
	db := filepath.Join(t.TempDir(), "busy.db")
	job := exec.Command(os.Args[0], "-test.run=^$")
	job.Env = append(os.Environ(), "POLICYEVOLVE_TEST_WRITER="+db)
	stdout, _ := job.StdoutPipe()
	var jobErr strings.Builder
	job.Stderr = &jobErr
	if err := job.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		job.Process.Kill()
		job.Wait()
	}()
	if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || line != "started\n" {
		t.Fatalf("writer did not start: %q %v %s", line, err, jobErr.String())
	}
	last := 0
	for i := 0; i < 25; i++ {
		cmd := exec.Command(bin, "pool", "ls", "--store", db, "--json")
		done := make(chan struct{})
		var out []byte
		var err error
		go func() { out, err = cmd.Output(); close(done) }()
		select {
		case <-done:
		case <-time.After(2 * time.Minute): // a hang, not a slow machine
			cmd.Process.Kill()
			t.Fatalf("pool ls %d hung", i)
		}
		if err != nil {
			t.Fatalf("pool ls %d: %v", i, err)
		}
		var pools []poolListing
		if err := json.Unmarshal(out, &pools); err != nil || len(pools) != 1 {
			t.Fatalf("pool ls %d: %v\n%s", i, err, out)
		}
		n := len(pools[0].Members)
		if n < last {
			t.Fatalf("pool ls %d lists %d members after %d", i, n, last)
		}
		for _, m := range pools[0].Members {
			if !m.Evaluated || m.Elo < 1200 || !strings.HasPrefix(m.Name, "candidate-") {
				t.Fatalf("pool ls %d: inconsistent member %+v", i, m)
			}
		}
		last = n
	}
	if last < 10 {
		t.Fatalf("the writer committed only %d records meanwhile", last)
	}
	if jobErr.Len() > 0 {
		t.Fatalf("writer: %s", jobErr.String())
	}
	t.Logf("25 listings while the writer committed %d+ records", last)
}

// TestPoolCommandsNeedAStore: commands that only read or change a store
// never create one; usage errors point at the subcommand's help.
func TestPoolCommandsNeedAStore(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"store", "compact"}, {"store", "check"}, {"pool", "rm", "ab"}, {"pool", "ls"},
		append([]string{"match", "ab", "cd"}, envFlags...),
	} {
		db := filepath.Join(dir, strings.Join(args[:2], "-")+".db")
		code, _, errOut := runCLI(t, context.Background(), append(args, "--store", db)...)
		if code != 1 || !strings.Contains(errOut, "no store at "+db) {
			t.Errorf("%v: exit %d, %q", args, code, errOut)
		}
		if _, err := os.Stat(db); err == nil {
			t.Errorf("%v created %s", args, db)
		}
	}
	_, _, errOut := runCLI(t, context.Background(), "pool", "show", "--store", filepath.Join(dir, "x.db"))
	if !strings.Contains(errOut, "(see policyevolve pool show --help)") {
		t.Errorf("usage hint: %q", errOut)
	}
	// A directory named as the store: a usage error, and nothing beside it.
	runs := filepath.Join(dir, "runs")
	os.Mkdir(runs, 0o755)
	for _, args := range [][]string{{"runs", "ls"}, {"pool", "import", filepath.Join("..", "..", "examples", "policies", "voronoi.go")}, {"evolve", "--iterations", "1"}} {
		code, _, errOut := runCLI(t, context.Background(), append(args, "--store", runs)...)
		if code != exitUsage || !strings.Contains(errOut, "--store "+runs+" is a directory") {
			t.Errorf("%v: exit %d, %q", args, code, errOut)
		}
	}
	for _, lock := range []string{runs + ".gate", runs + ".lock"} {
		if _, err := os.Stat(lock); err == nil {
			t.Errorf("%s was made beside the directory", lock)
		}
	}
}

func TestPoolLsMapFile(t *testing.T) {
	dir := t.TempDir()
	mapFile := filepath.Join(dir, "arena.txt")
	os.WriteFile(mapFile, []byte("@@@@@@@@\n@P..AA.@\n@.AA..P@\n@@@@@@@@\n"), 0o644)
	db := filepath.Join(dir, "m.db")
	bfs := filepath.Join("..", "..", "examples", "policies", "bfs.go")
	cli(t, "pool", "import", bfs, "--store", db, "--map", mapFile, "--agents", "2", "--steps", "50", "--seeds", "0")
	out, _ := cli(t, "pool", "ls", "--store", db, "--map", mapFile)
	if !strings.Contains(out, "pool global/gathering/file:") || !strings.Contains(out, "(5 members)") {
		t.Fatalf("pool ls --map FILE:\n%s", out)
	}
	if out, _ := cli(t, "pool", "ls", "--store", db, "--map", "small"); !strings.Contains(out, "no global pools match") {
		t.Fatalf("pool ls --map small:\n%s", out)
	}
}

// TestStoreInAMissingDirectory: a store in a folder that is not there is
// refused as a usage error naming the folder, before any lock file is
// made; a pool import that fails does not leave the store it made.
func TestStoreInAMissingDirectory(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "nope")
	db := filepath.Join(missing, "x.db")
	for _, args := range [][]string{{"pool", "import", filepath.Join("..", "..", "examples", "policies", "voronoi.go")}, {"evolve", "--iterations", "1"}} {
		code, _, errOut := runCLI(t, context.Background(), append(args, "--store", db)...)
		if code != exitUsage || !strings.Contains(errOut, "the directory "+missing+" does not exist") {
			t.Errorf("%v: exit %d, %q", args, code, errOut)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("%d entries made", len(entries))
	}
	bad := filepath.Join(dir, "bad.go")
	os.WriteFile(bad, []byte("package policy\n\nfunc broken( {\n"), 0o644)
	fresh := filepath.Join(dir, "fresh.db")
	code, _, errOut := runCLI(t, context.Background(), "pool", "import", bad, "--store", fresh)
	if code == exitOK {
		t.Fatalf("a broken policy was imported: %q", errOut)
	}
	for _, p := range []string{fresh, fresh + ".lock", fresh + ".gate"} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("the failed import left %s", filepath.Base(p))
		}
	}
}

// TestSubcommandTypo: a mistyped subcommand of any group is a usage error
// with a suggestion, two letters included (pool sh → show).
func TestSubcommandTypo(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"pool", "sh"}, "did you mean show?"},
		{[]string{"runs", "lst"}, "did you mean ls?"},
		{[]string{"runs", "sho"}, "did you mean show?"},
	} {
		code, _, errOut := runCLI(t, context.Background(), c.args...)
		if code != exitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, %q", c.args, code, errOut)
		}
	}
}

// TestLineDiff: pool diff prints a replaced line's removed version
// first, and counts elided lines in good English.
func TestLineDiff(t *testing.T) {
	var b strings.Builder
	a := "1\n2\n3\n4\n5\n6\n"
	changed := lineDiff(&b, a, "1\n2\n3\n4\nfive\n6\n", textdiff.DefaultContext)
	want := "@@ 1 unchanged line @@\n  2\n  3\n  4\n- 5\n+ five\n  6\n"
	if !changed || b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
