package evolve

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"policyevolve/evolve/episode"
	"policyevolve/evolve/internal/evolvetest"
	"policyevolve/evolve/timing"
	"policyevolve/sandbox"
	"policyevolve/store"
)

// longRunConfig is the job of the flat-cost measurement: Gathering's small
// map, 4 agents, 200 steps, 2 candidates, no local rounds.
func longRunConfig(iterations int) JobConfig {
	return JobConfig{Mode: ModePopulation, Game: "gathering", Map: "small", Agents: 4, Steps: 200, Seed: 1,
		Iterations: iterations, Candidates: 2, LocalRounds: Off[int]()}
}

// longRunBase is a store holding a real run of longRunConfig's first
// baseIterations iterations, made once per process.
var longRunBase struct {
	once sync.Once
	path string
	err  error
}

const baseIterations = 4

func baseStore(b *testing.B) string {
	longRunBase.once.Do(func() {
		dir, err := os.MkdirTemp("", "policyevolve-longrun-")
		if err != nil {
			longRunBase.err = err
			return
		}
		longRunBase.path = filepath.Join(dir, "base.db")
		s, err := store.Open(longRunBase.path, store.Options{})
		if err != nil {
			longRunBase.err = err
			return
		}
		j := &Job{Config: longRunConfig(baseIterations), Store: s, Sandbox: benchSandbox(b), Planner: grammarOnly}
		_, longRunBase.err = j.Run(context.Background())
	})
	if longRunBase.err != nil {
		b.Fatal(longRunBase.err)
	}
	return longRunBase.path
}

func benchSandbox(b *testing.B) *sandbox.Sandbox {
	sb, err := sandbox.New(sandbox.Config{Backend: sandbox.Native, CacheDir: evolvetest.CacheDir})
	if err != nil {
		b.Fatal(err)
	}
	return sb
}

// growRun extends run-1 of the store at path to n finished iterations by
// copying the records of its iterations 1 to baseIterations-1 in turn, as
// that many more iterations would have written them: each candidate
// policy again (its source with a comment added, so a new policy), with
// its admission, evaluations, critiques, matches against the same
// opponents and place in a local pool; the opponents' rating histories
// the points a promoted candidate added; the iteration record; and two
// LLM calls of the run per iteration (the planner's prompts and answers,
// ~15 KB each), which the job's budgets read. Then the run is stopped,
// with resumed iterations to go.
func growRun(b *testing.B, path string, n int) {
	b.Helper()
	s, err := store.Open(path, store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	const run = "run-1"
	type template struct {
		it        store.Iteration
		policies  map[string]*store.Policy
		evals     map[string][]store.Evaluation
		admission map[string]*store.Admission
		critiques map[string][]store.Critique
		matches   map[string][]store.Match
	}
	var temps []template
	var game string
	err = s.View(func(tx *store.Tx) error {
		r, err := tx.Run(run)
		if err != nil {
			return err
		}
		var cfg JobConfig
		if err := json.Unmarshal(r.Config, &cfg); err != nil {
			return err
		}
		game = cfg.Game
		for k := 1; k < baseIterations; k++ {
			it, err := tx.Iteration(run, k)
			if err != nil {
				return err
			}
			t := template{it: *it, policies: map[string]*store.Policy{}, evals: map[string][]store.Evaluation{},
				admission: map[string]*store.Admission{}, critiques: map[string][]store.Critique{}, matches: map[string][]store.Match{}}
			for _, c := range it.Candidates {
				for _, id := range append([]string{c.Policy}, c.Local...) {
					if id == "" || t.policies[id] != nil {
						continue
					}
					if t.policies[id], err = tx.Policy(id); err != nil {
						return err
					}
					if t.evals[id], err = tx.EvaluationsOf(id); err != nil {
						return err
					}
					if t.admission[id], err = tx.Admission(id, game); err != nil {
						return err
					}
					if t.critiques[id], err = tx.Critiques(id); err != nil {
						return err
					}
					if t.matches[id], err = tx.MatchesOf(id); err != nil {
						return err
					}
				}
			}
			temps = append(temps, t)
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	prompt := strings.Repeat("Write a policy for the Gathering game. ", 400)
	for i := baseIterations; i < n; {
		// Many iterations per transaction: growing is not what is measured.
		err := s.Update(func(tx *store.Tx) error {
			for stop := min(n, i+50); i < stop; i++ {
				t := temps[(i-baseIterations)%len(temps)]
				ids := map[string]string{}
				for id, p := range t.policies {
					q := *p
					q.ID, q.Source = "", fmt.Sprintf("%s\n// grown iteration %d\n", p.Source, i)
					q.Origin.Iteration = i
					if _, err := tx.PutPolicy(&q); err != nil {
						return err
					}
					ids[id] = q.ID
				}
				mapID := func(id string) string {
					if m, ok := ids[id]; ok {
						return m
					}
					return id
				}
				for id, copyID := range ids {
					for _, e := range t.evals[id] {
						e.Policy = copyID
						if err := tx.PutEvaluation(&e); err != nil {
							return err
						}
					}
					a := *t.admission[id]
					a.Policy = copyID
					if err := tx.PutAdmission(&a); err != nil {
						return err
					}
					for _, c := range t.critiques[id] {
						c.Policy, c.Iteration = copyID, i
						if err := tx.AddCritique(&c); err != nil {
							return err
						}
					}
					for _, m := range t.matches[id] {
						m.A, m.B = mapID(m.A), mapID(m.B)
						if err := tx.PutMatch(&m); err != nil {
							return err
						}
					}
					if err := tx.AddMember(&store.Member{Policy: copyID, Pool: store.LocalPool(run, i), Reason: "candidate"}); err != nil {
						return err
					}
				}
				it := t.it
				it.Index, it.Candidates = i, slices.Clone(t.it.Candidates)
				for k := range it.Candidates {
					c := &it.Candidates[k]
					c.Policy = mapID(c.Policy)
					c.Local = slices.Clone(c.Local)
					for l := range c.Local {
						c.Local[l] = mapID(c.Local[l])
					}
					if c.Status != store.CandidatePromoted {
						continue
					}
					// As if promoted, rated, and evicted since: the
					// opponents keep the points.
					for _, opp := range t.it.Plan[c.Sample].Opponents {
						r, err := tx.Rating(store.GlobalPool(envOfRun(b, tx, run)), opp)
						if err != nil {
							continue // no longer a member
						}
						r.History = append(r.History, store.RatingPoint{Time: time.Now().UTC(), Elo: r.Elo, Opponent: c.Policy, Outcome: 0})
						r.Games++
						r.Losses++
						if err := tx.PutRating(r); err != nil {
							return err
						}
					}
				}
				if err := tx.PutIteration(&it); err != nil {
					return err
				}
				for k := range 2 {
					if err := tx.AddLLMCall(&store.LLMCall{Run: run, Provider: "grown", Model: "m", Prompt: prompt,
						Answer: t.policies[t.it.Candidates[0].Policy].Source, TokensIn: 4000, TokensOut: 3000, Cost: 0.001,
						Key: fmt.Sprintf("grown %d %d", i, k)}); err != nil {
						return err
					}
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	err = s.Update(func(tx *store.Tx) error {
		r, err := tx.Run(run)
		if err != nil {
			return err
		}
		var cfg map[string]any
		if err := json.Unmarshal(r.Config, &cfg); err != nil {
			return err
		}
		cfg["iterations"] = n + resumed
		if r.Config, err = json.Marshal(cfg); err != nil {
			return err
		}
		r.Iterations, r.Status, r.Stop, r.StopReason = n, store.StatusStopped, store.StopInterrupted, string(store.StopInterrupted)
		return tx.PutRun(r)
	})
	if err != nil {
		b.Fatal(err)
	}
}

// envOfRun is the environment of a run's stored configuration.
func envOfRun(b *testing.B, tx *store.Tx, run string) store.EnvConfig {
	r, err := tx.Run(run)
	if err != nil {
		b.Fatal(err)
	}
	var cfg JobConfig
	if err := json.Unmarshal(r.Config, &cfg); err != nil {
		b.Fatal(err)
	}
	env, err := episode.ResolveEnv(cfg.Game, cfg.Map, cfg.Agents, cfg.Steps)
	if err != nil {
		b.Fatal(err)
	}
	return env.Config
}

// resumed is how many iterations BenchmarkLongRun plays; the first, which
// also pays for reading the run's past once, is not counted.
const resumed = 6

// BenchmarkLongRun measures what a population iteration costs late in a
// long run against early in it, on the same job: the store is a real
// run of longRunConfig's first 4 iterations grown (growRun) to 10, or to
// 1,000, finished iterations; the job resumes it for 6 more, and the
// metrics are the medians over the last 5 of the time spent storing
// (store transactions, waits for the store's locks included, summed over
// goroutines) and of the whole iteration (from the end of the one
// before); each iteration's figures are logged (-v). A flat cost: the
// same at 1,000 as at 10.
//
//	go test ./evolve -run '^$' -bench LongRun -benchtime 1x
func BenchmarkLongRun(b *testing.B) {
	for _, n := range []int{10, 1000} {
		b.Run(fmt.Sprintf("iteration-%d", n), func(b *testing.B) {
			var storing, whole []float64
			var size int64
			for range b.N {
				path := filepath.Join(b.TempDir(), "grown.db")
				copyFile(b, baseStore(b), path)
				growRun(b, path, n)
				s, err := store.Open(path, store.Options{})
				if err != nil {
					b.Fatal(err)
				}
				j := &Job{Store: s, Sandbox: benchSandbox(b), Planner: grammarOnly, RunID: "run-1"}
				var last time.Time
				first := true
				j.Events = ReporterFunc(func(e Event) {
					if e.Kind != EventIterationDone {
						return
					}
					if !first {
						storing = append(storing, e.Profile.Busy[timing.Storing].Seconds()*1000)
						whole = append(whole, e.Time.Sub(last).Seconds())
						b.Logf("iteration %d: %.2f s, storing %.0f ms", e.Iteration, whole[len(whole)-1], storing[len(storing)-1])
					}
					first, last = false, e.Time
				})
				b.ResetTimer()
				if _, err := j.Run(context.Background()); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				if st, err := os.Stat(path); err == nil {
					size = st.Size()
				}
			}
			b.ReportMetric(median(storing), "storing-ms/iteration")
			b.ReportMetric(median(whole), "s/iteration")
			b.ReportMetric(float64(size)/(1<<20), "store-MiB")
		})
	}
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	sort.Float64s(s)
	return s[len(s)/2]
}

func copyFile(b *testing.B, from, to string) {
	b.Helper()
	in, err := os.Open(from)
	if err != nil {
		b.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		b.Fatal(err)
	}
	if err := out.Close(); err != nil {
		b.Fatal(err)
	}
}
