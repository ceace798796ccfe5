package llm

import (
	"encoding/json"
	"fmt"
	"strings"

	"policyevolve/internal/infile"
)

// Price is what a model costs, in US dollars per million tokens.
type Price struct {
	Input  float64 `json:"input"`
	Output float64 `json:"output"` // reasoning tokens are billed as output
}

// Prices maps "provider:model" (or a model-name prefix, e.g.
// "anthropic:claude-sonnet-4") to a price. The longest matching key wins,
// so a dated model name ("claude-sonnet-4-5-20250929") finds its family.
type Prices map[string]Price

// DefaultPrices is the built-in table: list prices of the providers'
// current models as of late 2025, standard tier, no caching discounts.
// Ollama's models (local) and recorded answers (replay:) cost nothing; a
// command (exec:) reports no usage and has no price. Override it with a
// JSON file of the same shape (LoadPrices).
func DefaultPrices() Prices {
	return Prices{
		"openai:gpt-5":              {1.25, 10},
		"openai:gpt-5-mini":         {0.25, 2},
		"openai:gpt-5-nano":         {0.05, 0.4},
		"openai:gpt-5.1":            {1.25, 10},
		"openai:gpt-4.1":            {2, 8},
		"openai:gpt-4.1-mini":       {0.4, 1.6},
		"openai:gpt-4.1-nano":       {0.1, 0.4},
		"openai:gpt-4o":             {2.5, 10},
		"openai:gpt-4o-mini":        {0.15, 0.6},
		"openai:o1":                 {15, 60},
		"openai:o3":                 {2, 8},
		"openai:o3-mini":            {1.1, 4.4},
		"openai:o4-mini":            {1.1, 4.4},
		"anthropic:claude-opus-4":   {15, 75},
		"anthropic:claude-opus-4-5": {5, 25},
		"anthropic:claude-sonnet-4": {3, 15},
		"anthropic:claude-haiku-4":  {1, 5},
		"anthropic:claude-3-7":      {3, 15},
		"anthropic:claude-3-5":      {0.8, 4},
		"google:gemini-2.5-pro":     {1.25, 10},
		"google:gemini-2.5-flash":   {0.3, 2.5},
		"google:gemini-3-pro":       {2, 12},
		// Local models and recorded answers.
		"ollama:": {0, 0},
		"replay:": {0, 0},
	}
}

// MaxPricesFile bounds a price table file.
const MaxPricesFile = 1 << 20

// LoadPrices reads a JSON price table, {"openai:gpt-5": {"input": 1.25,
// "output": 10}, …}, and returns the built-in table with it laid over.
func LoadPrices(path string) (Prices, error) {
	data, err := infile.Read(path, MaxPricesFile)
	if err != nil {
		return nil, fmt.Errorf("prices: %w", err)
	}
	var over Prices
	if err := json.Unmarshal(data, &over); err != nil {
		return nil, fmt.Errorf("prices %s: %v (want {\"provider:model\": {\"input\": USD per Mtok, \"output\": USD per Mtok}})", path, err)
	}
	out := DefaultPrices()
	for k, v := range over {
		if !strings.Contains(k, ":") {
			return nil, fmt.Errorf("prices %s: key %q: want provider:model", path, k)
		}
		if v.Input < 0 || v.Output < 0 {
			return nil, fmt.Errorf("prices %s: %s: negative price", path, k)
		}
		out[k] = v
	}
	return out, nil
}

// Lookup returns the price of provider:model and whether the table has
// one.
func (p Prices) Lookup(provider, model string) (Price, bool) {
	name := provider + ":" + model
	best, found := "", false
	for k := range p {
		if strings.HasPrefix(name, k) && len(k) > len(best) {
			best, found = k, true
		}
	}
	return p[best], found
}

// Cost is what u costs at this price.
func (p Price) Cost(u Usage) float64 {
	return (float64(u.InputTokens)*p.Input + float64(u.OutputTokens)*p.Output) / 1e6
}
