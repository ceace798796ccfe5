package llm

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

// gateFunc is a Gate of a function, recording what it was asked and when
// the calls it admitted ended.
type gateFunc struct {
	mu       sync.Mutex
	asked    []Admission
	released int
	admit    func(Admission) error
}

func (g *gateFunc) Admit(_ context.Context, a Admission) (func(), error) {
	g.mu.Lock()
	g.asked = append(g.asked, a)
	g.mu.Unlock()
	if err := g.admit(a); err != nil {
		return nil, err
	}
	return func() {
		g.mu.Lock()
		g.released++
		g.mu.Unlock()
	}, nil
}

// TestGate: every call that would be sent is put to the Gate with its
// worst case; a refused call is neither sent nor recorded; an answer from
// the ledger is not put to it.
func TestGate(t *testing.T) {
	f := newFake(t, protoOpenAI, reply{text: "one", in: 10, out: 20})
	var sl sleeps
	rec := &memRecorder{}
	refuse := false
	g := &gateFunc{admit: func(Admission) error {
		if refuse {
			return fmt.Errorf("%w: the budget is spent", ErrNotAdmitted)
		}
		return nil
	}}
	c := client(t, protoOpenAI, f, &sl, func(c *Config) { c.Recorder, c.Gate, c.MaxTokens = rec, g, 1000 })
	if _, err := c.Generate(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	a := g.asked[0]
	// gpt-5: $1.25 in, $10 out per million tokens.
	wantIn := len(req.System) + len(req.Prompt) + 2*perMessage
	if !a.Priced || !a.Bounded || a.OutputTokens != 1000 || a.InputTokens != wantIn || a.Model != "gpt-5" {
		t.Fatalf("admission %+v", a)
	}
	if want := (float64(wantIn)*1.25 + 1000*10) / 1e6; a.Cost != want {
		t.Errorf("worst cost %v, want %v", a.Cost, want)
	}
	if g.released != 1 || len(rec.calls) != 1 {
		t.Errorf("released %d, recorded %d", g.released, len(rec.calls))
	}
	// From the ledger: the gate is not asked.
	if r, err := c.Generate(context.Background(), req); err != nil || !r.Cached || len(g.asked) != 1 {
		t.Fatalf("cached: %+v %v, gate asked %d times", r, err, len(g.asked))
	}
	refuse = true
	r2 := req
	r2.Sample = 1
	_, err := c.Generate(context.Background(), r2)
	if !errors.Is(err, ErrNotAdmitted) {
		t.Fatalf("error %v, want ErrNotAdmitted", err)
	}
	if len(f.requests()) != 1 || len(rec.calls) != 1 {
		t.Errorf("a refused call: %d requests, %d recorded", len(f.requests()), len(rec.calls))
	}
}

// TestWorstCase: the worst case of a call without max tokens is the
// model's largest output; what cannot be budgeted says why.
func TestWorstCase(t *testing.T) {
	clearProviderEnv(t)
	for _, tc := range []struct {
		spec    string
		base    string
		max     int
		wantOut int
		want    error
	}{
		{"openai:gpt-5", "", 0, 128000, nil},
		{"anthropic:claude-sonnet-4-5", "", 0, 64000, nil},
		{"google:gemini-2.5-pro", "", 0, 65536, nil},
		{"openai:my-finetune", "http://127.0.0.1:1/v1", 0, 0, ErrUnpriced},
		{"ollama:qwen3", "", 0, 0, nil}, // free, however long
		{"exec:claude -p", "", 0, 0, ErrNoUsage},
	} {
		c, err := New(Config{Spec: tc.spec, BaseURL: tc.base, MaxTokens: tc.max, Getenv: testEnv()})
		if err != nil {
			t.Fatal(err)
		}
		if a := c.Worst(req); tc.wantOut != 0 && (a.OutputTokens != tc.wantOut || !a.Bounded) {
			t.Errorf("%s: worst %+v, want %d output tokens", tc.spec, a, tc.wantOut)
		}
		if err := c.Budgetable(); !errors.Is(err, tc.want) {
			t.Errorf("%s: budgetable %v, want %v", tc.spec, err, tc.want)
		}
	}
	// A priced model of unknown length: bounded only by max tokens.
	p := DefaultPrices()
	p["openai:my-finetune"] = Price{Input: 1, Output: 2}
	c, _ := New(Config{Spec: "openai:my-finetune", BaseURL: "http://127.0.0.1:1/v1", Prices: p, Getenv: env(nil)})
	if err := c.Budgetable(); !errors.Is(err, ErrUnbounded) {
		t.Errorf("unbounded: %v", err)
	}
	c, _ = New(Config{Spec: "openai:my-finetune", BaseURL: "http://127.0.0.1:1/v1", Prices: p, MaxTokens: 500, Getenv: env(nil)})
	if err := c.Budgetable(); err != nil {
		t.Errorf("with max tokens: %v", err)
	}
}

// TestThrottle429SlowsEveryone: a 429 to one client pauses the next
// attempt of another client of the same server for the wait the server
// asked, and halves the calls allowed in flight; answers let them back up.
func TestThrottle429SlowsEveryone(t *testing.T) {
	f := newFake(t, protoOpenAI, reply{status: 429, body: `{"error":{"message":"slow down"}}`, header: map[string]string{"Retry-After": "30"}},
		reply{text: "ok", in: 1, out: 1})
	th := NewThrottle(8)
	var slA, slB sleeps
	now := time.Now()
	clock := func() time.Time { return now } // frozen: the pause is still on when B asks
	a := client(t, protoOpenAI, f, &slA, func(c *Config) { c.Throttle = th })
	b := client(t, protoOpenAI, f, &slB, func(c *Config) { c.Throttle = th })
	for _, c := range []*Client{a, b} {
		c.b.(*lcBackend).transport().now = clock
	}
	if _, err := a.Generate(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if w := slA.waits(); len(w) != 1 || w[0] != 30*time.Second {
		t.Fatalf("A waited %v, want 30s once", w)
	}
	if th.Limit() != 2 { // 1 in flight when limited → 1, then +1 for A's answer
		t.Errorf("limit %d after a 429 and an answer, want 2", th.Limit())
	}
	r2 := req
	r2.Sample = 1
	if _, err := b.Generate(context.Background(), r2); err != nil {
		t.Fatal(err)
	}
	if w := slB.waits(); len(w) != 1 || w[0] != 30*time.Second {
		t.Errorf("B waited %v before its call, want the 30s pause A was asked for", w)
	}
}

// TestThrottleLimitsInFlight: with the limit down to one, a second call
// waits until the first is over.
func TestThrottleLimitsInFlight(t *testing.T) {
	th := NewThrottle(4)
	noSleep := func(context.Context, time.Duration) error { return nil }
	now := time.Now
	th.mu.Lock()
	th.inflight = 2
	th.mu.Unlock()
	th.limited(time.Time{})
	th.mu.Lock()
	th.inflight = 0
	th.mu.Unlock()
	if th.Limit() != 1 {
		t.Fatalf("limit %d, want 1", th.Limit())
	}
	rel, err := th.acquire(context.Background(), true, noSleep, now)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan struct{})
	go func() {
		r, _ := th.acquire(context.Background(), true, noSleep, now)
		close(got)
		r(true)
	}()
	select {
	case <-got:
		t.Fatal("a second call got in while the limit is one")
	case <-time.After(50 * time.Millisecond):
	}
	rel(true)
	select {
	case <-got:
	case <-time.After(30 * time.Second):
		t.Fatal("the second call never got in")
	}
	ctx, cancel := context.WithCancel(context.Background())
	th.limited(time.Time{})
	r1, _ := th.acquire(ctx, true, noSleep, now)
	cancel()
	if _, err := th.acquire(ctx, true, noSleep, now); !errors.Is(err, context.Canceled) {
		t.Errorf("a waiting call whose context ends: %v", err)
	}
	r1(true)
}
