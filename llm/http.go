package llm

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/anthropic"
	"github.com/tmc/langchaingo/llms/ollama"
	"github.com/tmc/langchaingo/llms/openai"
)

// Default servers.
const (
	openAIURL    = "https://api.openai.com/v1"
	anthropicURL = "https://api.anthropic.com/v1"
	// Google's OpenAI-compatible endpoint: the openai client speaks to
	// it, which spares langchaingo's googleai (~270 packages, a binary
	// three times larger) and its wrong usage figures with a system
	// message.
	googleURL = "https://generativelanguage.googleapis.com/v1beta/openai"
	ollamaURL = "http://127.0.0.1:11434"
)

// keyEnvName is the variable the key is read from.
func (c *Client) keyEnvName() string {
	if c.cfg.KeyEnv != "" {
		return c.cfg.KeyEnv
	}
	switch c.provider {
	case OpenAI:
		return "OPENAI_API_KEY"
	case Anthropic:
		return "ANTHROPIC_API_KEY"
	case Google:
		if c.cfg.Getenv("GEMINI_API_KEY") == "" && c.cfg.Getenv("GOOGLE_API_KEY") != "" {
			return "GOOGLE_API_KEY"
		}
		return "GEMINI_API_KEY"
	}
	return ""
}

// defaultURL is the provider's own server ("" for exec and replay).
func defaultURL(provider string, getenv func(string) string) string {
	switch provider {
	case OpenAI:
		return openAIURL
	case Anthropic:
		return anthropicURL
	case Google:
		return googleURL
	case Ollama:
		if h := getenv("OLLAMA_HOST"); h != "" {
			if !strings.Contains(h, "://") {
				h = "http://" + h
			}
			return h
		}
		return ollamaURL
	}
	return ""
}

// ServerURL is the server a Client of provider with this BaseURL calls,
// as the Client records it (no credentials): baseURL, else the
// provider's own ($OLLAMA_HOST for Ollama, read with getenv). "" for
// exec: and replay:.
func ServerURL(provider, baseURL string, getenv func(string) string) (string, error) {
	if provider == Exec || provider == Replay {
		return "", nil
	}
	raw := baseURL
	if raw == "" {
		raw = defaultURL(provider, getenv)
	}
	u, err := checkBaseURL(raw)
	if err != nil {
		return "", err
	}
	return publicURL(u), nil
}

// newHTTP sets up a langchaingo client over the shared transport.
func (c *Client) newHTTP() error {
	def := defaultURL(c.provider, c.cfg.Getenv)
	raw := c.cfg.BaseURL
	// custom: a server other than the provider's own (an OpenAI-compatible
	// one, a proxy), whose abilities we do not know.
	custom := raw != "" && strings.TrimSuffix(raw, "/") != def
	if raw == "" {
		raw = def
	}
	u, err := checkBaseURL(raw)
	if err != nil {
		return err
	}
	base := strings.TrimSuffix(u.String(), "/")
	c.baseURL = publicURL(u)

	if c.cfg.KeyEnv != "" {
		c.key = c.cfg.Getenv(c.cfg.KeyEnv)
		if c.key == "" {
			return &APIError{Kind: ErrNoKey, Provider: c.provider, Model: c.model,
				Detail: fmt.Sprintf("the variable %s (--llm-key-env) is empty or unset", c.cfg.KeyEnv)}
		}
	} else if name := c.keyEnvName(); name != "" {
		c.key = c.cfg.Getenv(name)
	}
	if c.key == "" && (c.provider == Google || !custom && c.provider != Ollama) {
		return &APIError{Kind: ErrNoKey, Provider: c.provider, Model: c.model,
			Detail: "set " + c.keyEnvName() + " in the environment (or name another variable with --llm-key-env)"}
	}

	c.settings, err = resolve(c.provider, c.model, &c.cfg, custom)
	if err != nil {
		return err
	}
	tr := &transport{base: c.cfg.Transport, retry: c.cfg.Retry, timeout: c.cfg.Timeout,
		patch: patchFor(c.provider, c.settings, custom), stream: c.settings.Stream, throttle: c.cfg.Throttle, now: time.Now}
	if c.provider == Ollama && c.key != "" {
		tr.header = http.Header{"Authorization": {"Bearer " + c.key}}
	}
	hc := &http.Client{Transport: tr}

	lb := &lcBackend{opts: []llms.CallOption{llms.WithModel(c.model)}, tr: tr}
	if c.settings.Stream {
		lb.opts = append(lb.opts, llms.WithStreamingFunc(func(context.Context, []byte) error { return nil }))
	}
	token := c.key
	if token == "" {
		token = "none" // a local server that wants no key; langchaingo insists on one
	}
	switch c.provider {
	case OpenAI, Google:
		lb.model, err = openai.New(openai.WithModel(c.model), openai.WithToken(token),
			openai.WithBaseURL(base), openai.WithHTTPClient(hc))
	case Anthropic:
		lb.model, err = anthropic.New(anthropic.WithModel(c.model), anthropic.WithToken(token),
			anthropic.WithBaseURL(base), anthropic.WithHTTPClient(hc))
	case Ollama:
		lb.model, err = ollama.New(ollama.WithModel(c.model), ollama.WithServerURL(base), ollama.WithHTTPClient(hc))
	}
	if err != nil {
		return fmt.Errorf("%s", c.redact(err.Error()))
	}
	c.b = lb
	return nil
}

// lcBackend asks a langchaingo model: a system message, then the user's.
type lcBackend struct {
	model llms.Model
	opts  []llms.CallOption
	tr    *transport
}

// transport is the HTTP transport under the model (tests set its clock).
func (b *lcBackend) transport() *transport { return b.tr }

func (b *lcBackend) generate(ctx context.Context, r Request) (result, error) {
	var msgs []llms.MessageContent
	if r.System != "" {
		msgs = append(msgs, llms.TextParts(llms.ChatMessageTypeSystem, r.System))
	}
	msgs = append(msgs, llms.TextParts(llms.ChatMessageTypeHuman, r.Prompt))
	for _, t := range r.Turns {
		role := llms.ChatMessageTypeHuman
		if t.Role == RoleAssistant {
			role = llms.ChatMessageTypeAI
		}
		msgs = append(msgs, llms.TextParts(role, t.Text))
	}
	resp, err := b.model.GenerateContent(ctx, msgs, b.opts...)
	if errors.Is(err, openai.ErrEmptyResponse) || errors.Is(err, anthropic.ErrEmptyResponse) ||
		errors.Is(err, ollama.ErrEmptyResponse) {
		return result{}, nil // no choices at all: an empty answer
	}
	if err != nil {
		return result{}, err
	}
	var res result
	var text, thinking []string
	// Anthropic answers one choice per content block (with thinking on,
	// the first is the empty thinking block): join them all.
	for _, ch := range resp.Choices {
		if ch == nil {
			continue
		}
		if ch.Content != "" {
			text = append(text, ch.Content)
		}
		t := ch.ReasoningContent
		if s, ok := ch.GenerationInfo["ThinkingContent"].(string); ok && s != "" && t == "" {
			t = s
		}
		if t != "" {
			thinking = append(thinking, t)
		}
		if res.usage == (Usage{}) {
			res.usage = usageOf(ch.GenerationInfo)
		}
	}
	res.text, res.thinking = strings.Join(text, ""), strings.Join(thinking, "\n")
	return res, nil
}

// usageOf normalises the providers' usage keys: OpenAI, Ollama and Gemini
// report PromptTokens/CompletionTokens, Anthropic InputTokens/OutputTokens,
// OpenAI also ReasoningTokens; the integer types vary.
func usageOf(info map[string]any) Usage {
	n := func(keys ...string) int {
		for _, k := range keys {
			switch v := info[k].(type) {
			case int:
				return v
			case int32:
				return int(v)
			case int64:
				return int(v)
			case float64:
				return int(v)
			}
		}
		return 0
	}
	return Usage{
		InputTokens:     n("PromptTokens", "InputTokens"),
		OutputTokens:    n("CompletionTokens", "OutputTokens"),
		ReasoningTokens: n("ReasoningTokens", "ThinkingTokens"),
	}
}
