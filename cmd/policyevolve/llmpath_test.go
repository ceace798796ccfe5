package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"policyevolve/evolve"
	"policyevolve/llm"
	"policyevolve/store"
)

// llmFlags parses args as the flags of a command that calls models, with
// the config file given (if any), and returns the options.
func llmFlags(t *testing.T, config string, args ...string) (*llmOptions, error) {
	t.Helper()
	var o llmOptions
	fs := newFlagSet("test", "", "", &strings.Builder{})
	o.register(fs)
	if config != "" {
		if err := applyConfigFile(fs, config); err != nil {
			return nil, err
		}
	}
	if err := parseFlags(fs, args, false); err != nil {
		return nil, err
	}
	return &o, o.check()
}

// TestModelsHaveTheirOwnEndpoints: each model is reached at its own server
// (--llm SPEC@URL, or the config file's models table) with its own key
// variable and time limit; a shared --llm-base-url or --llm-key-env that
// would serve models of several providers alike is refused (Anthropic is
// never sent to an OpenAI-compatible URL by accident).
func TestModelsHaveTheirOwnEndpoints(t *testing.T) {
	clearLLMEnv(t)
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-test")
	o, err := llmFlags(t, "", "--llm", "openai:qwen3@http://gpu:8000/v1", "--llm", "anthropic:claude-sonnet-4@20250514", "--llm-timeout", "1m")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"openai:qwen3", "anthropic:claude-sonnet-4@20250514"}; strings.Join(o.specs, " ") != strings.Join(want, " ") {
		t.Fatalf("specs %q, want %q (a model name's own @ stays)", o.specs, want)
	}
	for spec, want := range map[string]string{"openai:qwen3": "http://gpu:8000/v1", "anthropic:claude-sonnet-4@20250514": "https://api.anthropic.com/v1"} {
		c, err := o.clientFor(spec, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if c.BaseURL() != want {
			t.Errorf("%s at %s, want %s", spec, c.BaseURL(), want)
		}
	}
	if eps := o.endpoints(); len(eps) != 1 || eps["openai:qwen3"].BaseURL != "http://gpu:8000/v1" {
		t.Errorf("endpoints to store %+v", eps)
	}
	// A shared server for two providers.
	for _, flag := range []string{"--llm-base-url", "--llm-key-env"} {
		_, err = llmFlags(t, "", "--llm", "openai:qwen3", "--llm", "anthropic:claude-sonnet-4-5", flag, "http://gpu:8000/v1")
		if err == nil || !strings.Contains(err.Error(), flag+" would serve models of anthropic and openai alike") {
			t.Errorf("%s for two providers: %v", flag, err)
		}
	}
	// One provider, or the other with a server of its own: fine.
	if _, err := llmFlags(t, "", "--llm", "openai:a", "--llm", "openai:b", "--llm-base-url", "http://gpu:8000/v1"); err != nil {
		t.Errorf("two OpenAI-compatible models on one server: %v", err)
	}
	if _, err := llmFlags(t, "", "--llm", "openai:a", "--llm", "anthropic:claude-sonnet-4-5@https://proxy/v1", "--llm-base-url", "http://gpu:8000/v1"); err != nil {
		t.Errorf("a shared server for the one model without its own: %v", err)
	}
	// The config file's models table.
	cfg := writeFile(t, "models.toml", `llm = ["openai:qwen3", "anthropic:claude-sonnet-4-5"]

[models."openai:qwen3"]
base-url = "http://gpu-box:8000/v1"
key-env = "PE_TEST_KEY"
timeout = "30m"
retries = 2
`)
	o, err = llmFlags(t, cfg)
	if err != nil {
		t.Fatal(err)
	}
	e := o.endpoint("openai:qwen3")
	if e.BaseURL != "http://gpu-box:8000/v1" || e.KeyEnv != "PE_TEST_KEY" || e.Timeout.String() != "30m0s" || e.Retries != 2 {
		t.Errorf("openai:qwen3 from the table: %+v", e)
	}
	if e := o.endpoint("anthropic:claude-sonnet-4-5"); e.BaseURL != "" || e.KeyEnv != "" || e.Timeout != llm.DefaultTimeout {
		t.Errorf("anthropic's endpoint took the other's settings: %+v", e)
	}
	bad := writeFile(t, "bad.toml", "[models.\"openai:qwen3\"]\nbase-ur = \"x\"\n")
	if _, err := llmFlags(t, bad); err == nil || !strings.Contains(err.Error(), `"base-ur"`) {
		t.Errorf("a misspelt key in the models table: %v", err)
	}
}

// TestPingJSONErrors: llm ping --json writes a failure as JSON on stdout,
// with its kind, status and hint; the exit code is the failure's.
func TestPingJSONErrors(t *testing.T) {
	clearLLMEnv(t)
	refused := newOpenAIServer(t, status(401, `{"error":{"message":"Incorrect API key provided"}}`))
	code, out, _ := runCLI(t, context.Background(), "llm", "ping", "--json", "--llm", "openai:gpt-5",
		"--llm-base-url", refused.URL+"/v1", "--llm-key-env", "PE_TEST_KEY")
	var rep pingError
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, out)
	}
	if code != 1 || rep.Model != "openai:gpt-5" || rep.Error.Kind != "authentication failed" || rep.Error.Status != 401 ||
		rep.Error.Temporary || !strings.Contains(rep.Error.Hint, "PE_TEST_KEY") || strings.Contains(out, testKey) {
		t.Errorf("exit %d, %+v", code, rep)
	}
	code, out, _ = runCLI(t, context.Background(), "llm", "ping", "--json")
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 2 || rep.Error.Kind != "usage" {
		t.Errorf("without --llm: exit %d, %+v (%v)", code, rep, err)
	}
}

// TestMaxCostRefusesAnUnpricedModel: --max-cost with a model that has no
// price exits before any request, saying how to give one; with a price
// the budget can hold it.
func TestMaxCostRefusesAnUnpricedModel(t *testing.T) {
	clearLLMEnv(t)
	srv := newOpenAIServer(t, answer(goodAnswer, 10, 10))
	db := filepath.Join(t.TempDir(), "s.db")
	code, _, errOut := runCLI(t, context.Background(), append([]string{"evolve", "--store", db, "--llm", "openai:local@" + srv.URL + "/v1",
		"--max-cost", "1", "--iterations", "1", "--candidates", "1"}, envFlags...)...)
	if code != 2 || !strings.Contains(errOut, "--max-cost $1.00 cannot hold openai:local: no price for the model") || !strings.Contains(errOut, "--prices") {
		t.Errorf("exit %d: %s", code, errOut)
	}
	if len(srv.prompts) != 0 {
		t.Errorf("%d requests sent", len(srv.prompts))
	}
	if _, err := os.Stat(db); err == nil {
		t.Error("a run was stored")
	}
	// Priced but unbounded: the answer's length must be bounded.
	prices := writeFile(t, "p.json", `{"openai:local": {"input": 1, "output": 2}}`)
	code, _, errOut = runCLI(t, context.Background(), append([]string{"evolve", "--store", db, "--llm", "openai:local@" + srv.URL + "/v1",
		"--max-cost", "1", "--prices", prices}, envFlags...)...)
	if code != 2 || !strings.Contains(errOut, "--llm-max-tokens") {
		t.Errorf("unbounded: exit %d: %s", code, errOut)
	}
}

// flakyServer answers the first request with first, then cuts every
// later connection and stops listening: a server that went away mid-run.
func flakyServer(t *testing.T, first string) *httptest.Server {
	var mu sync.Mutex
	n := 0
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n++
		k := n
		mu.Unlock()
		if k == 1 {
			answer(first, 100, 50)(w)
			return
		}
		srv.Listener.Close()
		if c, _, err := w.(http.Hijacker).Hijack(); err == nil {
			c.Close()
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestResumeMovesTheModel: a run whose server went away mid-candidate (the
// first answer recorded, the fix cut off) fails; resumed against the dead
// server it fails again without recording a call that never reached it;
// resumed with --llm-base-url on a new server it says so, finds the first
// answer in its ledger (the new server is never asked the first prompt)
// and sends the fix there as a conversation: the failed answer as the
// assistant's message.
func TestResumeMovesTheModel(t *testing.T) {
	clearLLMEnv(t)
	bad := "I will stand.\n```go\nfunc Policy(v *ssd.View, agent int) int { return ssd.Nowhere }\n```"
	old := flakyServer(t, bad)
	db := filepath.Join(t.TempDir(), "s.db")
	args := append([]string{"evolve", "--store", db, "--mode", "chain", "--iterations", "1", "--seeds", "0", "--step-timeout", "5s",
		"--llm-retries", "1"}, envFlags...)
	code, _, errOut := runCLI(t, context.Background(), append(args, "--llm", "openai:m", "--llm-base-url", old.URL+"/v1")...)
	if code != 1 {
		t.Fatalf("the first run: exit %d, want a failure:\n%s", code, errOut)
	}
	s, err := store.Open(db, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	runs := func() []store.Run {
		var rs []store.Run
		s.View(func(tx *store.Tx) (err error) {
			rs, err = tx.Runs()
			return err
		})
		return rs
	}
	rs := runs()
	if len(rs) != 1 || rs[0].Status != store.StatusFailed {
		t.Fatalf("runs %+v", rs)
	}
	id := rs[0].ID
	recorded := len(ledgerOf(t, s, id))
	// Resumed at the dead server: a failure, and no phantom call.
	code, _, errOut = runCLI(t, context.Background(), "evolve", "--store", db, "--resume", id)
	if code != 1 || !strings.Contains(errOut, "server unreachable") {
		t.Fatalf("resumed at the dead server: exit %d: %s", code, errOut)
	}
	if n := len(ledgerOf(t, s, id)); n != recorded {
		t.Fatalf("%d calls in the ledger after a resume that reached no server, want %d", n, recorded)
	}
	// The models and the seeds cannot change.
	for _, bad := range [][]string{{"--llm", "openai:other"}, {"--seed", "99"}, {"--seeds", "0-3"}, {"--temperature", "0.3"}} {
		code, _, errOut := runCLI(t, context.Background(), append([]string{"evolve", "--store", db, "--resume", id}, bad...)...)
		if code != 2 || !strings.Contains(errOut, "cannot change") {
			t.Errorf("resume with %v: exit %d: %s", bad, code, errOut)
		}
	}
	// Moved to a new server.
	moved := newOpenAIServer(t, answer(goodAnswer, 100, 50))
	code, out, errOut := runCLI(t, context.Background(), "evolve", "--store", db, "--resume", id, "--llm-base-url", moved.URL+"/v1",
		"--llm-key-env", "PE_TEST_KEY")
	if code != 0 {
		t.Fatalf("moved: exit %d\n%s%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "resume: openai:m: server "+moved.URL+"/v1 (was "+old.URL+"/v1), key from PE_TEST_KEY (was the provider's variable)") {
		t.Errorf("the resume does not say what it changed:\n%s", errOut)
	}
	if moved.auth[0] != "Bearer "+testKey || strings.Contains(out+errOut, testKey) {
		t.Errorf("the new key was not sent (%q), or it leaked", moved.auth[0])
	}
	// The model has no price: said when the job starts, and its cost is
	// unknown rather than $0.
	if !strings.Contains(errOut, "openai:m has no price") || !strings.Contains(out, "cost unknown") || strings.Contains(out, "$0.0000") {
		t.Errorf("an unpriced model's cost:\n%s%s", out, errOut)
	}
	calls := ledgerOf(t, s, id)
	inits := 0
	var fix *store.LLMCall
	for i, c := range calls {
		if c.Purpose == "init" {
			inits++
		}
		if c.Purpose == "fix" && c.Error == "" && fix == nil {
			fix = &calls[i]
		}
	}
	if inits != 1 || len(moved.prompts) == 0 {
		t.Fatalf("%d init calls in the ledger, %d requests to the new server: the first answer must be found again", inits, len(moved.prompts))
	}
	if fix == nil || len(fix.Turns) != 2 || fix.Turns[0].Role != llm.RoleAssistant || fix.Turns[0].Text != bad ||
		fix.BaseURL != moved.URL+"/v1" {
		t.Fatalf("the fix call %+v", fix)
	}
	if !strings.Contains(moved.bodies[0], `"role":"assistant"`) || !strings.Contains(moved.bodies[0], "ssd.Nowhere") {
		t.Errorf("the fix request on the wire has no assistant message with the failed answer:\n%s", moved.bodies[0])
	}
	// A Gathering system message names nothing only Cleanup has.
	for _, w := range []string{"CleanBeamCount", "WasteAt", "ssd.Clean ", "Clean       = 8", "RiverCells"} {
		if strings.Contains(moved.bodies[0], w) {
			t.Errorf("the Gathering request names %q", w)
		}
	}
	// The move is stored: resuming again goes to the new server.
	var cfg evolve.JobConfig
	for _, r := range runs() {
		if r.ID == id {
			json.Unmarshal(r.Config, &cfg)
		}
	}
	if e := cfg.Endpoints["openai:m"]; e.BaseURL != moved.URL+"/v1" || e.Identity != old.URL+"/v1" {
		t.Errorf("stored endpoint %+v", e)
	}
}

// TestResumeMoveRules: what a resume may change of how a run's models are
// reached, what it says, and what it refuses.
func TestResumeMoveRules(t *testing.T) {
	clearLLMEnv(t)
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-test")
	t.Setenv("OPENAI_API_KEY", "sk-test")
	start, err := llmFlags(t, "", "--llm", "openai:gpt-5", "--llm", "anthropic:claude-sonnet-4-5")
	if err != nil {
		t.Fatal(err)
	}
	stored, planners := start.settings(), []string{"llm:openai:gpt-5", "llm:anthropic:claude-sonnet-4-5"}
	resume := func(args ...string) ([]string, *llmOptions, error) {
		var now llmOptions
		fs := newFlagSet("test", "", "", &strings.Builder{})
		now.register(fs)
		if err := parseFlags(fs, args, false); err != nil {
			t.Fatal(err)
		}
		var run llmOptions
		run.apply(stored, planners, start.endpoints())
		changes, err := run.move(&now, stored)
		return changes, &run, err
	}
	changes, run, err := resume("--llm", "openai:gpt-5@http://proxy:8080/v1")
	if err != nil || len(changes) != 1 || changes[0] != "openai:gpt-5: server http://proxy:8080/v1 (was https://api.openai.com/v1)" {
		t.Fatalf("moving one model: %q %v", changes, err)
	}
	if e := run.endpoint("openai:gpt-5"); e.BaseURL != "http://proxy:8080/v1" || e.Identity != "https://api.openai.com/v1" {
		t.Errorf("moved endpoint %+v", e)
	}
	if e := run.endpoint("anthropic:claude-sonnet-4-5"); e.BaseURL != "" {
		t.Errorf("the other model moved too: %+v", e)
	}
	changes, _, err = resume("--llm-timeout", "1h", "--llm", "anthropic:claude-sonnet-4-5@https://gw/v1")
	want := []string{"anthropic:claude-sonnet-4-5: server https://gw/v1 (was https://api.anthropic.com/v1), time limit 1h0m0s per attempt (was 15m0s)",
		"openai:gpt-5: time limit 1h0m0s per attempt (was 15m0s)"}
	if err != nil || strings.Join(changes, "\n") != strings.Join(want, "\n") {
		t.Errorf("a server and a time limit: %q %v", changes, err)
	}
	if changes, _, err := resume(); err != nil || len(changes) != 0 {
		t.Errorf("nothing given: %q %v", changes, err)
	}
	for _, bad := range [][]string{
		{"--llm-base-url", "http://proxy:8080/v1"}, // both providers alike
		{"--llm-key-env", "PE_TEST_KEY"},           // both providers alike
		{"--llm", "openai:gpt-4o"},                 // not the run's
		{"--reasoning", "low"},                     // part of every request
	} {
		if _, _, err := resume(bad...); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}
