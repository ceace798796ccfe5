package report

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"image/gif"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"policyevolve/evolve"
	"policyevolve/evolve/episode"
	"policyevolve/internal/htmlcheck"
	"policyevolve/internal/storetest"
	"policyevolve/store"
)

// fixture is a store holding one population run in the middle of its
// third iteration (as a job killed there leaves it), with every kind of
// record the report reads, at known times.
type fixture struct {
	s                      *store.Store
	run                    string
	p0, p1, p2, p3, x, bfs string
}

// The run's environment and its pool.
var fixtureEnv = store.EnvConfig{Game: "gathering", Map: "small", Agents: 4, MaxSteps: 60}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	s := storetest.Open(t, filepath.Join(t.TempDir(), "r.db"))
	f := &fixture{s: s}
	base := time.Now().UTC().Add(-time.Hour)
	at := func(m int) time.Time { return base.Add(time.Duration(m) * time.Minute) }
	pool := store.GlobalPool(fixtureEnv)
	cfg, _ := json.Marshal(evolve.JobConfig{Mode: evolve.ModePopulation, Game: "gathering", Map: "small", Agents: 4, Steps: 60,
		EvalSeeds: []uint64{0}, MatchSeeds: []uint64{0}, Iterations: 3, Candidates: 2, Planners: []string{"grammar"}})
	err := s.Update(func(tx *store.Tx) error {
		r := &store.Run{Mode: evolve.ModePopulation, Config: cfg, Status: store.StatusRunning, Started: base}
		if err := tx.CreateRun(r); err != nil {
			return err
		}
		if _, err := tx.TakeLease(r.ID, store.Self()); err != nil { // this process drives it: running
			return err
		}
		f.run = r.ID
		sample := 0 // of the next policy put
		put := func(src, op string, parents ...string) string {
			p := &store.Policy{Source: src, Origin: store.Origin{Run: r.ID, Operator: op, Planner: "grammar", Parents: parents, Sample: sample}}
			if op == "builtin" {
				p.Builtin, p.Name, p.Origin = "bfs", "bfs", store.Origin{Operator: op}
			}
			if _, err := tx.PutPolicy(p); err != nil {
				t.Fatal(err)
			}
			return p.ID
		}
		f.bfs = put(episode.BuiltinSource("bfs"), "builtin")
		f.p0 = put("package policy // p0\n", "init")
		sample = store.LocalRoundStride // p0's local refinement, round 1
		f.p1 = put("package policy // p1\n", "improve", f.p0)
		sample = 0
		f.p2 = put("package policy // p2\n", "improve", f.p0)
		f.p3 = put("package policy // p3\n", "crossover", f.p1, f.p2)
		f.x = put("package policy // x\n", "init")
		metrics := map[string]store.Metrics{f.bfs: m(0.5, 0.6, 20, 4), f.p1: m(0.58, 0.9, 25, 4), f.p3: m(0.6, 0.8, 24, 3.5)}
		for id, mean := range metrics {
			ev := &store.Evaluation{Policy: id, Env: fixtureEnv, Seeds: []uint64{0}, Status: store.StatusOK, Mean: mean,
				PerSeed: []store.SeedResult{{Seed: 0, Status: store.StatusOK, Metrics: mean}}}
			if err := tx.PutEvaluation(ev); err != nil {
				return err
			}
		}
		// The pool: bfs from before the run, p1 promoted in iteration
		// 0, p3 in iteration 1; p2, promoted in iteration 1, was evicted.
		members := []struct {
			id      string
			added   int
			history map[int]float64
		}{
			{f.bfs, -10, map[int]float64{5: 1190, 15: 1180}},
			{f.p1, 8, map[int]float64{9: 1215, 18: 1230, 30: 1240}},
			{f.p3, 19, nil},
		}
		for _, m := range members {
			if err := tx.AddMember(&store.Member{Policy: m.id, Pool: pool, Added: at(m.added), Reason: "promoted"}); err != nil {
				return err
			}
			rt := &store.Rating{Policy: m.id, Pool: pool, Elo: 1200}
			var mins []int
			for k := range m.history {
				mins = append(mins, k)
			}
			slices.Sort(mins)
			for _, k := range mins {
				rt.Elo = m.history[k]
				rt.Games++
				rt.Wins++
				rt.History = append(rt.History, store.RatingPoint{Time: at(k), Elo: rt.Elo, Opponent: f.x, Outcome: 1})
			}
			if err := tx.PutRating(rt); err != nil {
				return err
			}
		}
		its := []store.Iteration{
			{Index: 0, Done: true, Started: at(1), Finished: at(10), Champion: f.p1, Best: metrics[f.p1], BestElo: 1215,
				Plan: []store.PlannedCandidate{{Sample: 0}, {Sample: 1}}, Candidates: []store.Candidate{
					{Sample: 0, Policy: f.p1, Local: []string{f.p0, f.p1}, Status: store.CandidatePromoted, Metrics: metrics[f.p1], Elo: 1215},
					{Sample: 1, Policy: f.x, Status: store.CandidateRejected, Metrics: m(0.4, 0.5, 30, 2), Elo: 1180}}},
			{Index: 1, Done: true, Started: at(11), Finished: at(20), Champion: f.p3, Best: metrics[f.p3],
				Plan: []store.PlannedCandidate{{Sample: 0}, {Sample: 1}}, Candidates: []store.Candidate{
					{Sample: 0, Policy: f.p2, Status: store.CandidatePromoted, Metrics: m(0.55, 0.7, 22, 4), Elo: 1222},
					{Sample: 1, Policy: f.p3, Status: store.CandidatePromoted, Metrics: metrics[f.p3], Elo: 1200}}},
			{Index: 2, Started: at(21), Plan: []store.PlannedCandidate{{Sample: 0}, {Sample: 1}}, Candidates: []store.Candidate{
				{Sample: 0, Status: store.CandidateRefused, Problem: "does not compile"}}},
		}
		for i := range its {
			its[i].Run = r.ID
			if err := tx.PutIteration(&its[i]); err != nil {
				return err
			}
		}
		r.Iterations, r.Champion = 2, f.p3
		return tx.PutRun(r)
	})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// m is a Metrics in the paper's order.
func m(efficiency, equality, sustainability, peace float64) store.Metrics {
	return store.Metrics{Efficiency: efficiency, Equality: equality, Sustainability: sustainability, Peace: peace}
}

func load(t *testing.T, s *store.Store, id string) *Report {
	t.Helper()
	ro, err := store.Open(s.Path(), store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	r, err := Load(ro, id)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func sameFloats(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return x == y || math.IsNaN(x) && math.IsNaN(y) })
}

var nan = math.NaN()

// TestEloHistory: the pool's Elo at the start and after each iteration,
// read from the ratings' histories; the unfinished iteration is read at
// the run's last update.
func TestEloHistory(t *testing.T) {
	f := newFixture(t)
	h := load(t, f.s, f.run).Run.Elo
	if want := []string{"start", "0", "1", "2"}; !slices.Equal(h.Labels, want) {
		t.Errorf("labels %v, want %v", h.Labels, want)
	}
	wantLines := []EloLine{
		{Policy: f.p1, Values: []float64{nan, 1215, 1230, 1240}},
		{Policy: f.p3, Values: []float64{nan, nan, 1200, 1200}},
		{Policy: f.bfs, Name: "bfs", Values: []float64{1200, 1190, 1180, 1180}},
	}
	if len(h.Members) != len(wantLines) {
		t.Fatalf("%d member lines, want %d: %+v", len(h.Members), len(wantLines), h.Members)
	}
	for i, w := range wantLines {
		if g := h.Members[i]; g.Policy != w.Policy || g.Name != w.Name || !sameFloats(g.Values, w.Values) {
			t.Errorf("line %d: got %.8s %q %v, want %.8s %q %v", i, g.Policy, g.Name, g.Values, w.Policy, w.Name, w.Values)
		}
	}
	if want := []float64{1200, 1202.5, 1200, 1200}; !sameFloats(h.Median, want) {
		t.Errorf("median %v, want %v", h.Median, want)
	}
	// Iteration 0 stored its champion's Elo; iteration 1 did not (its
	// line gives it); iteration 2 has no champion yet.
	if want := []float64{nan, 1215, 1200, nan}; !sameFloats(h.Champion, want) {
		t.Errorf("champion %v, want %v", h.Champion, want)
	}
	if want := []EloMark{{Policy: f.p2, Point: 2, Elo: 1222}}; !slices.Equal(h.Evicted, want) {
		t.Errorf("evicted %+v, want %+v", h.Evicted, want)
	}
}

// TestLineage: the champion's ancestry, a local version's edge labelled
// refine, a shared ancestor shown once and then marked.
func TestLineage(t *testing.T) {
	f := newFixture(t)
	l := load(t, f.s, f.run).Run.Lineage
	var b strings.Builder
	var walk func(n *Node, depth int)
	walk = func(n *Node, depth int) {
		b.WriteString(strings.Repeat("  ", depth) + short(n.Policy, 4) + " " + n.Operator)
		if n.Repeat {
			b.WriteString(" (repeat)")
		}
		b.WriteString("\n")
		for _, p := range n.Parents {
			walk(p, depth+1)
		}
	}
	walk(l.Root, 0)
	want := short(f.p3, 4) + " crossover\n  " + short(f.p1, 4) + " refine\n    " + short(f.p0, 4) + " init\n  " +
		short(f.p2, 4) + " improve\n    " + short(f.p0, 4) + " init (repeat)\n"
	if b.String() != want || l.Nodes != 5 || l.Hidden != 0 {
		t.Errorf("lineage (%d nodes, %d hidden):\n%s\nwant:\n%s", l.Nodes, l.Hidden, b.String(), want)
	}
	// A bound on the nodes hides the farthest.
	err := f.s.View(func(tx *store.Tx) error {
		l, err := lineage(tx, f.p3, 3)
		if err == nil && (l.Nodes != 3 || l.Hidden != 2) {
			t.Errorf("bounded to 3: %d nodes, %d hidden", l.Nodes, l.Hidden)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	tr := l.layout()
	if len(tr.Nodes) != 5 || len(tr.Edges) != 4 || tr.W != 2*treeSlot || tr.H != 2*treeInset+treeBoxH+2*treeRow {
		t.Errorf("layout: %d nodes, %d edges, %dx%d", len(tr.Nodes), len(tr.Edges), tr.W, tr.H)
	}
}

// TestMembersAndMetrics: the final pool best rated first; per iteration
// the best and median of the candidates that were evaluated.
func TestMembersAndMetrics(t *testing.T) {
	f := newFixture(t)
	r := load(t, f.s, f.run).Run
	var got []string
	for _, m := range r.Members {
		got = append(got, short(m.Policy.ID, 8))
	}
	if want := []string{short(f.p1, 8), short(f.p3, 8), short(f.bfs, 8)}; !slices.Equal(got, want) {
		t.Errorf("members %v, want %v", got, want)
	}
	if m := r.Members[1]; !m.Champion || !m.Evaluated || m.Metrics.Efficiency != 0.6 || m.Elo != 1200 {
		t.Errorf("champion's row %+v", m)
	}
	best, med, champ := metricSeries(r, 0)
	if want := []float64{0.58, 0.6, nan}; !sameFloats(best, want) {
		t.Errorf("best efficiency %v, want %v", best, want)
	}
	if want := []float64{0.49, 0.575, nan}; !sameFloats(med, want) {
		t.Errorf("median efficiency %v, want %v", med, want)
	}
	if want := []float64{0.58, 0.6, nan}; !sameFloats(champ, want) {
		t.Errorf("champion efficiency %v, want %v", champ, want)
	}
}

// TestWriteRunInProgress: the page of a run in progress is well-formed,
// self-contained, and holds its charts, tree, tables and champion.
func TestWriteRunInProgress(t *testing.T) {
	f := newFixture(t)
	r := load(t, f.s, f.run)
	var buf bytes.Buffer
	if err := r.Write(&buf); err != nil {
		t.Fatal(err)
	}
	p, err := htmlcheck.Check(buf.Bytes())
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	if p.IDs["champion-id"] != f.p3 {
		t.Errorf("champion-id holds %q, want %s", p.IDs["champion-id"], f.p3)
	}
	// Four metric charts, the Elo chart and the lineage.
	if p.Elements["svg"] != 6 || p.Elements["polyline"] == 0 || p.Elements["rect"] != 5 {
		t.Errorf("elements %v", p.Elements)
	}
	for _, want := range []string{"in progress", "refine", "crossover", "1 refused, 1 pending", "evicted since", "package policy // p3",
		"its efficiency (seeds 0)", "efficiency (seeds 0)"} {
		if !strings.Contains(p.Text, want) {
			t.Errorf("the page does not say %q", want)
		}
	}
}

// TestChainRun: a chain has no pool: its policies in order, no Elo.
func TestChainRun(t *testing.T) {
	f := newFixture(t)
	cfg, _ := json.Marshal(evolve.JobConfig{Mode: evolve.ModeChain, Game: "gathering", Map: "small", Agents: 4, Steps: 60,
		EvalSeeds: []uint64{0}, Iterations: 1})
	var id string
	err := f.s.Update(func(tx *store.Tx) error {
		r := &store.Run{Mode: evolve.ModeChain, Config: cfg, Status: store.StatusDone, Iterations: 2, Champion: f.p1}
		if err := tx.CreateRun(r); err != nil {
			return err
		}
		id = r.ID
		for i, p := range []string{f.p0, f.p1} {
			it := &store.Iteration{Run: id, Index: i, Done: true, Champion: f.p1, Plan: make([]store.PlannedCandidate, 1),
				Candidates: []store.Candidate{{Policy: p, Status: store.CandidateEvaluated}}}
			if err := tx.PutIteration(it); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	rep := load(t, f.s, id)
	if rep.Run.Elo != nil || rep.Run.Pool != "" || len(rep.Run.Members) != 2 || rep.Run.Members[0].Policy.ID != f.p0 || rep.Compare != nil {
		t.Fatalf("chain run: %+v", rep.Run)
	}
	var buf bytes.Buffer
	if err := rep.Write(&buf); err != nil {
		t.Fatal(err)
	}
	p, err := htmlcheck.Check(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p.Text, "A chain plays no matches") || p.Elements["svg"] != 5 {
		t.Errorf("chain page: %d svg, text:\n%s", p.Elements["svg"], p.Text)
	}
}

func TestLoadUnknown(t *testing.T) {
	f := newFixture(t)
	for _, id := range []string{"run-99", "cmp-0000ffff"} {
		_, err := Load(f.s, id)
		if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), id) {
			t.Errorf("Load(%s): %v", id, err)
		}
	}
}

// TestReplayBuiltin: a built-in champion is replayed without a sandbox:
// the frames asked for, at the scale asked for.
func TestReplayBuiltin(t *testing.T) {
	f := newFixture(t)
	err := f.s.Update(func(tx *store.Tx) error {
		r, err := tx.Run(f.run)
		if err != nil {
			return err
		}
		r.Champion = f.bfs
		return tx.PutRun(r)
	})
	if err != nil {
		t.Fatal(err)
	}
	rep := load(t, f.s, f.run)
	if err := rep.AddReplay(context.Background(), ReplayOptions{From: 5, To: 20, Scale: 3}); err != nil {
		t.Fatal(err)
	}
	rp := rep.Run.Replay
	if rp.Note != "" || len(rp.GIF) == 0 {
		t.Fatalf("no replay: %q", rp.Note)
	}
	g, err := gif.DecodeAll(bytes.NewReader(rp.GIF))
	if err != nil {
		t.Fatal(err)
	}
	m := rep.Run.Env.Map
	if len(g.Image) != 16 || g.Config.Width != 3*m.Width || g.Config.Height != 3*m.Height || rp.Width != g.Config.Width {
		t.Errorf("GIF of %d frames, %dx%d (map %dx%d)", len(g.Image), g.Config.Width, g.Config.Height, m.Width, m.Height)
	}
	// Frames past the episode are cut; a range wholly past it is a note.
	if err := rep.AddReplay(context.Background(), ReplayOptions{From: 50, To: 500}); err != nil {
		t.Fatal(err)
	}
	if rp := rep.Run.Replay; rp.To != 60 || len(rp.GIF) == 0 {
		t.Errorf("frames 50-500 of a 60-step episode: %d-%d, %q", rp.From, rp.To, rp.Note)
	}
	if err := rep.AddReplay(context.Background(), ReplayOptions{From: 70}); err != nil {
		t.Fatal(err)
	}
	if rp := rep.Run.Replay; len(rp.GIF) != 0 || !strings.Contains(rp.Note, "not in the episode") {
		t.Errorf("frames from 70 of a 60-step episode: %q", rp.Note)
	}
	var buf bytes.Buffer
	if err := rep.Write(&buf); err != nil {
		t.Fatal(err)
	}
	if _, err := htmlcheck.Check(buf.Bytes()); err != nil {
		t.Fatal(err)
	}
}

// TestSeedsNote: a run's page names the seeds its contenders for
// champion were rechecked on, when it rechecked (chain and population),
// and not for GEPA or a run stored before rechecks (off).
func TestSeedsNote(t *testing.T) {
	for _, tc := range []struct {
		cfg  evolve.JobConfig
		want string
	}{
		{evolve.JobConfig{Mode: evolve.ModeChain}, "self-play 0-4, contenders for champion also 5-24, matches 0"},
		{evolve.JobConfig{Mode: evolve.ModePopulation, EvalSeeds: []uint64{0, 1}, Recheck: evolve.On(3)}, "self-play 0,1, contenders for champion also 2-4, matches 0"},
		{evolve.JobConfig{Mode: evolve.ModePopulation, Recheck: evolve.Off[int]()}, "self-play 0-4, matches 0"},
		{evolve.JobConfig{Mode: evolve.ModeGEPA}, "self-play 0-4, matches 0"},
	} {
		if got := seedsNote(tc.cfg.WithDefaults()); got != tc.want {
			t.Errorf("%s, recheck %v: %q, want %q", tc.cfg.Mode, tc.cfg.Recheck, got, tc.want)
		}
	}
}
