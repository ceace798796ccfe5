package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"html"
	"image/gif"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"policyevolve/envs"
	"policyevolve/envs/ssd"
	"policyevolve/evolve/experiment"
	"policyevolve/internal/htmlcheck"
	"policyevolve/render"
	"policyevolve/report"
	"policyevolve/store"
)

// TestReport makes a small offline comparison — compare with a budget of
// four planner calls, which stores a chain run (run-1), a population run
// of two iterations (run-2) and their league — and reports on it: each
// run, the comparison, a run killed in the middle of an iteration, the
// errors, and the page as headless Chromium renders it.
func TestReport(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "pe.db")
	out, _ := cli(t, "compare", "--store", db, "--game", "gathering", "--map", "small", "--agents", "4", "--steps", "60",
		"--budget", "4", "--runs", "1", "--candidates", "2", "--local-rounds", "0", "--seeds", "0", "-o", filepath.Join(dir, "cmp"), "--json")
	var cmp experiment.Report
	if err := json.Unmarshal([]byte(out), &cmp); err != nil {
		t.Fatalf("compare --json: %v\n%s", err, out)
	}
	ro, err := store.Open(db, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	var runs map[string]store.Run
	err = ro.View(func(tx *store.Tx) error {
		rs, err := tx.Runs()
		runs = map[string]store.Run{}
		for _, r := range rs {
			runs[r.ID] = r
		}
		return err
	})
	if err != nil || runs["run-1"].Mode != "chain" || runs["run-2"].Mode != "population" || runs["run-2"].Iterations != 2 {
		t.Fatalf("compare's runs: %v %+v", err, runs)
	}

	// page writes a report and checks it: well-formed, self-contained,
	// champion and charts in it.
	page := func(t *testing.T, id, file string, args ...string) *htmlcheck.Page {
		t.Helper()
		out, errOut := cli(t, append([]string{"report", id, "-o", file, "--store", db}, args...)...)
		if !strings.HasPrefix(out, "wrote "+file) || errOut != "" {
			t.Errorf("report %s: stdout %q, stderr %q", id, out, errOut)
		}
		wantUserMode(t, file)
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		p, err := htmlcheck.Check(b)
		if err != nil {
			t.Fatalf("report %s: %v", id, err)
		}
		if champ := runs[id].Champion; champ != "" && p.IDs["champion-id"] != champ {
			t.Errorf("report %s: champion-id %q, want %s", id, p.IDs["champion-id"], champ)
		}
		return p
	}

	run2 := filepath.Join(dir, "run-2.html")
	t.Run("population", func(t *testing.T) {
		p := page(t, "run-2", run2)
		// Four metric charts, Elo, lineage, six comparison charts, and a
		// swatch per colour of the replay's key.
		if p.Elements["svg"] != 12+len(render.Legend(ssd.Gathering)) || p.Elements["img"] != 1 {
			t.Errorf("elements %v", p.Elements)
		}
		for _, want := range []string{"Elo of global/gathering/small/4/60@welfare#cmp-", "Champion by welfare", "Final pool", "Comparison cmp-", "package policy"} {
			if !strings.Contains(p.Text, want) {
				t.Errorf("the page does not say %q", want)
			}
		}
		// The replay: frames 0-60 of seed 0 (the episode has 60 steps),
		// at the default scale.
		b, _ := os.ReadFile(run2)
		m := regexp.MustCompile(`src="data:image/gif;base64,([^"]+)"`).FindSubmatch(b)
		if m == nil {
			t.Fatal("no replay GIF in the page")
		}
		raw, err := base64.StdEncoding.DecodeString(html.UnescapeString(string(m[1])))
		if err != nil {
			t.Fatal(err)
		}
		g, err := gif.DecodeAll(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		game, _ := ssd.ParseGame("gathering")
		small, _ := envs.BuiltinMap(game, "small")
		if len(g.Image) != 61 || g.Config.Width != small.Width*report.DefaultReplayScale {
			t.Errorf("replay: %d frames, %d pixels wide", len(g.Image), g.Config.Width)
		}
		t.Logf("page %d bytes, replay GIF %d bytes (%d frames, %dx%d)", len(b), len(raw), len(g.Image), g.Config.Width, g.Config.Height)
	})
	t.Run("chain", func(t *testing.T) {
		p := page(t, "run-1", filepath.Join(dir, "run-1.html"), "--no-replay")
		if !strings.Contains(p.Text, "A chain plays no matches") || !strings.Contains(p.Text, "The chain's policies") || p.Elements["img"] != 0 {
			t.Errorf("chain page: %v\n%s", p.Elements, p.Text)
		}
	})
	t.Run("comparison", func(t *testing.T) {
		rep, err := report.Load(ro, "run-1")
		if err != nil || rep.Compare == nil {
			t.Fatalf("run-1's comparison: %v", err)
		}
		id := rep.Compare.ID
		if rep, err = report.Load(ro, id); err != nil {
			t.Fatal(err)
		}
		// The comparison as the store rebuilds it is compare's, number
		// for number.
		c := rep.Compare
		if len(c.Rows) != len(cmp.Rows) || !c.League {
			t.Fatalf("%d rows (league %v), compare printed %d", len(c.Rows), c.League, len(cmp.Rows))
		}
		for i, want := range cmp.Rows {
			got := c.Rows[i]
			ws := []experiment.Stat{want.Efficiency, want.Equality, want.Sustainability, want.Peace, want.Rating, want.Exploitability,
				want.PlannerCalls, want.LLMCalls, want.Tokens, want.Cost, want.WallSeconds}
			gs := []experiment.Stat{got.Efficiency, got.Equality, got.Sustainability, got.Peace, got.Rating, got.Exploitability,
				got.PlannerCalls, got.LLMCalls, got.Tokens, got.Cost, got.WallSeconds}
			for k := range ws {
				if w, g := ws[k], gs[k]; g.Mean != w.Mean || g.Min != w.Min || g.Max != w.Max || g.N != w.N {
					t.Errorf("%s, column %s: report %+v, compare %+v", want.Method, experiment.Columns[k+1], g, w)
				}
			}
			if got.Method != want.Method || strings.Join(got.Runs, " ") != strings.Join(want.Runs, " ") {
				t.Errorf("row %d: %s %v, compare %s %v", i, got.Method, got.Runs, want.Method, want.Runs)
			}
		}
		p := page(t, id, filepath.Join(dir, "cmp.html"))
		if p.Elements["svg"] != 6 || !strings.Contains(p.Text, "chain against population") {
			t.Errorf("comparison page: %v", p.Elements)
		}
	})
	t.Run("killed", func(t *testing.T) {
		// A job killed in the middle of its second iteration leaves the
		// run running and the iteration open: the report shows so much.
		b, err := os.ReadFile(db)
		if err != nil {
			t.Fatal(err)
		}
		killed := filepath.Join(dir, "killed.db")
		if err := os.WriteFile(killed, b, 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := store.Open(killed, store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		err = s.Update(func(tx *store.Tx) error {
			r, err := tx.Run("run-2")
			if err != nil {
				return err
			}
			it, err := tx.Iteration("run-2", 1)
			if err != nil {
				return err
			}
			it.Done, it.Champion, it.BestElo, it.Finished = false, "", 0, time.Time{}
			r.Status, r.StopReason, r.Iterations = store.StatusRunning, "", 1
			if err := tx.PutIteration(it); err != nil {
				return err
			}
			return tx.PutRun(r)
		})
		if err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(dir, "killed.html")
		cli(t, "report", "run-2", "-o", file, "--store", killed, "--no-replay")
		b, _ = os.ReadFile(file)
		p, err := htmlcheck.Check(b)
		if err != nil {
			t.Fatal(err)
		}
		// Stored running with no process behind it: interrupted.
		for _, want := range []string{"The run was interrupted", "its process is gone", "evolve --resume run-2", "1 of 4 done", "in progress"} {
			if !strings.Contains(p.Text, want) {
				t.Errorf("the page does not say %q", want)
			}
		}
	})
	t.Run("errors", func(t *testing.T) {
		out := filepath.Join(dir, "x.html")
		for _, c := range []struct {
			args []string
			code int
			want string
		}{
			{[]string{"run-9", "-o", out, "--store", db}, exitFailure, `no run "run-9" in the store`},
			{[]string{"cmp-00000000", "-o", out, "--store", db}, exitFailure, `no comparison "cmp-00000000"`},
			{[]string{"run-1", "-o", out, "--store", filepath.Join(dir, "none.db")}, exitFailure, "no store at"},
			{[]string{"run-1", "--store", db}, exitUsage, "-o is required"},
			{[]string{"run-1", "-o", filepath.Join(dir, "out.png"), "--store", db}, exitUsage, "report writes an HTML page, whatever the name says"},
			{[]string{"run-1", "run-2", "-o", out, "--store", db}, exitUsage, "want one run id"},
			{[]string{"run-1", "-o", out, "--store", db, "--bogus"}, exitUsage, "unknown flag --bogus"},
			{[]string{"run-1", "-o", out, "--store", db, "--scale", "0"}, exitUsage, "--scale 0: out of range"},
			{[]string{"run-1", "-o", "/nonexistent/dir/r.html", "--store", db, "--no-replay"}, exitFailure,
				"policyevolve report: -o: create /nonexistent/dir/r.html: no such file or directory\n"},
			{[]string{"run-1", "-o", out, "--store", db, "--replay-steps", "9-3"}, exitUsage, "--replay-steps"},
			{[]string{"run-1", "-o", out, "--store", db, "--no-replay", "--backend", "java"}, exitUsage, "--backend"},
		} {
			code, stdout, stderr := runCLI(t, context.Background(), append([]string{"report"}, c.args...)...)
			if code != c.code || !strings.Contains(stderr, c.want) || strings.Count(stderr, "\n") != 1 || stdout != "" {
				t.Errorf("report %v: exit %d, stdout %q, stderr %q; want exit %d and one line with %q", c.args, code, stdout, stderr, c.code, c.want)
			}
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("a failed report left %s", out)
		}
	})
	t.Run("chromium", func(t *testing.T) { testChromium(t, run2, runs["run-2"].Champion) })
}
