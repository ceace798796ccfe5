package llm

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeKey is the API key every test client gets; it must never appear in
// an error or a recorded call.
const fakeKey = "sk-test-0123456789-SECRET-abcdef"

// clearProviderEnv keeps the real environment out of the tests.
func clearProviderEnv(t *testing.T) {
	for _, v := range []string{"OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_BASE", "OPENAI_MODEL",
		"OPENAI_ORGANIZATION", "ANTHROPIC_API_KEY", "GOOGLE_API_KEY", "GEMINI_API_KEY", "OLLAMA_HOST"} {
		t.Setenv(v, "")
	}
}

// redirect sends every request to the fake, whatever host the client
// meant: the clients keep their real default URLs.
type redirect struct{ to *url.URL }

func (r redirect) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.URL.Scheme, req.URL.Host = r.to.Scheme, r.to.Host
	req.Host = r.to.Host
	return http.DefaultTransport.RoundTrip(req)
}

// sleeps records the waits of the retry policy instead of sleeping.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.d = append(s.d, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleeps) waits() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.d...)
}

// models are the model each protocol's tests ask for: ones that think.
var models = map[string]string{OpenAI: "gpt-5", Google: "gemini-2.5-pro", Anthropic: "claude-sonnet-4-5", Ollama: "qwen3:8b"}

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func testEnv() func(string) string {
	return env(map[string]string{"OPENAI_API_KEY": fakeKey, "ANTHROPIC_API_KEY": fakeKey, "GEMINI_API_KEY": fakeKey,
		"OLLAMA_PROXY_KEY": fakeKey})
}

// client builds a client of p's provider talking to f; mod adjusts the
// configuration.
func client(t *testing.T, p protocol, f *fake, sl *sleeps, mod func(*Config)) *Client {
	t.Helper()
	clearProviderEnv(t)
	u, _ := url.Parse(f.srv.URL)
	cfg := Config{Spec: p.provider + ":" + models[p.provider], Getenv: testEnv(), Stream: p.stream,
		Transport: redirect{u}, Retry: Retry{MaxAttempts: 3, Sleep: sl.sleep, Jitter: func() float64 { return 0.5 }}}
	if p.provider == Ollama {
		cfg.KeyEnv = "OLLAMA_PROXY_KEY" // an Ollama behind an authenticating proxy
	}
	if mod != nil {
		mod(&cfg)
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// exchange makes one call to a fake of p that answers with replies, and
// returns the fake, the retry waits and the outcome.
func exchange(t *testing.T, p protocol, mod func(*Config), replies ...reply) (*fake, *sleeps, *Response, error) {
	t.Helper()
	f := newFake(t, p, replies...)
	sl := &sleeps{}
	resp, err := client(t, p, f, sl, mod).Generate(context.Background(), req)
	return f, sl, resp, err
}

func noKey(t *testing.T, err error) {
	t.Helper()
	if err != nil && strings.Contains(err.Error(), fakeKey) {
		t.Errorf("the key leaked into an error: %v", err)
	}
}

var req = Request{System: "You write policies.", Prompt: "Write one."}

// TestConformance runs one suite against a fake of every wire protocol.
func TestConformance(t *testing.T) {
	for _, p := range allProtocols {
		t.Run(p.name, func(t *testing.T) {
			t.Run("answer", func(t *testing.T) { testAnswer(t, p) })
			t.Run("settings", func(t *testing.T) { testSettings(t, p) })
			t.Run("retry-after", func(t *testing.T) { testRetryAfter(t, p) })
			t.Run("server-errors", func(t *testing.T) { testServerErrors(t, p) })
			t.Run("timeout", func(t *testing.T) { testTimeout(t, p) })
			t.Run("cancel", func(t *testing.T) { testCancel(t, p) })
			t.Run("malformed", func(t *testing.T) { testMalformed(t, p) })
			t.Run("empty", func(t *testing.T) { testEmpty(t, p) })
			t.Run("unauthorized", func(t *testing.T) { testUnauthorized(t, p) })
			t.Run("unknown-model", func(t *testing.T) { testUnknownModel(t, p) })
		})
	}
}

func testAnswer(t *testing.T, p protocol) {
	answer := "I will collect.\n```go\nfunc Policy(v *ssd.View, agent int) int { return ssd.Stand }\n```\n"
	f := newFake(t, p, reply{text: answer, reason: "thinking it over", in: 1200, out: 800, think: 300})
	var sl sleeps
	c := client(t, p, f, &sl, nil)
	resp, err := c.Generate(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != answer {
		t.Errorf("answer %q, want %q", resp.Text, answer)
	}
	if resp.Usage.InputTokens != 1200 || resp.Usage.OutputTokens != 800 {
		t.Errorf("usage %+v, want 1200 in, 800 out", resp.Usage)
	}
	if p.reasoningTokens && resp.Usage.ReasoningTokens != 300 {
		t.Errorf("reasoning tokens %d, want 300", resp.Usage.ReasoningTokens)
	}
	if p.provider != Ollama && (!resp.Usage.Priced || resp.Usage.Cost <= 0) {
		t.Errorf("no cost for a priced model: %+v", resp.Usage)
	}
	if p.provider == Anthropic && resp.Thinking != "thinking it over" {
		t.Errorf("thinking %q", resp.Thinking)
	}
	reqs := f.requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	g := reqs[0]
	if g.method != http.MethodPost || g.path != p.path {
		t.Errorf("%s %s, want POST %s", g.method, g.path, p.path)
	}
	if p.authHeader != "" {
		if h := g.header.Get(p.authHeader); h != p.authPrefix+fakeKey {
			t.Errorf("%s: %q, want the key", p.authHeader, h)
		}
	}
	if p.provider == Anthropic && g.header.Get("Anthropic-Version") == "" {
		t.Error("no Anthropic-Version header")
	}
	if g.body["model"] != models[p.provider] {
		t.Errorf("model %v, want %s", g.body["model"], models[p.provider])
	}
	if g.system != req.System || g.user != req.Prompt {
		t.Errorf("system %q, user %q: want %q and %q in their places", g.system, g.user, req.System, req.Prompt)
	}
	// Defaults: no temperature (the provider's own), the largest
	// reasoning the model takes.
	checkDefaults(t, p, g.body)
}

func checkDefaults(t *testing.T, p protocol, b map[string]any) {
	t.Helper()
	opts, _ := b["options"].(map[string]any)
	if _, ok := b["temperature"]; ok {
		t.Errorf("temperature sent by default: %v", b["temperature"])
	}
	switch p.provider {
	case OpenAI, Google:
		if b["reasoning_effort"] != "high" {
			t.Errorf("reasoning_effort %v, want high", b["reasoning_effort"])
		}
		if _, ok := b["max_completion_tokens"]; ok {
			t.Errorf("max_completion_tokens sent by default")
		}
		if p.stream {
			if b["stream"] != true {
				t.Errorf("stream %v", b["stream"])
			}
		} else if _, ok := b["stream"]; ok && b["stream"] != false {
			t.Errorf("stream %v", b["stream"])
		}
	case Anthropic:
		if b["max_tokens"] != float64(64000) {
			t.Errorf("max_tokens %v, want 64000", b["max_tokens"])
		}
		th, _ := b["thinking"].(map[string]any)
		if th["type"] != "enabled" || th["budget_tokens"] != float64(64000-answerReserve) {
			t.Errorf("thinking %v, want enabled with %d", b["thinking"], 64000-answerReserve)
		}
	case Ollama:
		if _, ok := opts["temperature"]; ok {
			t.Errorf("options.temperature sent by default: %v", opts["temperature"])
		}
		if b["think"] != true || b["stream"] != p.stream {
			t.Errorf("think %v stream %v, want true and %v", b["think"], b["stream"], p.stream)
		}
	}
}

func testSettings(t *testing.T, p protocol) {
	f := newFake(t, p, reply{text: "ok", in: 1, out: 1})
	var sl sleeps
	temp := 0.25
	c := client(t, p, f, &sl, func(c *Config) {
		c.Temperature, c.MaxTokens, c.Reasoning = &temp, 20000, "low"
		if p.provider == Anthropic {
			c.Reasoning = "none" // thinking wants temperature 1
		}
	})
	if _, err := c.Generate(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	b := f.requests()[0].body
	opts, _ := b["options"].(map[string]any)
	switch p.provider {
	case OpenAI, Google:
		field := "max_completion_tokens"
		if p.provider == Google {
			field = "max_tokens"
		}
		if b["temperature"] != 0.25 || b[field] != float64(20000) || b["reasoning_effort"] != "low" {
			t.Errorf("temperature %v, %s %v, reasoning_effort %v", b["temperature"], field, b[field], b["reasoning_effort"])
		}
	case Anthropic:
		if b["temperature"] != 0.25 || b["max_tokens"] != float64(20000) || b["thinking"] != nil {
			t.Errorf("temperature %v, max_tokens %v, thinking %v", b["temperature"], b["max_tokens"], b["thinking"])
		}
	case Ollama:
		if opts["temperature"] != 0.25 || opts["num_predict"] != float64(20000) || b["think"] != true {
			t.Errorf("options %v, think %v", opts, b["think"])
		}
	}
}

func testRetryAfter(t *testing.T, p protocol) {
	f := newFake(t, p,
		reply{status: 429, header: map[string]string{"Retry-After": "7"}, body: `{"error":{"message":"slow down"}}`},
		reply{text: "ok", in: 1, out: 1})
	var sl sleeps
	c := client(t, p, f, &sl, nil)
	resp, err := c.Generate(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != "ok" || resp.Attempts != 2 || len(f.requests()) != 2 {
		t.Errorf("answer %q after %d attempts, %d requests; want ok after 2", resp.Text, resp.Attempts, len(f.requests()))
	}
	if w := sl.waits(); len(w) != 1 || w[0] != 7*time.Second {
		t.Errorf("waits %v, want [7s] (Retry-After)", w)
	}
}

func testServerErrors(t *testing.T, p protocol) {
	f, sl, _, err := exchange(t, p, nil, reply{status: 500, body: `{"error":{"message":"boom"}}`})
	var ae *APIError
	if !errors.As(err, &ae) || !errors.Is(err, ErrServer) || ae.Status != 500 || ae.Attempts != 3 || !ae.Temporary() {
		t.Fatalf("error %#v, want a temporary ErrServer after 3 attempts", err)
	}
	if !strings.Contains(err.Error(), "boom") || strings.Contains(err.Error(), "\n") {
		t.Errorf("error %q: want the server's message, one line", err)
	}
	// Jitter 0.5: three quarters of 2 s, then of 4 s.
	if w := sl.waits(); len(w) != 2 || w[0] != 1500*time.Millisecond || w[1] != 3*time.Second {
		t.Errorf("waits %v, want [1.5s 3s]", w)
	}
	if n := len(f.requests()); n != 3 {
		t.Errorf("%d requests, want 3", n)
	}
}

func testTimeout(t *testing.T, p protocol) {
	// The server never answers: any timeout fires.
	f, _, _, err := exchange(t, p, func(c *Config) { c.Timeout = 100 * time.Millisecond; c.Retry.MaxAttempts = 2 }, reply{hang: true})
	var ae *APIError
	if !errors.As(err, &ae) || !errors.Is(err, ErrTimeout) || !ae.Temporary() {
		t.Fatalf("error %v, want a temporary ErrTimeout", err)
	}
	if n := len(f.requests()); n != 2 {
		t.Errorf("%d requests, want 2 (a timed-out attempt is retried)", n)
	}
}

func testCancel(t *testing.T, p protocol) {
	f := newFake(t, p, reply{hang: true})
	var sl sleeps
	c := client(t, p, f, &sl, nil)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for len(f.requests()) == 0 {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	_, err := c.Generate(ctx, req)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	// A deadline: OpenAI's client words it in a way errors.Is does not
	// see, so the Client asks the context.
	ctx, cancel = context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := c.Generate(ctx, req); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("error %v, want context.DeadlineExceeded", err)
	}
}

func testMalformed(t *testing.T, p protocol) {
	body, want := `{"choices": [ oops`, ErrMalformed
	switch {
	case p.stream && (p.provider == OpenAI || p.provider == Google):
		// langchaingo skips OpenAI stream events it cannot decode, which
		// would leave an empty answer: the Client sees that the stream
		// held no readable event.
		body = "data: {oops\n\n"
	case p.stream && p.provider == Anthropic:
		body = "event: message_start\ndata: {oops\n\n"
	}
	_, _, _, err := exchange(t, p, nil, reply{body: body})
	var ae *APIError
	if !errors.Is(err, want) || !errors.As(err, &ae) || !ae.Temporary() {
		t.Fatalf("error %v, want a temporary %v", err, want)
	}
}

func testEmpty(t *testing.T, p protocol) {
	_, _, _, err := exchange(t, p, nil, reply{text: "", in: 10, out: 4000})
	var ae *APIError
	if !errors.As(err, &ae) || !errors.Is(err, ErrEmptyAnswer) || !ae.Temporary() {
		t.Fatalf("error %v, want a temporary ErrEmptyAnswer", err)
	}
}

func testUnauthorized(t *testing.T, p protocol) {
	// The server echoes the key, as some do.
	_, _, _, err := exchange(t, p, nil, reply{status: 401, body: `{"error":{"message":"Incorrect API key provided: ` + fakeKey + `"}}`})
	var ae *APIError
	if !errors.As(err, &ae) || !errors.Is(err, ErrAuth) || ae.Temporary() || ae.Attempts != 1 {
		t.Fatalf("error %#v, want a permanent ErrAuth after one attempt", err)
	}
	noKey(t, err)
	if !strings.Contains(err.Error(), "_KEY") {
		t.Errorf("error %q does not name the key's variable", err)
	}
}

func testUnknownModel(t *testing.T, p protocol) {
	_, _, _, err := exchange(t, p, nil, reply{status: 404, body: `{"error":"model 'nope' not found"}`})
	if !errors.Is(err, ErrUnknownModel) || !strings.Contains(err.Error(), "not found") {
		t.Fatalf("error %v, want ErrUnknownModel with the server's words", err)
	}
}
