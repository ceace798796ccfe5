package evolve

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"policyevolve/evolve/internal/evolvetest"
	"policyevolve/evolve/planner"
	"policyevolve/evolve/planner/prompts"
	"policyevolve/llm"
	"policyevolve/store"
)

// modelServer is an OpenAI-compatible server that answers every request
// with a valid policy and a usage of 1000 tokens in and 100 out (the max
// tokens it is sent), counting the
// requests and how many it held at once. before, when set, runs as a
// request arrives (and may hold it).
type modelServer struct {
	*httptest.Server
	mu       sync.Mutex
	requests int
	inFlight int
	most     int
	before   func(n int)
}

func newModelServer(t *testing.T) *modelServer {
	s := &modelServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.requests++
		s.inFlight++
		s.most = max(s.most, s.inFlight)
		n, before := s.requests, s.before
		s.mu.Unlock()
		defer func() {
			s.mu.Lock()
			s.inFlight--
			s.mu.Unlock()
		}()
		if before != nil {
			before(n)
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"id": "x", "object": "chat.completion",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": evolvetest.ValidAnswer}}},
			"usage": map[string]any{"prompt_tokens": 1000, "completion_tokens": 100}})
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *modelServer) counts() (requests, most int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests, s.most
}

// llmJob is a population job whose planner is a model on srv, priced at
// $1000 per million output tokens and answering at most 100 tokens: a
// call costs $0.10 at worst.
func llmJob(t *testing.T, srv *modelServer, cfg JobConfig) *Job {
	t.Helper()
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("OPENAI_BASE_URL", "")
	cfg.Planners = []string{"llm:openai:m"}
	j := newJob(t, cfg)
	ps, err := prompts.Load("")
	if err != nil {
		t.Fatal(err)
	}
	prices := llm.DefaultPrices()
	prices["openai:m"] = llm.Price{Input: 0, Output: 1000}
	j.Planner = func(spec, run string, gate llm.Gate) (planner.Planner, error) {
		c, err := llm.New(llm.Config{Spec: "openai:m", BaseURL: srv.URL + "/v1", MaxTokens: 100, Prices: prices,
			Recorder: &planner.LLMRecorder{Store: j.Store, Run: run}, Gate: gate, Retry: llm.Retry{MaxAttempts: 1}})
		if err != nil {
			return nil, err
		}
		return &planner.LLMPlanner{Client: c, Prompts: ps}, nil
	}
	return j
}

// llmConfig is one iteration of four candidates, each one proposal (no
// local rounds, no crossover).
func llmConfig() JobConfig {
	cfg := tinyConfig(ModePopulation)
	cfg.Iterations, cfg.Candidates, cfg.LocalRounds, cfg.CrossoverRate = 1, 4, Off[int](), Off[float64]()
	return cfg
}

// TestLLMCandidatesProposedAtOnce: with an LLM planner the candidates of
// an iteration are proposed at once by default, so that an iteration of
// four candidates against a slow model takes about as long as one
// candidate's calls, not four in a row. The server holds each request
// until all four are there (or a generous while has passed): it must see
// them all at once.
func TestLLMCandidatesProposedAtOnce(t *testing.T) {
	srv := newModelServer(t)
	all := make(chan struct{})
	var once sync.Once
	srv.before = func(int) {
		if _, now := srv.inFlightNow(); now == 4 {
			once.Do(func() { close(all) })
		}
		select {
		case <-all:
		case <-time.After(20 * time.Second):
		}
	}
	j := llmJob(t, srv, llmConfig())
	run, err := j.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	requests, most := srv.counts()
	if requests != 4 || most != 4 {
		t.Fatalf("%d requests, at most %d at once: want the 4 candidates' calls at once", requests, most)
	}
	if run.Status != store.StatusDone || j.Config.PlannerConcurrency != 4 {
		t.Errorf("run %s, planner concurrency %d", run.Status, j.Config.PlannerConcurrency)
	}
}

func (s *modelServer) inFlightNow() (requests, inFlight int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests, s.inFlight
}

// TestCostBudgetHolds: a call is sent only if its worst case fits in what
// the budget has left, the calls in flight counted at their worst: with
// $0.25 and calls of $0.10 at worst, two calls are sent (also when the
// four candidates ask at once), the run spends $0.20 and stops for its
// budget, the others skipped.
func TestCostBudgetHolds(t *testing.T) {
	srv := newModelServer(t)
	cfg := llmConfig()
	cfg.MaxCost = 0.25
	j := llmJob(t, srv, cfg)
	run, err := j.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	requests, _ := srv.counts()
	if requests != 2 || run.Usage.Cost > cfg.MaxCost || run.Usage.LLMCalls != 2 {
		t.Fatalf("%d requests, %d calls costing $%.4f with a budget of $%.2f", requests, run.Usage.LLMCalls, run.Usage.Cost, cfg.MaxCost)
	}
	if run.Status != store.StatusStopped || !strings.Contains(run.StopReason, "cost budget") {
		t.Errorf("run %s (%s), want stopped for the cost budget", run.Status, run.StopReason)
	}
	var it *store.Iteration
	j.Store.View(func(tx *store.Tx) (err error) {
		it, err = tx.Iteration(run.ID, 0)
		return err
	})
	skipped := 0
	for _, c := range it.Candidates {
		if c.Status == store.CandidateSkipped {
			skipped++
			if !strings.Contains(c.Problem, "cost budget") {
				t.Errorf("skipped candidate %d: %q", c.Sample, c.Problem)
			}
		}
	}
	if skipped != 2 {
		t.Errorf("%d candidates skipped, want 2: %+v", skipped, it.Candidates)
	}
}

// TestUnpricedModelUnderACostBudget: a model without a price cannot be
// held to a cost budget: the run fails before its first request.
func TestUnpricedModelUnderACostBudget(t *testing.T) {
	srv := newModelServer(t)
	cfg := llmConfig()
	cfg.MaxCost = 5
	j := llmJob(t, srv, cfg)
	ps, _ := prompts.Load("")
	j.Planner = func(spec, run string, gate llm.Gate) (planner.Planner, error) {
		c, err := llm.New(llm.Config{Spec: "openai:m", BaseURL: srv.URL + "/v1", Recorder: &planner.LLMRecorder{Store: j.Store, Run: run}, Gate: gate})
		return &planner.LLMPlanner{Client: c, Prompts: ps}, err
	}
	_, err := j.Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "has no price") {
		t.Fatalf("error %v, want the unpriced model refused", err)
	}
	if n, _ := srv.counts(); n != 0 {
		t.Errorf("%d requests sent", n)
	}
}

// TestStopSendsNoMoreRequests: once the job is asked to stop (Ctrl-C)
// while a candidate's call is in flight, no other candidate's request is
// sent; the one in flight completes.
func TestStopSendsNoMoreRequests(t *testing.T) {
	srv := newModelServer(t)
	cfg := llmConfig()
	cfg.PlannerConcurrency = 1
	j := llmJob(t, srv, cfg)
	srv.before = func(n int) {
		if n == 1 {
			j.Stop()
		}
	}
	run, err := j.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := srv.counts(); n != 1 {
		t.Errorf("%d requests after the stop, want only the one in flight", n)
	}
	if run.Stopped() != store.StopInterrupted {
		t.Errorf("run stopped %q", run.Stopped())
	}
}

// TestGateCountsCallsInFlight: the gate counts the calls it admitted and
// not yet released at their worst, and a usage it cannot read is an
// error that stops the run, not a refusal.
func TestGateCountsCallsInFlight(t *testing.T) {
	cfg := tinyConfig(ModePopulation)
	cfg.MaxCost, cfg.MaxTokens = 1, 10000
	j := newJob(t, cfg)
	if _, err := j.open(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer j.arena.Close()
	g := j.gate
	call := llm.Admission{Provider: "openai", Model: "m", Purpose: "init", InputTokens: 1000, OutputTokens: 2000, Bounded: true, Priced: true, Cost: 0.4}
	r1, err := g.Admit(context.Background(), call)
	if err != nil {
		t.Fatal(err)
	}
	r2, err := g.Admit(context.Background(), call)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Admit(context.Background(), call); !errors.Is(err, llm.ErrNotAdmitted) || !strings.Contains(err.Error(), "cost budget") {
		t.Fatalf("a third call with $0.80 in flight of $1: %v", err)
	}
	r1()
	r1() // once only
	if _, err := g.Admit(context.Background(), call); err != nil {
		t.Fatalf("after one ended: %v", err)
	}
	r2()
	big := call
	big.Cost, big.OutputTokens = 0.01, 9500
	if _, err := g.Admit(context.Background(), big); !errors.Is(err, llm.ErrNotAdmitted) || !strings.Contains(err.Error(), "token budget") {
		t.Errorf("a call of 10500 tokens at worst with 10000: %v", err)
	}
	if j.run.StopReason == "" {
		t.Error("a refusal did not record the budget as why the run stops")
	}
	unbounded := call
	unbounded.Bounded = false
	if _, err := g.Admit(context.Background(), unbounded); err == nil || errors.Is(err, llm.ErrNotAdmitted) {
		t.Errorf("an unbounded call under a cost budget: %v, want a failure", err)
	}
	// The usage can no longer be read: the store's file is not a store
	// for a while.
	path := j.Store.Path()
	if err := os.Rename(path, path+".away"); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(path, []byte("not a store"), 0o644)
	defer os.Rename(path+".away", path)
	if _, err := g.Admit(context.Background(), llm.Admission{Priced: true, Bounded: true}); err == nil ||
		errors.Is(err, llm.ErrNotAdmitted) || !strings.Contains(err.Error(), "check the budgets") {
		t.Errorf("an unreadable usage: %v, want an error that stops the run", err)
	}
}
