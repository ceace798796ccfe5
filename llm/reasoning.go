package llm

import (
	"fmt"
	"strconv"
	"strings"
)

// Settings are the generation settings a call sends, resolved for its
// provider and model: what reaches the wire and what is recorded.
type Settings struct {
	Temperature *float64 `json:"temperature,omitempty"`
	MaxTokens   int      `json:"max_tokens,omitempty"`
	// Reasoning is what is sent for thinking, in the provider's terms:
	// "effort=high" (OpenAI, Google), "budget=N" (Anthropic, Google),
	// "think=true" or "think=high" (Ollama); "" sends nothing.
	Reasoning string `json:"reasoning,omitempty"`
	Stream    bool   `json:"stream,omitempty"`
}

// answerReserve is what an Anthropic thinking budget leaves of max_tokens
// for the answer itself: a policy with its explanation fits easily.
const answerReserve = 8192

// anthropicModel is what we know of an Anthropic model family.
type anthropicModel struct {
	prefix    string
	maxOutput int
	thinking  bool
}

// anthropicModels, longest prefix first where prefixes overlap.
var anthropicModels = []anthropicModel{
	{"claude-3-7-sonnet", 64000, true},
	{"claude-3-5-", 8192, false},
	{"claude-3-", 4096, false},
	{"claude-2", 4096, false},
	{"claude-instant", 4096, false},
	{"claude-opus-4-0", 32000, true},
	{"claude-opus-4-1", 32000, true},
	{"claude-opus-4-2025", 32000, true},
	{"claude-opus-4", 64000, true}, // 4.5 and later
	{"claude-sonnet-4", 64000, true},
	{"claude-haiku-4", 64000, true},
}

func lookupAnthropic(model string) anthropicModel {
	best := anthropicModel{maxOutput: 32000, thinking: true} // a newer model than this table
	for _, m := range anthropicModels {
		if strings.HasPrefix(model, m.prefix) && len(m.prefix) > len(best.prefix) {
			best = m
		}
	}
	return best
}

// openAIReasoning reports an OpenAI model that takes reasoning_effort.
func openAIReasoning(model string) bool {
	m := strings.ToLower(model)
	if strings.Contains(m, "chat") {
		return false
	}
	for _, p := range []string{"o1", "o3", "o4", "gpt-5"} {
		if strings.HasPrefix(m, p) {
			return true
		}
	}
	return false
}

// googleThinking reports a Gemini model with thinking.
func googleThinking(model string) bool {
	m := strings.ToLower(model)
	return strings.HasPrefix(m, "gemini-2.5") || strings.HasPrefix(m, "gemini-3")
}

// ollamaThinking reports an Ollama model family that thinks; effort says
// whether it takes an effort level rather than true/false (gpt-oss).
func ollamaThinking(model string) (thinks, effort bool) {
	m := strings.ToLower(model)
	if strings.HasPrefix(m, "gpt-oss") {
		return true, true
	}
	for _, p := range []string{"qwen3", "deepseek-r1", "magistral", "qwq", "deepseek-v3.1"} {
		if strings.HasPrefix(m, p) {
			return true, false
		}
	}
	return false, false
}

// resolve turns a Config's settings into what provider and model get.
// The default reasoning is the largest the model accepts (docs/decisions.md);
// a model we do not know to think gets none unless asked explicitly.
func resolve(provider, model string, c *Config, custom bool) (Settings, error) {
	s := Settings{Temperature: c.Temperature, MaxTokens: c.MaxTokens, Stream: c.Stream}
	r := c.Reasoning
	if err := CheckReasoning(r); err != nil {
		return s, err
	}
	explicit := r != "" && r != "max"
	budget, isBudget := reasoningBudget(r)
	switch provider {
	case OpenAI:
		if isBudget {
			return s, fmt.Errorf("reasoning %s: OpenAI takes an effort (high, medium, low, none), not a token budget", r)
		}
		switch {
		case r == "" || r == "max":
			if openAIReasoning(model) && !custom {
				s.Reasoning = "effort=high"
			}
		default:
			s.Reasoning = "effort=" + r
		}
	case Google:
		switch {
		case isBudget:
			s.Reasoning = "budget=" + r
		case r == "" || r == "max":
			if googleThinking(model) {
				s.Reasoning = "effort=high"
			}
		default:
			s.Reasoning = "effort=" + r
		}
	case Anthropic:
		m := lookupAnthropic(model)
		if s.MaxTokens == 0 {
			s.MaxTokens = m.maxOutput
			if isBudget && budget+answerReserve > s.MaxTokens {
				s.MaxTokens = budget + answerReserve
			}
		}
		switch {
		case r == "none", !m.thinking && !explicit:
		case isBudget:
			if budget >= s.MaxTokens {
				return s, fmt.Errorf("reasoning budget %d must be below max tokens %d", budget, s.MaxTokens)
			}
			s.Reasoning = "budget=" + r
		default:
			reserve := min(answerReserve, s.MaxTokens/2)
			b := s.MaxTokens - reserve
			switch r {
			case "high":
				b = min(b, 32000)
			case "medium":
				b = min(b, 16000)
			case "low":
				b = min(b, 4000)
			}
			if b < 1024 { // Anthropic's smallest budget
				if explicit {
					return s, fmt.Errorf("max tokens %d leave no room for a thinking budget (at least 1024 plus the answer)", s.MaxTokens)
				}
				break
			}
			s.Reasoning = "budget=" + strconv.Itoa(b)
		}
		if s.Reasoning != "" && s.Temperature != nil && *s.Temperature != 1 {
			return s, fmt.Errorf("anthropic thinking requires temperature 1 (got %v): unset it, or turn thinking off with reasoning none", *s.Temperature)
		}
	case Ollama:
		if isBudget {
			return s, fmt.Errorf("reasoning %s: Ollama takes an effort or none, not a token budget", r)
		}
		thinks, effort := ollamaThinking(model)
		switch {
		case r == "none":
			if thinks {
				s.Reasoning = "think=false"
			}
		case !thinks && !explicit:
		case effort && (r == "" || r == "max"):
			s.Reasoning = "think=high"
		case effort:
			s.Reasoning = "think=" + r
		default:
			s.Reasoning = "think=true"
		}
	}
	return s, nil
}

// patchFor returns the rewrite that puts s into a provider's request body.
// Every setting is set or removed here, so that the body holds exactly
// what s says whatever langchaingo did (it sends temperature 0 unless
// told otherwise, drops reasoning_effort and, for model names it does not
// know, Anthropic's thinking, and puts Ollama's think in the wrong place).
func patchFor(provider string, s Settings, custom bool) func(map[string]any) {
	kind, val, _ := strings.Cut(s.Reasoning, "=")
	return func(b map[string]any) {
		delete(b, "temperature")
		if s.Temperature != nil {
			b["temperature"] = *s.Temperature
		}
		switch provider {
		case OpenAI, Google:
			delete(b, "max_tokens")
			delete(b, "max_completion_tokens")
			delete(b, "reasoning_effort")
			if s.MaxTokens > 0 {
				// OpenAI's reasoning models want max_completion_tokens;
				// other servers know max_tokens best.
				if provider == OpenAI && !custom {
					b["max_completion_tokens"] = s.MaxTokens
				} else {
					b["max_tokens"] = s.MaxTokens
				}
			}
			switch kind {
			case "effort":
				b["reasoning_effort"] = val
			case "budget":
				n, _ := strconv.Atoi(val)
				b["extra_body"] = map[string]any{"google": map[string]any{
					"thinking_config": map[string]any{"thinking_budget": n}}}
			}
		case Anthropic:
			b["max_tokens"] = s.MaxTokens
			delete(b, "thinking")
			if kind == "budget" {
				n, _ := strconv.Atoi(val)
				b["thinking"] = map[string]any{"type": "enabled", "budget_tokens": n}
			}
		case Ollama:
			opts, _ := b["options"].(map[string]any)
			if opts == nil {
				opts = map[string]any{}
				b["options"] = opts
			}
			delete(opts, "temperature")
			delete(opts, "num_predict")
			delete(opts, "think")
			delete(b, "think")
			if s.Temperature != nil {
				opts["temperature"] = *s.Temperature
			}
			delete(b, "temperature")
			if s.MaxTokens > 0 {
				opts["num_predict"] = s.MaxTokens
			}
			b["stream"] = s.Stream
			switch val {
			case "true":
				b["think"] = true
			case "false":
				b["think"] = false
			case "":
			default:
				b["think"] = val
			}
		}
	}
}
