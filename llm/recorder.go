package llm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Request is one question to a model: a system message, a user message
// and, for a conversation that goes on (a fix request shows the model its
// failed answer), the turns after it.
type Request struct {
	System string
	// Prompt is the first user message.
	Prompt string
	// Turns go on from Prompt: the model's answer (RoleAssistant), the
	// user's reply (RoleUser), and so on; the last is the user's. Empty
	// for a single-turn request.
	Turns []Turn
	// Sample tells apart draws from the same prompt: the n-th candidate
	// of an iteration is a different request from the (n+1)-th.
	Sample int
	// Purpose says what the call is for ("init", "fix", "ping"…); it is
	// recorded, not sent, and not part of the request's identity.
	Purpose string
}

// Turn is one message of a conversation after its first user message.
type Turn struct {
	Role string `json:"role"` // RoleAssistant or RoleUser
	Text string `json:"text"`
}

// Roles of a Turn.
const (
	RoleAssistant = "assistant"
	RoleUser      = "user"
)

// checkTurns reports turns that do not alternate from the model's answer
// to the user's reply, end on the user's, or hold an empty message (which
// providers refuse).
func checkTurns(turns []Turn) error {
	for i, t := range turns {
		want := RoleAssistant
		if i%2 == 1 {
			want = RoleUser
		}
		if t.Role != want {
			return fmt.Errorf("turn %d is the %s's, want the %s's (turns alternate from the model's answer)", i+1, t.Role, want)
		}
		if strings.TrimSpace(t.Text) == "" {
			return fmt.Errorf("turn %d (%s) is empty", i+1, t.Role)
		}
	}
	if len(turns)%2 == 1 {
		return fmt.Errorf("the conversation ends on the model's answer: a request ends on the user's message")
	}
	return nil
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
	BaseURL  string // the server called (no credentials)
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
// question; the key holds no secret (the API key is not part of it). A
// single-turn request has the key it had before requests could hold
// turns, so that ledgers recorded then are found again.
//
// baseURL is the server the request is identified by: the one a run
// first called, even after the run moved the model to another server
// (Config.IdentityURL).
func RequestKey(provider, model, baseURL string, s Settings, r Request) string {
	data, _ := json.Marshal(struct {
		Provider string   `json:"provider"`
		Model    string   `json:"model"`
		BaseURL  string   `json:"base_url"`
		Settings Settings `json:"settings"`
		System   string   `json:"system"`
		Prompt   string   `json:"prompt"`
		Turns    []Turn   `json:"turns,omitempty"`
		Sample   int      `json:"sample"`
	}{provider, model, baseURL, s, r.System, r.Prompt, r.Turns, r.Sample})
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}
