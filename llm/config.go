package llm

import (
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
)

// Providers.
const (
	OpenAI    = "openai"
	Anthropic = "anthropic"
	Google    = "google"
	Ollama    = "ollama"
	Exec      = "exec"
	Replay    = "replay"
)

// Providers lists the provider names a spec may start with.
var Providers = []string{OpenAI, Anthropic, Google, Ollama, Exec, Replay}

// Config selects and configures a model. The zero value of every field
// but Spec works; defaults are set in applyDefaults.
type Config struct {
	// Spec is "PROVIDER:MODEL": openai:gpt-5, anthropic:claude-sonnet-4-5,
	// google:gemini-2.5-pro, ollama:qwen3, exec:COMMAND (the prompt on
	// standard input, the answer on standard output), replay:FILE.
	Spec string
	// BaseURL is the server (openai: any OpenAI-compatible server, e.g.
	// http://localhost:8000/v1; ollama: http://host:11434). Empty: the
	// provider's own.
	BaseURL string
	// IdentityURL is the server a request's identity names (RequestKey):
	// empty, the one called (BaseURL resolved). A run that moves a model
	// to another server keeps here the server of its first calls, so that
	// it still finds the answers it recorded.
	IdentityURL string
	// KeyEnv names the environment variable holding the API key, instead
	// of the provider's usual one.
	KeyEnv string
	// Temperature is sent only when set; nil leaves the provider's default.
	Temperature *float64
	// MaxTokens bounds the answer, reasoning included; 0 leaves the
	// provider's default (Anthropic, which requires one: the model's
	// largest output).
	MaxTokens int
	// Reasoning is the thinking effort: "" or "max" for the largest the
	// model accepts, "high", "medium", "low", "none", or a token budget
	// (Anthropic, Google). See reasoning.go for what each provider gets.
	Reasoning string
	// Stream asks the server to stream the answer (OpenAI-style servers,
	// Anthropic, Ollama); the Client still returns it whole.
	Stream bool
	// Timeout bounds one attempt, the whole answer included. Default
	// 15 minutes: a model thinking at length is slow.
	Timeout time.Duration
	// Retry is the retry policy of the HTTP providers.
	Retry Retry
	// Prices maps models to prices; nil: DefaultPrices.
	Prices Prices
	// Recorder writes every call and answers repeated requests; nil
	// records nothing and caches nothing.
	Recorder Recorder
	// Gate admits each call before it is sent (a run's budgets); nil
	// admits all.
	Gate Gate
	// Throttle paces the calls to the server, shared by the Clients that
	// call it (a 429 slows them all); nil: the Client has its own.
	Throttle *Throttle
	// Getenv reads the environment; nil: os.Getenv. Tests set it.
	Getenv func(string) string
	// Transport carries the HTTP requests under the retries; nil: a clone
	// of http.DefaultTransport.
	Transport http.RoundTripper
}

// DefaultTimeout bounds one attempt of a call.
const DefaultTimeout = 15 * time.Minute

func (c *Config) applyDefaults() {
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	c.Retry.applyDefaults()
	if c.Prices == nil {
		c.Prices = DefaultPrices()
	}
	if c.Getenv == nil {
		c.Getenv = os.Getenv
	}
	if c.Transport == nil {
		c.Transport = http.DefaultTransport.(*http.Transport).Clone()
	}
	if c.Throttle == nil {
		c.Throttle = NewThrottle(0)
	}
}

// ParseSpec splits "PROVIDER:MODEL". The model of exec: is a command
// line, that of replay: a file.
func ParseSpec(spec string) (provider, model string, err error) {
	provider, model, ok := strings.Cut(strings.TrimSpace(spec), ":")
	if !ok || model == "" || provider == "" {
		return "", "", fmt.Errorf("model %q: want PROVIDER:MODEL, e.g. openai:gpt-5 or anthropic:claude-sonnet-4-5 (providers: %s)",
			spec, strings.Join(Providers, ", "))
	}
	provider = strings.ToLower(provider)
	for _, p := range Providers {
		if p == provider {
			return provider, strings.TrimSpace(model), nil
		}
	}
	return "", "", fmt.Errorf("model %q: unknown provider %q (want %s)", spec, provider, strings.Join(Providers, ", "))
}

// checkBaseURL accepts an absolute http or https URL. It is checked
// before any client sees it (langchaingo's ollama.WithServerURL calls
// log.Fatal on a malformed one).
func checkBaseURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("base URL %q: %v", raw, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("base URL %q: want http://HOST[:PORT][/PATH] or https://…", raw)
	}
	return u, nil
}

// publicURL is a base URL fit to record: no user information, query or
// fragment, which could hold credentials.
func publicURL(u *url.URL) string {
	v := *u
	v.User, v.RawQuery, v.Fragment = nil, "", ""
	return strings.TrimSuffix(v.String(), "/")
}

// reasoningBudget parses a Reasoning setting that is a token budget.
func reasoningBudget(s string) (int, bool) {
	n, err := strconv.Atoi(s)
	return n, err == nil
}

// CheckReasoning validates a Reasoning setting.
func CheckReasoning(s string) error {
	switch s {
	case "", "max", "high", "medium", "low", "none":
		return nil
	}
	if n, ok := reasoningBudget(s); ok && n > 0 {
		return nil
	}
	return fmt.Errorf("reasoning %q: want max, high, medium, low, none or a token budget", s)
}
