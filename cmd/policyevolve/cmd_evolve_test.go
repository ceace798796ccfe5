package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"policyevolve/evolve"
	"policyevolve/evolve/episode"
	"policyevolve/llm"
	"policyevolve/store"
)

// evolveEvents runs evolve with --json and returns its events and the
// summary line.
func evolveEvents(t *testing.T, args ...string) ([]evolve.Event, *store.Run) {
	t.Helper()
	code, out, errOut := runCLI(t, context.Background(), append([]string{"evolve", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("evolve %v: exit %d\n%s%s", args, code, out, errOut)
	}
	var events []evolve.Event
	var run *store.Run
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var probe struct {
			Kind string          `json:"kind"`
			Run  json.RawMessage `json:"run"`
		}
		if err := json.Unmarshal(sc.Bytes(), &probe); err != nil {
			t.Fatalf("not a JSON line: %v\n%s", err, sc.Text())
		}
		if probe.Kind == "summary" {
			if err := json.Unmarshal(probe.Run, &run); err != nil {
				t.Fatalf("summary: %v\n%s", err, sc.Text())
			}
			continue
		}
		var e evolve.Event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatal(err)
		}
		events = append(events, e)
	}
	if run == nil {
		t.Fatalf("no summary in\n%s", out)
	}
	return events, run
}

// iterations reads a run's iterations from the store at path.
func iterations(t *testing.T, path, run string) []store.Iteration {
	t.Helper()
	s, err := store.Open(path, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	var its []store.Iteration
	if err := s.View(func(tx *store.Tx) (err error) {
		its, err = tx.Iterations(run)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return its
}

// efficiencies are the self-play efficiencies of an iteration's evaluated
// candidates, sorted.
func efficiencies(it store.Iteration) []float64 {
	var effs []float64
	for _, c := range it.Candidates {
		switch c.Status {
		case store.CandidateEvaluated, store.CandidateRejected, store.CandidatePromoted:
			effs = append(effs, c.Metrics.Efficiency)
		}
	}
	slices.Sort(effs)
	return effs
}

// median of sorted xs (the lower middle of an even count); -Inf if empty.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.Inf(-1)
	}
	return xs[(len(xs)-1)/2]
}

// TestEvolveOfflineImproves runs the main job offline on a small budget in
// both games, under the default objective (welfare): in Cleanup the search
// finds better policies than its initial population (the first
// iteration's); in Gathering the first iteration's searches already find
// the cycle harvest, this small map's best (docs/evolution.md), and the
// last iteration keeps that level; the champion is the run's best in self-play, better
// than every baseline and rated above them in its pool; and in both games
// evolved policies join the global pool (under elo none did in Cleanup,
// where a cleaner loses a mixed match to a free-rider). The figures are
// docs/evolution.md's; the run is deterministic, so they do not move
// unless the search does.
func TestEvolveOfflineImproves(t *testing.T) {
	t.Parallel() // long, and mostly waiting on workers: overlap it with the others
	for _, tc := range []struct {
		game   string
		args   []string
		climbs bool // the first iteration does not reach the map's best
	}{
		{"gathering", []string{"--steps", "300", "--agents", "6"}, false},
		{"cleanup", []string{"--steps", "300", "--agents", "6"}, true},
	} {
		t.Run(tc.game, func(t *testing.T) {
			t.Parallel()
			db := filepath.Join(t.TempDir(), "s.db")
			args := append([]string{"--store", db, "--game", tc.game, "--iterations", "2", "--candidates", "3",
				"--local-rounds", "1", "--seed", "1"}, tc.args...)
			events, run := evolveEvents(t, args...)
			if run.Status != store.StatusDone || run.Iterations != 2 || run.Champion == "" {
				t.Fatalf("run %+v", run)
			}
			its := iterations(t, db, run.ID)
			first, last := efficiencies(its[0]), efficiencies(its[len(its)-1])
			t.Logf("%s: candidates' efficiency %v in the initial population, %v in the last iteration; champion %.12s %+v (Elo %.0f)",
				tc.game, first, last, run.Champion, its[len(its)-1].Best, its[len(its)-1].BestElo)
			if tc.climbs && median(last) <= median(first) {
				t.Errorf("the last iteration's median efficiency %.3f is not above the initial population's %.3f", median(last), median(first))
			}
			if !tc.climbs && slices.Max(last) < 0.99*slices.Max(first) {
				t.Errorf("the last iteration's best efficiency %.3f fell below the initial population's %.3f", slices.Max(last), slices.Max(first))
			}
			end := events[len(events)-1]
			if end.Kind != evolve.EventDone || end.Profile == nil || end.Profile.Episodes == 0 || end.Objective != "welfare" {
				t.Errorf("last event %+v", end)
			}
			champ := its[len(its)-1]
			for _, it := range its {
				for _, e := range efficiencies(it) {
					if e > champ.Best.Efficiency {
						t.Errorf("a candidate's efficiency %.3f is above the champion's %.3f", e, champ.Best.Efficiency)
					}
				}
			}
			out, _ := cli(t, "pool", "ls", "--store", db, "--game", tc.game, "--json")
			var pools []poolListing
			if err := json.Unmarshal([]byte(out), &pools); err != nil {
				t.Fatalf("pool ls --json: %v\n%s", err, out)
			}
			if len(pools) != 1 || pools[0].Objective != "welfare" {
				t.Fatalf("pools %s", out)
			}
			table, _ := cli(t, "pool", "ls", "--store", db, "--game", tc.game)
			t.Logf("%s", table)
			baseElo, baseEff, evolved := 0.0, -1e9, 0
			for _, m := range pools[0].Members {
				if slices.Contains(episode.Baselines, m.Name) {
					baseElo, baseEff = max(baseElo, m.Elo), max(baseEff, m.Efficiency)
				} else {
					evolved++
				}
			}
			if champ.Best.Efficiency <= baseEff || champ.BestElo <= baseElo || evolved == 0 {
				t.Errorf("champion efficiency %.3f and Elo %.0f, best baseline %.3f and %.0f; %d evolved members:\n%s",
					champ.Best.Efficiency, champ.BestElo, baseEff, baseElo, evolved, out)
			}
		})
	}
}

// TestEvolveLLMReplay is the LLM path end to end with recorded answers: the
// prompt, a broken policy, the fix prompt carrying the compiler's error,
// the fixed policy's evaluation, its matches and its promotion (under elo,
// where the beamer it writes wins its mixed matches). Two runs on fresh
// stores end the same.
func TestEvolveLLMReplay(t *testing.T) {
	clearLLMEnv(t)
	answers := writeFile(t, "answers.txt", llm.FormatReplay([]string{
		"I will beam everyone.\n```go\nfunc Policy(v *ssd.View, agent int) int { return ssd.Nowhere }\n```",
		strings.ReplaceAll(goodAnswer, "GreedyAction", "ExploitAction"),
	}))
	var champions []string
	for r := range 2 {
		db := filepath.Join(t.TempDir(), "s.db")
		_, run := evolveEvents(t, append([]string{"--store", db, "--llm", "replay:" + answers, "--iterations", "1",
			"--candidates", "1", "--local-rounds", "0", "--seed", "5", "--objective", "elo"}, envFlags...)...)
		its := iterations(t, db, run.ID)
		if len(its) != 1 || len(its[0].Candidates) != 1 {
			t.Fatalf("run %d: iterations %+v", r, its)
		}
		c := its[0].Candidates[0]
		if c.Attempts != 2 || c.Status != store.CandidatePromoted || c.Games == 0 || c.WinRate <= 0.6 || c.Refusals["invalid"] != 1 || len(c.Refusals) != 1 {
			t.Fatalf("run %d: candidate %+v", r, c)
		}
		if run.Champion != c.Policy || run.Usage.LLMCalls != 2 || run.Usage.Proposals != 2 { // the fix is a planner call too (docs/decisions.md)
			t.Fatalf("run %d: %+v", r, run)
		}
		s, err := store.Open(db, store.Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		var calls []store.LLMCall
		var p *store.Policy
		s.View(func(tx *store.Tx) (err error) {
			if calls, err = tx.LLMCalls(run.ID); err != nil {
				return err
			}
			p, err = tx.Policy(c.Policy)
			return err
		})
		if len(calls) != 2 || calls[0].Purpose != "init" || calls[1].Purpose != "fix" {
			t.Fatalf("run %d: %d calls %+v", r, len(calls), calls)
		}
		if !strings.Contains(calls[0].Prompt, "func Policy(v *ssd.View, agent int) int") {
			t.Errorf("the first prompt does not ask for the policy function:\n%s", calls[0].Prompt)
		}
		if len(calls[1].Turns) != 2 || !strings.Contains(calls[1].Turns[1].Text, "undefined: ssd.Nowhere") {
			t.Errorf("the fix request does not carry the error: %+v", calls[1].Turns)
		}
		if !strings.Contains(p.Source, "ExploitAction") || p.Origin.Planner != "llm:replay:"+answers || p.Origin.Run != run.ID {
			t.Errorf("policy %+v", p.Origin)
		}
		if out, _ := cli(t, "runs", "show", run.ID, "--store", db); !strings.Contains(out, "refused or failed on the way: invalid 1") {
			t.Errorf("runs show does not count the refused attempt:\n%s", out)
		}
		champions = append(champions, run.Champion+" "+its[0].Candidates[0].Status)
	}
	if champions[0] != champions[1] {
		t.Errorf("two runs differ: %q", champions)
	}
}

// TestEvolveConfigFileAndRuns: flags from a TOML file (the command line
// wins), the resolved configuration stored and shown by runs show, and runs
// ls listing the run.
func TestEvolveConfigFileAndRuns(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "s.db")
	cfg := filepath.Join(dir, "job.toml")
	if err := os.WriteFile(cfg, []byte("game = \"gathering\"\nmap = \"small\"\nagents = 4\nsteps = 100\niterations = 2\ncandidates = 1\nlocal-rounds = 0\nseed = 11\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, run := evolveEvents(t, "--store", db, "--config", cfg, "--iterations", "1", "--candidates", "2", "--local-rounds", "2")
	out, _ := cli(t, "runs", "show", run.ID, "--store", db)
	// The champion was rechecked on the 20 seeds after 0-4, and runs
	// show says so, with its score over all 25.
	for _, want := range []string{`"recheck": 20`, "each contender rechecked on seeds 5–24 as well", "efficiency 0.", "on seeds 0–4 (", "on seeds 0–24, rechecked), equality"} {
		if !strings.Contains(out, want) {
			t.Errorf("runs show does not say %q:\n%s", want, out)
		}
	}
	// Each candidate's policy is described alike by runs show, pool show
	// and the report (a local round's version as a refine).
	s, err := store.Open(db, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	refined := 0
	for _, c := range iterations(t, db, run.ID)[0].Candidates {
		var p *store.Policy
		if err := s.View(func(tx *store.Tx) (err error) { p, err = tx.Policy(c.Policy); return err }); err != nil {
			t.Fatal(err)
		}
		if p.Origin.Operation() == "refine" {
			refined++
		}
		// the columns are padded to their widest entry
		row := fmt.Sprintf(`(?m)^\s+%d\s+%s\s+%s\s`, c.Sample, regexp.QuoteMeta(p.Origin.How(8)), regexp.QuoteMeta(string(c.Status)))
		if !regexp.MustCompile(row).MatchString(out) {
			t.Errorf("runs show does not describe candidate %d as %q:\n%s", c.Sample, p.Origin.How(8), out)
		}
		if show, _ := cli(t, "pool", "show", c.Policy, "--store", db); !strings.Contains(show, "origin   "+p.Origin.Describe(12)+"\n") {
			t.Errorf("pool show does not describe %.12s as %q:\n%s", c.Policy, p.Origin.Describe(12), show)
		}
	}
	html := filepath.Join(dir, "r.html")
	cli(t, "report", run.ID, "-o", html, "--store", db, "--no-replay")
	page, _ := os.ReadFile(html)
	if refined > 0 && !strings.Contains(string(page), "refine (local round") {
		t.Errorf("the report does not call a local round's version a refine")
	}
	t.Logf("%d of the candidates are local rounds' versions", refined)
	for _, want := range []string{"run " + run.ID + ": done", `"game": "gathering"`, `"agents": 4`, `"iterations": 1`, `"seed": 11`, "iteration 0", "champion"} {
		if !strings.Contains(out, want) {
			t.Errorf("runs show lacks %q:\n%s", want, out)
		}
	}
	out, _ = cli(t, "runs", "ls", "--store", db)
	if !strings.Contains(out, run.ID) || !strings.Contains(out, "gathering/small/4/100") || !strings.Contains(out, "1/1") {
		t.Errorf("runs ls:\n%s", out)
	}
	// A bad file is named with its problem.
	bad := filepath.Join(dir, "bad.toml")
	os.WriteFile(bad, []byte("agents = \"many\"\n"), 0o644)
	code, _, errOut := runCLI(t, context.Background(), "evolve", "--store", db, "--config", bad)
	if code != 2 || !strings.Contains(errOut, "bad.toml") || !strings.Contains(errOut, "agents") {
		t.Errorf("bad config: exit %d, %s", code, errOut)
	}
}
