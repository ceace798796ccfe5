package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"policyevolve/llm"
	"policyevolve/store"
)

// testKey is the key the LLM tests hand the CLI; it must appear nowhere
// in the outputs or the store.
const testKey = "sk-cli-test-SECRET-4242424242"

func clearLLMEnv(t *testing.T) {
	for _, v := range []string{"OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_BASE", "OPENAI_MODEL", "OPENAI_ORGANIZATION",
		"ANTHROPIC_API_KEY", "GOOGLE_API_KEY", "GEMINI_API_KEY", "OLLAMA_HOST", "POLICYEVOLVE_LLM"} {
		t.Setenv(v, "")
	}
	t.Setenv("PE_TEST_KEY", testKey)
}

// openAIServer is a small OpenAI-compatible server: it answers each
// request with the next of its replies (status, body), then with the last.
type openAIServer struct {
	*httptest.Server
	mu      sync.Mutex
	replies []func(w http.ResponseWriter)
	auth    []string
	prompts []string
	bodies  []string
}

func newOpenAIServer(t *testing.T, replies ...func(w http.ResponseWriter)) *openAIServer {
	s := &openAIServer{replies: replies}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Messages []struct{ Role, Content string }
		}
		data, _ := io.ReadAll(r.Body)
		json.Unmarshal(data, &body)
		s.mu.Lock()
		s.auth = append(s.auth, r.Header.Get("Authorization"))
		s.bodies = append(s.bodies, string(data))
		if n := len(body.Messages); n > 0 {
			s.prompts = append(s.prompts, body.Messages[n-1].Content)
		}
		reply := s.replies[0]
		if len(s.replies) > 1 {
			s.replies = s.replies[1:]
		}
		s.mu.Unlock()
		reply(w)
	}))
	t.Cleanup(s.Close)
	return s
}

func answer(text string, in, out int) func(w http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"id": "x", "object": "chat.completion",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": text}}},
			"usage": map[string]any{"prompt_tokens": in, "completion_tokens": out}})
	}
}

func status(code int, body string, header ...string) func(w http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		w.WriteHeader(code)
		io.WriteString(w, body)
	}
}

func TestLLMPing(t *testing.T) {
	clearLLMEnv(t)
	srv := newOpenAIServer(t, answer("pong", 12, 1))
	code, out, errOut := runCLI(t, context.Background(), "llm", "ping", "--llm", "openai:local-model",
		"--llm-base-url", srv.URL+"/v1", "--llm-key-env", "PE_TEST_KEY", "--temperature", "0.2")
	if code != 0 {
		t.Fatalf("exit %d: %s%s", code, out, errOut)
	}
	for _, want := range []string{"openai:local-model at http://127.0.0.1", `"pong"`, "tokens 12 in, 1 out", "cost unknown", "temperature 0.2"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if srv.auth[0] != "Bearer "+testKey || strings.Contains(out+errOut, testKey) {
		t.Errorf("auth %q; output %s", srv.auth[0], out+errOut)
	}
	code, out, _ = runCLI(t, context.Background(), "llm", "ping", "--llm", "openai:gpt-4o", "--llm-base-url", srv.URL+"/v1", "--json",
		"--prices", writeFile(t, "p.json", `{"openai:gpt-4o": {"input": 1000000, "output": 0}}`))
	var rep struct {
		Model       string  `json:"model"`
		InputTokens int     `json:"input_tokens"`
		Cost        float64 `json:"cost_usd"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil || rep.Model != "openai:gpt-4o" || rep.InputTokens != 12 || rep.Cost != 12 {
		t.Errorf("json ping: exit %d, %+v from %s", code, rep, out)
	}
}

// TestLLMPingErrors: each failure a user meets first is one clear line.
func TestLLMPingErrors(t *testing.T) {
	clearLLMEnv(t)
	refused := newOpenAIServer(t, status(401, `{"error":{"message":"Incorrect API key provided: `+testKey+`"}}`))
	unknown := newOpenAIServer(t, status(404, `{"error":{"message":"The model 'gpt-9' does not exist"}}`))
	down := httptest.NewServer(http.NotFoundHandler())
	downURL := down.URL
	down.Close()
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--llm", "openai:gpt-5"}, 1, "no API key: set OPENAI_API_KEY"},
		{[]string{"--llm", "anthropic:claude-sonnet-4-5"}, 1, "ANTHROPIC_API_KEY"},
		{[]string{"--llm", "openai:gpt-5", "--llm-base-url", refused.URL + "/v1", "--llm-key-env", "PE_TEST_KEY"}, 1, "authentication failed (HTTP 401)"},
		{[]string{"--llm", "openai:gpt-9", "--llm-base-url", unknown.URL + "/v1"}, 1, "unknown model (HTTP 404): The model 'gpt-9' does not exist"},
		{[]string{"--llm", "ollama:qwen3", "--llm-base-url", downURL}, 1, "server unreachable"},
		{[]string{"--llm", "ollama:qwen3", "--llm-base-url", "localhost:11434"}, 1, "want http://"},
		{[]string{"--llm", "gpt-5"}, 2, "want PROVIDER:MODEL"},
		{[]string{}, 2, "--llm is required"},
		{[]string{"--llm", "openai:gpt-5", "--reasoning", "lots"}, 2, "--reasoning"},
		{[]string{"--llm", "openai:gpt-5", "--temperature", "hot"}, 2, "--temperature"},
	} {
		code, out, errOut := runCLI(t, context.Background(), append([]string{"llm", "ping"}, tc.args...)...)
		if code != tc.code || !strings.Contains(errOut, tc.want) || strings.Count(errOut, "\n") != 1 || out != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit %d and one line with %q", tc.args, code, out, errOut, tc.code, tc.want)
		}
		if strings.Contains(out+errOut, testKey) {
			t.Errorf("%v: the key leaked: %s", tc.args, errOut)
		}
	}
}

const goodAnswer = "Greedy.\n```go\npackage policy\n\nimport \"ssd\"\n\nfunc Policy(v *ssd.View, agent int) int {\n\treturn v.GreedyAction(agent)\n}\n```\n"

func TestProposeReplay(t *testing.T) {
	clearLLMEnv(t)
	st := filepath.Join(t.TempDir(), "s.db")
	answers := writeFile(t, "answers.txt", llm.FormatReplay([]string{
		"```go\nfunc Policy(v *ssd.View, agent int) int { return ssd.Nowhere }\n```", goodAnswer}))
	args := append([]string{"propose", "--store", st, "--llm", "replay:" + answers, "--seeds", "0", "--step-timeout", "5s"}, envFlags...)
	out, _ := cli(t, args...)
	for _, want := range []string{"attempt 1: policy.go:1:", "undefined: ssd.Nowhere", "attempt 2: ok", "usage: 2 call(s)",
		"(stored), init by llm:replay:", "llm-call:2", "self-play on seeds [0]: ok", "func Policy(v *ssd.View, agent int) int {"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// Again: answered from the store, no call.
	out, _ = cli(t, args...)
	if !strings.Contains(out, "usage: 0 call(s)") || !strings.Contains(out, "(already in the store)") {
		t.Errorf("second propose:\n%s", out)
	}
	// Improve the stored policy.
	id := strings.Fields(out[strings.Index(out, "\npolicy ")+1:])[1]
	better := writeFile(t, "better.txt", llm.FormatReplay([]string{strings.ReplaceAll(goodAnswer, "GreedyAction", "ExploitAction")}))
	out, _ = cli(t, append([]string{"propose", "--store", st, "--llm", "replay:" + better, "--seeds", "0", "--step-timeout", "5s",
		"--from", id[:10], "--feedback", "sparse"}, envFlags...)...)
	if !strings.Contains(out, "(stored), improve by llm:replay:") || !strings.Contains(out, "from "+id[:12]) || !strings.Contains(out, "usage: 1 call(s)") {
		t.Errorf("propose --from:\n%s", out)
	}
	// Improve it with the critic's reflections: the prompt carries them,
	// and the critique is stored with the parent.
	out, _ = cli(t, append([]string{"propose", "--store", st, "--llm", "replay:" + better, "--seeds", "0", "--step-timeout", "5s",
		"--from", id[:10], "--feedback", "critic", "--sample", "1"}, envFlags...)...)
	if !strings.Contains(out, "usage: 1 call(s)") {
		t.Errorf("propose --feedback critic:\n%s", out)
	}
	s, err := store.Open(st, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	var calls []store.LLMCall
	var crits []store.Critique
	if err := s.View(func(tx *store.Tx) (err error) {
		if calls, err = tx.LLMCalls(""); err != nil {
			return err
		}
		crits, err = tx.Critiques(id)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	last := calls[len(calls)-1].Prompt
	if !strings.Contains(last, "What a review of the current policy's episodes found") || len(crits) != 1 {
		t.Errorf("%d critiques; the critic-level prompt:\n%s", len(crits), last)
	}
}

// TestProposeKeepsTheKeySecret: a run through an OpenAI-compatible server
// that throttles once and echoes the key in an error: the key appears
// nowhere in the outputs or the store file.
func TestProposeKeepsTheKeySecret(t *testing.T) {
	clearLLMEnv(t)
	srv := newOpenAIServer(t,
		status(429, `{"error":{"message":"Rate limit for key `+testKey+`"}}`, "Retry-After", "0.01"),
		answer("no code here, key "+testKey, 100, 10),
		answer(goodAnswer, 120, 30))
	st := filepath.Join(t.TempDir(), "s.db")
	args := append([]string{"propose", "--store", st, "--llm", "openai:my-model", "--llm-base-url", srv.URL + "/v1",
		"--llm-key-env", "PE_TEST_KEY", "--seeds", "0", "--step-timeout", "5s", "--json"}, envFlags...)
	code, out, errOut := runCLI(t, context.Background(), args...)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	var rep struct {
		ID       string
		Attempts []string
		Usage    struct{ LLMCalls, InputTokens int }
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || rep.ID == "" || len(rep.Attempts) != 2 || rep.Usage.LLMCalls != 2 || rep.Usage.InputTokens != 220 {
		t.Fatalf("%v: %+v from %s", err, rep, out)
	}
	if len(srv.auth) != 3 || srv.auth[2] != "Bearer "+testKey {
		t.Errorf("requests %d, auth %v", len(srv.auth), srv.auth)
	}
	if !strings.Contains(srv.prompts[2], "could not find the policy") {
		t.Errorf("the fix prompt does not feed back the missing policy:\n%s", srv.prompts[2])
	}
	_, show, _ := runCLI(t, context.Background(), "pool", "show", rep.ID[:12], "--store", st)
	data, err := os.ReadFile(st)
	if err != nil {
		t.Fatal(err)
	}
	for what, text := range map[string]string{"stdout": out, "stderr": errOut, "store": string(data), "pool show": show} {
		if strings.Contains(text, testKey) {
			t.Errorf("the key is in the %s", what)
		}
	}
	if !strings.Contains(string(data), "[redacted]") {
		t.Error("the answer that quoted the key was not recorded redacted")
	}
}

// TestProposeReact: with --prompt-style react the model plays a draft
// first; its scores on the evaluation seeds come back in the next turn's
// prompt, and the proposal's two turns are two LLM calls.
func TestProposeReact(t *testing.T) {
	clearLLMEnv(t)
	st := filepath.Join(t.TempDir(), "s.db")
	answers := writeFile(t, "answers.txt", llm.FormatReplay([]string{"Thought: does it collect?\nAction: play\n" + goodAnswer, "Final:\n" + goodAnswer}))
	out, _ := cli(t, append([]string{"propose", "--store", st, "--llm", "replay:" + answers, "--seeds", "0-2", "--step-timeout", "5s",
		"--prompt-style", "react", "--feedback", "dense", "--json"}, envFlags...)...)
	var rep struct {
		ID    string
		Usage struct{ LLMCalls int }
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || rep.ID == "" || rep.Usage.LLMCalls != 2 {
		t.Fatalf("report %+v (%v) from %s", rep, err, out)
	}
	s, err := store.Open(st, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	calls := ledger(t, s)
	if len(calls) != 2 {
		t.Fatalf("%d calls, want 2", len(calls))
	}
	second := calls[1].Prompt
	if !strings.Contains(second, "## Observation 1\n\n- seed 0: reward per agent") || !strings.Contains(second, "- seed 1:") ||
		strings.Contains(second, "- seed 2:") || !strings.Contains(second, "equality") {
		t.Errorf("the second turn's prompt lacks the draft's scores on seeds 0 and 1:\n%s", second[max(0, len(second)-700):])
	}
}

// TestProposePromptStyles: naive drops the example and the reasoning,
// cot asks for named reasoning steps; the standard prompts have both the
// example and no named steps; --adversarial adds the "no holds barred"
// section. A style that does not exist is a usage error.
func TestProposePromptStyles(t *testing.T) {
	clearLLMEnv(t)
	st := filepath.Join(t.TempDir(), "s.db")
	for _, style := range []string{"standard", "naive", "cot"} {
		answers := writeFile(t, "answers.txt", llm.FormatReplay([]string{goodAnswer}))
		cli(t, append([]string{"propose", "--store", st, "--llm", "replay:" + answers, "--seeds", "0", "--step-timeout", "5s",
			"--prompt-style", style, "--sample", fmt.Sprint(len(style))}, envFlags...)...)
	}
	s, err := store.Open(st, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	answers := writeFile(t, "answers.txt", llm.FormatReplay([]string{goodAnswer}))
	cli(t, append([]string{"propose", "--store", st, "--llm", "replay:" + answers, "--seeds", "0", "--step-timeout", "5s",
		"--adversarial", "--sample", "9"}, envFlags...)...)
	calls := ledger(t, s)
	if len(calls) != 4 {
		t.Fatalf("%d calls", len(calls))
	}
	for i, c := range calls {
		if got := strings.Contains(c.System, "## No holds barred"); got != (i == 3) {
			t.Errorf("call %d: adversarial section %v", i, got)
		}
	}
	for i, want := range []struct{ example, steps bool }{{true, false}, {false, false}, {true, true}} {
		c := calls[i]
		if got := strings.Contains(c.System, "## A working example"); got != want.example {
			t.Errorf("call %d: example in the system message %v, want %v", i, got, want.example)
		}
		if got := strings.Contains(c.Prompt, "Think step by step"); got != want.steps {
			t.Errorf("call %d: named reasoning steps %v, want %v", i, got, want.steps)
		}
	}
	code, _, errOut := runCLI(t, t.Context(), "propose", "--llm", "replay:x", "--prompt-style", "loud")
	if code != 2 || !strings.Contains(errOut, `unknown prompt style "loud"`) {
		t.Errorf("--prompt-style loud: exit %d, %s", code, errOut)
	}
}

// ledger lists the LLM calls recorded in a store (opened read-only)
// outside runs.
func ledger(t *testing.T, s *store.Store) []store.LLMCall { return ledgerOf(t, s, "") }

// ledgerOf lists the LLM calls of run.
func ledgerOf(t *testing.T, s *store.Store, run string) []store.LLMCall {
	t.Helper()
	var calls []store.LLMCall
	if err := s.View(func(tx *store.Tx) (err error) {
		calls, err = tx.LLMCalls(run)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return calls
}
