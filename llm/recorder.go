package llm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"time"
)

// Request is one question to a model: a system message and a user
// message (the planners' prompts are single-turn: a failed attempt's
// error is appended to the same user message, as in the paper).
type Request struct {
	System string
	Prompt string
	// Sample tells apart draws from the same prompt: the n-th candidate
	// of an iteration is a different request from the (n+1)-th.
	Sample int
	// Purpose says what the call is for ("init", "fix", "ping"…); it is
	// recorded, not sent, and not part of the request's identity.
	Purpose string
}

// Usage is what a call consumed.
type Usage struct {
	InputTokens     int     `json:"input_tokens"`
	OutputTokens    int     `json:"output_tokens"`    // reasoning included
	ReasoningTokens int     `json:"reasoning_tokens"` // when the provider reports them
	Cost            float64 `json:"cost"`             // US dollars, from the price table
	Priced          bool    `json:"priced"`           // the price table knew the model
}

// Call is one call as recorded: the request, the settings sent, and the
// outcome.
type Call struct {
	ID       uint64 // set by Recorder.Record
	Key      string // RequestKey of the request
	Provider string
	Model    string
	BaseURL  string // the server, when not the provider's default (no credentials)
	Settings Settings
	Request  Request
	Answer   string
	// Thinking is the model's reasoning text, when it returns it.
	Thinking string
	Usage    Usage
	Latency  time.Duration
	Attempts int
	Err      string // empty on success
}

// Recorder keeps the ledger of calls. The Client calls Record for every
// call, successful or not, before it returns the answer: an answer whose
// record could not be written is not used. Lookup finds a successful call
// with the same key recorded earlier in the same scope (a run), whose
// answer the Client returns without calling the model.
//
// Implementations must be safe for concurrent use.
type Recorder interface {
	Lookup(ctx context.Context, key string) (*Call, error) // nil, nil when there is none
	Record(ctx context.Context, c *Call) error             // sets c.ID
}

// RequestKey identifies a request: provider, server, model, settings,
// messages and sample index. Two calls with the same key ask the same
// question; the key holds no secret (the API key is not part of it).
func RequestKey(provider, model, baseURL string, s Settings, r Request) string {
	data, _ := json.Marshal(struct {
		Provider string   `json:"provider"`
		Model    string   `json:"model"`
		BaseURL  string   `json:"base_url"`
		Settings Settings `json:"settings"`
		System   string   `json:"system"`
		Prompt   string   `json:"prompt"`
		Sample   int      `json:"sample"`
	}{provider, model, baseURL, s, r.System, r.Prompt, r.Sample})
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}
