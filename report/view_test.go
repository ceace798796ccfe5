package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"policyevolve/evolve"
	"policyevolve/evolve/experiment"
	"policyevolve/internal/htmlcheck"
	"policyevolve/store"
)

// siteFrame is a Frame as a web server of the report's pages sets it.
func siteFrame() Frame {
	return Frame{Stylesheet: "/static/report.css", Script: "/static/live.js", Version: "7",
		Nav:       []Link{{"runs", "/"}, {"pools", "/pools/"}},
		PolicyURL: func(id string) string { return "/policies/" + url.PathEscape(id) },
		PoolURL:   func(name string) string { return (&url.URL{Path: "/pools/" + name}).EscapedPath() },
		RunURL:    func(id string) string { return "/runs/" + url.PathEscape(id) },
		ReplayURL: func(r ReplayRef) string { return "/replay/" + r.Policy + "?seed=0&env=" + url.QueryEscape(r.Env.Key()) },
		DiffPath:  "/diff", VersusPath: "/versus"}
}

// renderView writes v framed by f and checks it: strictly self-contained
// with the zero Frame, served (same-server links only) otherwise.
func renderView(t *testing.T, v View, f Frame) *htmlcheck.Page {
	t.Helper()
	var buf bytes.Buffer
	if err := WritePage(&buf, v, f); err != nil {
		t.Fatal(err)
	}
	check := htmlcheck.Check
	if f.Stylesheet != "" {
		check = htmlcheck.CheckServed
	}
	p, err := check(buf.Bytes())
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	p.Text = buf.String() // the markup: what the tests look for
	return p
}

// addMatch stores a match of a against b on the fixture's environment.
func addMatch(t *testing.T, s *store.Store, a, b string, seed uint64, outcome float64) {
	t.Helper()
	err := s.Update(func(tx *store.Tx) error {
		return tx.PutMatch(&store.Match{A: a, B: b, Env: fixtureEnv, Seed: seed, ScoreA: 10, ScoreB: 8, Outcome: outcome, Created: time.Now()})
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestViews: every page renders, well-formed, both as a file (no link
// out of the page) and as a served page (links to the site's pages).
func TestViews(t *testing.T) {
	f := newFixture(t)
	addMatch(t, f.s, f.p3, f.bfs, 0, 1)
	addMatch(t, f.s, f.x, f.p3, 0, 0)
	seed := uint64(0)
	views := []struct {
		name string
		load func() (View, error)
		want []string // in the served page
	}{
		{"runs", func() (View, error) { return LoadRuns(f.s) }, []string{`href="/runs/` + f.run + `"`, "2 of 3", `class="running"`}},
		{"run", func() (View, error) { return Load(f.s, f.run) }, []string{`href="/policies/` + f.p3 + `"`, `src="/replay/` + f.p3,
			`href="/pools/global/gathering/small/4/60"`, `<script src="/static/live.js"`, `content="7"`,
			"<td>pending</td>", "<td>refused</td><td>–</td><td>–</td><td>–</td><td class=\"text\">does not compile</td>", "<td>promoted</td><td>0.600</td>",
			"<h2>Pool</h2>"}}, // running: not the final pool yet
		{"policy", func() (View, error) { return LoadPolicy(f.s, f.p3[:10], &seed) }, []string{"// p3",
			`href="/policies/` + f.bfs + `"`, "<td>won</td>", `action="/diff"`, `src="/replay/` + f.p3, `fill="#00c800"/></svg>apple</span>`, "In the pool as promoted; Elo 1200.0, 0/0/0 (won/drawn/lost) in 0 mixed matches counted by elo"}},
		{"builtin", func() (View, error) { return LoadPolicy(f.s, f.bfs, nil) }, []string{"The built-in policy bfs"}},
		{"pool", func() (View, error) { return LoadPool(f.s, store.GlobalPool(fixtureEnv), "efficiency") }, []string{`class="sorted"`, "?sort=elo"}},
		{"pools", func() (View, error) { return LoadPools(f.s) }, []string{`href="/pools/global/gathering/small/4/60"`}},
		{"diff", func() (View, error) { return LoadDiff(f.s, f.p1, f.p3) }, []string{`class="del">- package policy // p1`, `class="add">&#43; package policy // p3`}},
		{"versus", func() (View, error) { return LoadVersus(f.s, f.p1, f.p3, "", nil) }, []string{`src="/replay/` + f.p1, `src="/replay/` + f.p3}},
		{"problem", func() (View, error) { return Problem{"Not in the store", "no run <b>"}, nil }, []string{"no run &lt;b&gt;"}},
	}
	for _, v := range views {
		t.Run(v.name, func(t *testing.T) {
			view, err := v.load()
			if err != nil {
				t.Fatal(err)
			}
			file := renderView(t, view, Frame{})
			if strings.Contains(file.Text, `href="/`) {
				t.Error("a page written as a file links to a site")
			}
			served := renderView(t, view, siteFrame())
			for _, w := range v.want {
				if !strings.Contains(served.Text, w) {
					t.Errorf("the served page has no %s", w)
				}
			}
		})
	}
}

// TestPolicyDetail: a policy's matches from its side, its rating and
// history, its evaluations; an unknown prefix is ErrNotFound.
func TestPolicyDetail(t *testing.T) {
	f := newFixture(t)
	addMatch(t, f.s, f.p1, f.x, 3, 1) // p1 won as A
	addMatch(t, f.s, f.x, f.p1, 4, 1) // p1 lost as B
	d, err := LoadPolicy(f.s, f.p1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.MatchCount != 2 || len(d.Ratings) != 1 || d.Ratings[0].Rating == nil || len(d.Ratings[0].Rating.History) != 3 ||
		len(d.Evaluations) != 1 || d.Replay == nil || d.Replay.Seed != 0 || d.ReplayMap == nil {
		t.Fatalf("detail: %d matches, ratings %+v, %d evaluations, replay %+v", d.MatchCount, d.Ratings, len(d.Evaluations), d.Replay)
	}
	p := renderView(t, d, siteFrame())
	if strings.Count(p.Text, "<td>won</td>") != 1 || strings.Count(p.Text, "<td>lost</td>") != 1 {
		t.Error("the matches are not told from the policy's side: one won, one lost")
	}
	if !strings.Contains(p.Text, "Elo in global/gathering/small/4/60") || p.Elements["polyline"] != 1 {
		t.Errorf("no Elo history chart (%d lines)", p.Elements["polyline"])
	}
	if _, err := LoadPolicy(f.s, "ffffffff", nil); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("unknown prefix: %v", err)
	}
}

// TestPoolSort: a pool sorted by each column, best first, members without
// the value last.
func TestPoolSort(t *testing.T) {
	f := newFixture(t)
	pool := store.GlobalPool(fixtureEnv)
	for _, c := range []struct {
		by   string
		want []string
	}{
		{"", []string{f.p1, f.p3, f.bfs}}, // Elo 1240, 1200, 1180
		{"efficiency", []string{f.p3, f.p1, f.bfs}},
		{"equality", []string{f.p1, f.p3, f.bfs}},
		{"games", []string{f.p1, f.bfs, f.p3}},
	} {
		d, err := LoadPool(f.s, pool, c.by)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, m := range d.Members {
			got = append(got, m.Policy.ID)
		}
		if strings.Join(got, ",") != strings.Join(c.want, ",") {
			t.Errorf("sorted by %q: %v, want %v", c.by, short3(got), short3(c.want))
		}
	}
	if _, err := LoadPool(f.s, pool, "colour"); err == nil {
		t.Error("an unknown column is accepted")
	}
	// A welfare pool is sorted by its objective's score, efficiency,
	// unless asked otherwise (as pool ls and the report sort it).
	welfare := store.PoolKey{Env: fixtureEnv, Objective: "welfare"}.String()
	if err := f.s.Update(func(tx *store.Tx) error {
		for _, id := range []string{f.p1, f.p3, f.bfs} {
			if err := tx.AddMember(&store.Member{Policy: id, Pool: welfare, Reason: "promoted"}); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if d, err := LoadPool(f.s, welfare, ""); err != nil || d.Sort != "efficiency" || d.Members[0].Policy.ID != f.p3 {
		t.Errorf("a welfare pool by default: %v, sorted by %q", err, d.Sort)
	}
	if _, err := LoadPool(f.s, "global/none/x/1/1", ""); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown pool: %v", err)
	}
}

func short3(ids []string) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = short(id, 8)
	}
	return out
}

// TestRunListObjective: the list shows the objective a run's stored
// configuration records, and elo for one stored before objectives (what
// it ran under).
func TestRunListObjective(t *testing.T) {
	f := newFixture(t)
	cfg, _ := json.Marshal(evolve.JobConfig{Mode: evolve.ModePopulation, Game: "cleanup", Agents: 5, Steps: 100, EvalSeeds: []uint64{0}})
	var m map[string]any
	json.Unmarshal(cfg, &m)
	m["objective"] = "welfare"
	cfg, _ = json.Marshal(m)
	err := f.s.Update(func(tx *store.Tx) error {
		return tx.CreateRun(&store.Run{Mode: evolve.ModePopulation, Config: cfg, Status: store.StatusDone})
	})
	if err != nil {
		t.Fatal(err)
	}
	l, err := LoadRuns(f.s)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Runs) != 2 || l.Runs[0].Objective != "welfare" || l.Runs[1].Objective != "elo" || l.Runs[1].Record.ID != f.run {
		t.Fatalf("runs, newest first: %+v", l.Runs)
	}
	p := renderView(t, l, siteFrame())
	if !strings.Contains(p.Text, "<td>welfare</td>") || !strings.Contains(p.Text, "cleanup/default/5/100") {
		t.Error("the list does not show the objective and environment")
	}
}

// evilSource is a policy source as a model might write it to break out
// of a page: it closes the element holding it and opens a script.
const evilSource = "package policy\n\n// </script><script>window.pwned=1</script>\nvar s = \"</code></pre><img src=x onerror=alert(1)>\"\n"

// TestUntrustedSourceIsText: on every page that shows a source (a
// policy, a run's champion, a diff), the source is text: the page stays
// well-formed with no script but the site's own, and the text reads back
// exactly.
func TestUntrustedSourceIsText(t *testing.T) {
	f := newFixture(t)
	var evil string
	err := f.s.Update(func(tx *store.Tx) error {
		p := &store.Policy{Source: evilSource, Origin: store.Origin{Run: f.run, Operator: "improve", Parents: []string{f.p3}}}
		if _, err := tx.PutPolicy(p); err != nil {
			return err
		}
		evil = p.ID
		r, err := tx.Run(f.run)
		if err != nil {
			return err
		}
		r.Champion = evil
		return tx.PutRun(r)
	})
	if err != nil {
		t.Fatal(err)
	}
	pol, err := LoadPolicy(f.s, evil, nil)
	if err != nil {
		t.Fatal(err)
	}
	run, err := Load(f.s, f.run)
	if err != nil {
		t.Fatal(err)
	}
	diff, err := LoadDiff(f.s, f.p3, evil)
	if err != nil {
		t.Fatal(err)
	}
	for name, v := range map[string]View{"policy": pol, "run": run, "diff": diff} {
		for _, fr := range []Frame{{}, siteFrame()} {
			p := renderView(t, v, fr)
			scripts := 0
			if fr.Script != "" {
				scripts = 1
			}
			if p.Elements["script"] != scripts || p.Elements["img"] > 1 {
				t.Errorf("%s: %d script and %d img elements: the source broke out", name, p.Elements["script"], p.Elements["img"])
			}
			if strings.Contains(p.Text, "</script><script>") {
				t.Errorf("%s: the source's markup is in the page unescaped", name)
			}
		}
	}
	p := renderView(t, pol, siteFrame())
	if got := p.IDs["source-code"]; got != evilSource {
		t.Errorf("the source reads back as %q, want %q", got, evilSource)
	}
}

// TestRunListOrderAndMap: the front page lists runs newest first by
// their number (run-12, run-11, run-10, run-9 …, not as strings sort),
// and a Gathering run on its default map shows that map (large), not
// Gathering's map called default.
func TestRunListOrderAndMap(t *testing.T) {
	f := newFixture(t)
	cfg, _ := json.Marshal(evolve.JobConfig{Mode: evolve.ModePopulation, Game: "gathering", Agents: 10, Steps: 1000, EvalSeeds: []uint64{0}})
	err := f.s.Update(func(tx *store.Tx) error {
		for range 11 {
			if err := tx.CreateRun(&store.Run{Mode: evolve.ModePopulation, Config: cfg, Status: store.StatusDone}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	l, err := LoadRuns(f.s)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range l.Runs {
		ids = append(ids, r.Record.ID)
	}
	want := []string{"run-12", "run-11", "run-10", "run-9", "run-8", "run-7", "run-6", "run-5", "run-4", "run-3", "run-2", "run-1"}
	if !slices.Equal(ids, want) {
		t.Fatalf("runs in the list: %v, want %v", ids, want)
	}
	p := renderView(t, l, siteFrame())
	if !strings.Contains(p.Text, "gathering/large/10/1000") || strings.Contains(p.Text, "gathering/default/") {
		t.Error("a Gathering run on the default map is not shown on the large map")
	}
	if i, j := strings.Index(p.Text, `href="/runs/run-11"`), strings.Index(p.Text, `href="/runs/run-9"`); i < 0 || j < 0 || i > j {
		t.Errorf("run-11 is not listed before run-9 (%d, %d)", i, j)
	}
}

// TestComparePageRunLinks: on the served comparison page a method's runs
// are links to their pages; counts are whole numbers.
func TestComparePageRunLinks(t *testing.T) {
	one := func(v float64) experiment.Stat { var s experiment.Stat; s.Add(v); return s }
	c := &Comparison{ID: "cmp-1", Runs: 1, Budget: 12, Rows: []CompareRow{{Method: "chain", Runs: []string{"run-7"}, Statuses: []string{"done"},
		PlannerCalls: one(12), LLMCalls: one(0), Tokens: one(0), Efficiency: one(0.5),
		Progress: []experiment.ProgressPoint{{Calls: 1, Best: one(0.25)}, {Calls: 12, Best: one(0.5)}}}}}
	f := siteFrame()
	p := newComparePage(c, &f)
	if len(p.Rows) != 1 || len(p.Rows[0].Runs) != 1 || p.Rows[0].Runs[0].Href == "" {
		t.Fatalf("rows %+v", p.Rows)
	}
	if got := p.Rows[0].Cells[6]; got != "12" {
		t.Errorf("planner calls %q, want 12", got)
	}
	if p.Progress == nil || len(p.Progress.Calls) != 2 || p.Progress.Rows[0].Cells[1] != "0.500" {
		t.Errorf("best so far %+v", p.Progress)
	}
	if !strings.Contains(p.About, "1 run per method, 12 planner calls per run") {
		t.Errorf("about: %q", p.About)
	}
}

// TestReplaySeedsOfEveryEvaluation: a champion evaluated on seeds 0–1 and
// rechecked on 5–6 (two evaluations) links replays of all four.
func TestReplaySeedsOfEveryEvaluation(t *testing.T) {
	env := store.EnvConfig{Game: "gathering", Map: "small", Agents: 4, MaxSteps: 60}
	other := env
	other.Agents = 2
	evs := []store.Evaluation{{Env: env, Seeds: []uint64{5, 6}}, {Env: other, Seeds: []uint64{9}}, {Env: env, Seeds: []uint64{0, 1}}}
	if got := replaySeeds(evs, env); !slices.Equal(got, []uint64{0, 1, 5, 6}) {
		t.Errorf("replay seeds %v, want 0 1 5 6", got)
	}
}
