package llm

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// memRecorder is a Recorder in memory.
type memRecorder struct {
	mu    sync.Mutex
	calls []*Call
}

func (m *memRecorder) Lookup(_ context.Context, key string) (*Call, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, c := range m.calls {
		if c.Key == key && c.Err == "" {
			return c, nil
		}
	}
	return nil, nil
}

func (m *memRecorder) Record(_ context.Context, c *Call) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	c.ID = uint64(len(m.calls) + 1)
	m.calls = append(m.calls, c)
	return nil
}

func TestRecorderAnswersRepeatedRequests(t *testing.T) {
	f := newFake(t, protoOpenAI, reply{text: "one", in: 5, out: 6}, reply{text: "two", in: 5, out: 6})
	var sl sleeps
	rec := &memRecorder{}
	c := client(t, protoOpenAI, f, &sl, func(c *Config) { c.Recorder = rec })
	ctx := context.Background()
	a, err := c.Generate(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.Generate(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(f.requests()); n != 1 || a.Cached || !b.Cached || b.Text != "one" || b.CallID != a.CallID {
		t.Fatalf("%d requests; first %+v, second %+v: want one call, the second answered from the ledger", n, a, b)
	}
	// Another sample of the same prompt is another request.
	r2 := req
	r2.Sample = 1
	d, err := c.Generate(ctx, r2)
	if err != nil || d.Cached || d.Text != "two" || len(f.requests()) != 2 {
		t.Fatalf("sample 1: %+v %v after %d requests; want a second call", d, err, len(f.requests()))
	}
	if len(rec.calls) != 2 || rec.calls[0].Usage.InputTokens != 5 || rec.calls[0].Request.Prompt != req.Prompt ||
		rec.calls[0].Settings.Reasoning != "effort=high" {
		t.Errorf("recorded %+v", rec.calls)
	}
}

func TestRecorderKeepsFailedCalls(t *testing.T) {
	f := newFake(t, protoAnthropic, reply{status: 400, body: `{"error":{"message":"bad ` + fakeKey + `"}}`},
		reply{text: "fine", in: 1, out: 1})
	var sl sleeps
	rec := &memRecorder{}
	c := client(t, protoAnthropic, f, &sl, func(c *Config) { c.Recorder = rec })
	if _, err := c.Generate(context.Background(), req); !errors.Is(err, ErrBadRequest) {
		t.Fatalf("error %v, want ErrBadRequest", err)
	}
	// A failed call is recorded but never served: the retry calls again.
	if resp, err := c.Generate(context.Background(), req); err != nil || resp.Cached {
		t.Fatalf("%+v %v: want a fresh call", resp, err)
	}
	if len(rec.calls) != 2 || rec.calls[0].Err == "" || strings.Contains(rec.calls[0].Err, fakeKey) {
		t.Fatalf("recorded %+v", rec.calls)
	}
}

func TestOpenAICompatibleServer(t *testing.T) {
	// A local server named by its base URL: no key needed, max_tokens (the
	// field such servers know), no reasoning unless asked.
	f := newFake(t, protoOpenAI, reply{text: "ok", in: 3, out: 4})
	clearProviderEnv(t)
	c, err := New(Config{Spec: "openai:llama-3.1-8b", BaseURL: f.url(), Getenv: env(nil), MaxTokens: 900})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Generate(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	b := f.requests()[0].body
	if resp.Text != "ok" || b["max_tokens"] != float64(900) || b["reasoning_effort"] != nil || b["temperature"] != nil {
		t.Errorf("answer %q, body %v", resp.Text, b)
	}
	if resp.Usage.Priced || resp.Usage.Cost != 0 {
		t.Errorf("an unknown model was priced: %+v", resp.Usage)
	}
}

func TestConfigErrors(t *testing.T) {
	clearProviderEnv(t)
	one := 0.5
	for _, tc := range []struct {
		cfg  Config
		want string
		kind error
	}{
		{Config{Spec: "gpt-5"}, "want PROVIDER:MODEL", nil},
		{Config{Spec: "mistral:large"}, `unknown provider "mistral"`, nil},
		{Config{Spec: "openai:gpt-5"}, "OPENAI_API_KEY", ErrNoKey},
		{Config{Spec: "anthropic:claude-sonnet-4-5"}, "ANTHROPIC_API_KEY", ErrNoKey},
		{Config{Spec: "google:gemini-2.5-pro"}, "GEMINI_API_KEY", ErrNoKey},
		{Config{Spec: "openai:gpt-5", KeyEnv: "MY_KEY"}, "MY_KEY", ErrNoKey},
		{Config{Spec: "ollama:qwen3", BaseURL: "localhost:11434"}, "want http://", nil},
		{Config{Spec: "ollama:qwen3", BaseURL: "http://[::1"}, "base URL", nil},
		{Config{Spec: "anthropic:claude-sonnet-4-5", Temperature: &one, Getenv: testEnv()}, "temperature 1", nil},
		{Config{Spec: "openai:gpt-5", Reasoning: "8000", Getenv: testEnv()}, "not a token budget", nil},
		{Config{Spec: "openai:gpt-5", Reasoning: "lots", Getenv: testEnv()}, "want max, high", nil},
		{Config{Spec: "replay:/nonexistent/answers.txt"}, "no such file", nil},
	} {
		if tc.cfg.Getenv == nil {
			tc.cfg.Getenv = env(nil)
		}
		_, err := New(tc.cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %v, want one line with %q", tc.cfg.Spec, err, tc.want)
		}
		if tc.kind != nil && !errors.Is(err, tc.kind) {
			t.Errorf("%s: error %v is not %v", tc.cfg.Spec, err, tc.kind)
		}
	}
}

func TestUnreachable(t *testing.T) {
	clearProviderEnv(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	var sl sleeps
	c, err := New(Config{Spec: "ollama:qwen3", BaseURL: "http://" + addr, Getenv: env(nil), Retry: Retry{Sleep: sl.sleep}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Generate(context.Background(), req)
	var ae *APIError
	if !errors.As(err, &ae) || !errors.Is(err, ErrUnreachable) || ae.Temporary() || len(sl.waits()) != 0 {
		t.Fatalf("error %v (waits %v), want a permanent ErrUnreachable at once", err, sl.waits())
	}
	if !strings.Contains(err.Error(), addr) {
		t.Errorf("error %q does not name the server", err)
	}
}

func TestAnthropicBudgets(t *testing.T) {
	for _, tc := range []struct {
		model, reasoning string
		maxTokens        int
		wantMax          float64
		wantBudget       any
	}{
		{"claude-sonnet-4-5", "", 0, 64000, float64(64000 - answerReserve)},
		{"claude-opus-4-1-20250805", "", 0, 32000, float64(32000 - answerReserve)},
		{"claude-sonnet-4-5", "medium", 0, 64000, float64(16000)},
		{"claude-sonnet-4-5", "16000", 20000, 20000, float64(16000)},
		{"claude-3-5-haiku-latest", "", 0, 8192, nil},
		{"claude-sonnet-4-5", "none", 0, 64000, nil},
	} {
		f := newFake(t, protoAnthropic, reply{text: "ok"})
		var sl sleeps
		c := client(t, protoAnthropic, f, &sl, func(c *Config) {
			c.Spec, c.Reasoning, c.MaxTokens = "anthropic:"+tc.model, tc.reasoning, tc.maxTokens
		})
		if _, err := c.Generate(context.Background(), req); err != nil {
			t.Fatal(err)
		}
		b := f.requests()[0].body
		var budget any
		if th, ok := b["thinking"].(map[string]any); ok {
			budget = th["budget_tokens"]
		}
		if b["max_tokens"] != tc.wantMax || budget != tc.wantBudget {
			t.Errorf("%s %q: max_tokens %v, budget %v; want %v, %v", tc.model, tc.reasoning, b["max_tokens"], budget, tc.wantMax, tc.wantBudget)
		}
	}
}

func TestExec(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.txt")
	c, err := New(Config{Spec: "exec:cat > " + in + "; echo 'the answer'"})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Generate(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(in)
	if resp.Text != "the answer\n" || string(got) != req.System+ExecSeparator+req.Prompt {
		t.Errorf("answer %q, stdin %q", resp.Text, got)
	}
	c, _ = New(Config{Spec: "exec:echo 'no such model' >&2; exit 3"})
	_, err = c.Generate(context.Background(), req)
	if !errors.Is(err, ErrCommand) || !strings.Contains(err.Error(), "exit status 3: no such model") {
		t.Errorf("error %v, want ErrCommand with the status and stderr", err)
	}
	c, _ = New(Config{Spec: "exec:sleep 30", Timeout: 100 * time.Millisecond})
	_, err = c.Generate(context.Background(), req)
	if !errors.Is(err, ErrTimeout) {
		t.Errorf("error %v, want ErrTimeout", err)
	}
}

func TestReplay(t *testing.T) {
	answers := []string{"first\n```go\nx\n```", "", "third\r\nline"}
	text := "a comment\n" + FormatReplay(answers)
	if got := ParseReplay(text); len(got) != 3 || got[0] != answers[0] || got[1] != "" || got[2] != "third\nline" {
		t.Fatalf("parsed %q", got)
	}
	path := filepath.Join(t.TempDir(), "answers.txt")
	os.WriteFile(path, []byte(FormatReplay([]string{"one", "two"})), 0o644)
	c, err := New(Config{Spec: "replay:" + path})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"one", "two"} {
		resp, err := c.Generate(context.Background(), req)
		if err != nil || resp.Text != want {
			t.Fatalf("%+v %v, want %q", resp, err, want)
		}
	}
	if _, err := c.Generate(context.Background(), req); !errors.Is(err, ErrReplay) || !strings.Contains(err.Error(), "holds 2 answers") {
		t.Errorf("error %v, want ErrReplay", err)
	}
}

func TestPrices(t *testing.T) {
	p := DefaultPrices()
	if pr, ok := p.Lookup(Anthropic, "claude-sonnet-4-5-20250929"); !ok || pr.Input != 3 {
		t.Errorf("claude-sonnet-4-5-20250929: %v %v", pr, ok)
	}
	if pr, ok := p.Lookup(OpenAI, "gpt-5-mini"); !ok || pr.Input != 0.25 {
		t.Errorf("gpt-5-mini: %v %v (the longer key must win)", pr, ok)
	}
	if pr, ok := p.Lookup(Ollama, "qwen3"); !ok || pr != (Price{}) {
		t.Errorf("ollama: %v %v, want free (a local model)", pr, ok)
	}
	if _, ok := p.Lookup(Exec, "claude -p"); ok {
		t.Error("a command priced")
	}
	if got := (Price{Input: 2, Output: 10}).Cost(Usage{InputTokens: 1e6, OutputTokens: 5e5}); got != 7 {
		t.Errorf("cost %v, want 7", got)
	}
	path := filepath.Join(t.TempDir(), "prices.json")
	os.WriteFile(path, []byte(`{"openai:my-model": {"input": 1, "output": 2}, "openai:gpt-5": {"input": 9, "output": 9}}`), 0o644)
	p, err := LoadPrices(path)
	if err != nil {
		t.Fatal(err)
	}
	if pr, _ := p.Lookup(OpenAI, "my-model"); pr.Output != 2 {
		t.Errorf("my-model %v", pr)
	}
	if pr, _ := p.Lookup(OpenAI, "gpt-5"); pr.Input != 9 {
		t.Errorf("override %v", pr)
	}
	if pr, _ := p.Lookup(Anthropic, "claude-sonnet-4"); pr.Input != 3 {
		t.Errorf("built-in lost: %v", pr)
	}
	os.WriteFile(path, []byte(`{"gpt-5": 3}`), 0o644)
	if _, err := LoadPrices(path); err == nil {
		t.Error("a malformed price file was accepted")
	}
}

func TestRetryAfterHeader(t *testing.T) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		k, v string
		want time.Duration
	}{
		{"Retry-After", "3", 3 * time.Second},
		{"Retry-After", "0.5", 500 * time.Millisecond},
		{"Retry-After", now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second},
		{"Retry-After-Ms", "250", 250 * time.Millisecond},
		{"Retry-After", "soon", 0},
	} {
		h := map[string][]string{tc.k: {tc.v}}
		if got := retryAfter(h, now); got != tc.want {
			t.Errorf("%s: %s → %v, want %v", tc.k, tc.v, got, tc.want)
		}
	}
}
