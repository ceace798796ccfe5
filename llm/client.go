package llm

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Client calls one model. It is safe for concurrent use.
type Client struct {
	cfg      Config
	provider string
	model    string
	baseURL  string // recorded: no credentials
	// identityURL is the server named in every request's key: the
	// IdentityURL configured, else baseURL.
	identityURL string
	settings    Settings
	key         string // the API key, kept only to be redacted
	b           backend
	now         func() time.Time
}

// backend is one way of asking a model.
type backend interface {
	generate(ctx context.Context, r Request) (result, error)
}

// result is a backend's answer.
type result struct {
	text, thinking string
	usage          Usage // tokens only
}

// Response is a model's answer.
type Response struct {
	Text     string
	Thinking string // the model's reasoning, when it returns it
	Usage    Usage
	Latency  time.Duration
	Attempts int
	// CallID is the recorded call (0 without a Recorder).
	CallID uint64
	// Cached: the answer came from the Recorder; nothing was paid now
	// (Usage is the original call's).
	Cached bool
}

// New resolves cfg into a Client. It fails, with a one-line error, for a
// malformed spec, an unknown provider, a missing key, a malformed base
// URL, settings the model cannot take, or an unreadable replay file.
func New(cfg Config) (*Client, error) {
	cfg.applyDefaults()
	provider, model, err := ParseSpec(cfg.Spec)
	if err != nil {
		return nil, err
	}
	c := &Client{cfg: cfg, provider: provider, model: model, now: time.Now}
	switch provider {
	case Exec:
		c.b = &execBackend{command: model, timeout: cfg.Timeout}
	case Replay:
		c.b, err = loadReplay(model)
	default:
		err = c.newHTTP()
	}
	c.identityURL = c.baseURL
	if cfg.IdentityURL != "" {
		c.identityURL = strings.TrimSuffix(cfg.IdentityURL, "/")
	}
	var ae *APIError
	if errors.As(err, &ae) {
		return nil, err // names the model already
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.Name(), err)
	}
	return c, nil
}

// Name is "provider:model".
func (c *Client) Name() string { return c.provider + ":" + c.model }

// Provider and Model are the two halves of Name.
func (c *Client) Provider() string { return c.provider }
func (c *Client) Model() string    { return c.model }

// Settings are the generation settings the Client sends.
func (c *Client) Settings() Settings { return c.settings }

// BaseURL is the server the Client calls, without credentials ("" for
// exec and replay).
func (c *Client) BaseURL() string { return c.baseURL }

// Generate asks the model. With a Recorder, a request recorded before in
// its scope is answered from it without a call; otherwise, once the Gate
// (if any) admits it, the call is made and, if it reached a server,
// recorded (whatever its outcome) before the answer is returned: a call
// that never left (the server refused the connection, say) cost nothing
// and leaves no record. A failure is an *APIError, an error wrapping
// ErrNotAdmitted (the Gate refused: nothing was sent), the Gate's or the
// Recorder's error, or the context's error when ctx was cancelled or ran
// out.
func (c *Client) Generate(ctx context.Context, r Request) (*Response, error) {
	if err := checkTurns(r.Turns); err != nil {
		return nil, fmt.Errorf("%s: %w", c.Name(), err)
	}
	key := c.requestKey(r)
	if resp, err := c.lookup(ctx, key); resp != nil || err != nil {
		return resp, err
	}
	if g := c.cfg.Gate; g != nil {
		release, err := g.Admit(ctx, c.Worst(r))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.Name(), err)
		}
		defer release()
	}
	sctx, st := withState(ctx)
	start := c.now()
	res, err := c.b.generate(sctx, r)
	latency := c.now().Sub(start)
	if err == nil && strings.TrimSpace(res.text) == "" {
		err = &APIError{Kind: ErrEmptyAnswer, Hint: "the model may have spent its max tokens on reasoning"}
		st.mu.Lock()
		sn := st.stream
		st.mu.Unlock()
		if sn != nil {
			if ok, head := sn.readable(); !ok {
				err = &APIError{Kind: ErrMalformed, Detail: fmt.Sprintf("the server did not stream: its reply held no readable event (it began %q)", oneLine(head, 120)),
					Hint: "is the server at " + c.baseURL + " one that streams? try without --llm-stream"}
			}
		}
	}
	if err != nil {
		err = c.classify(ctx, err, st)
	}
	usage := res.usage
	if price, ok := c.cfg.Prices.Lookup(c.provider, c.model); ok {
		usage.Cost, usage.Priced = price.Cost(usage), true
	}
	st.mu.Lock()
	attempts, sent := max(st.attempts, 1), st.sent
	st.mu.Unlock()
	call := &Call{Key: key, Provider: c.provider, Model: c.model, BaseURL: c.baseURL, Settings: c.settings,
		Request: r, Answer: c.redact(res.text), Thinking: c.redact(res.thinking), Usage: usage,
		Latency: latency, Attempts: attempts}
	if err != nil {
		call.Err = err.Error()
	}
	if rec := c.cfg.Recorder; rec != nil && sent {
		// Recorded even when ctx was cancelled: the call may have cost.
		if rerr := rec.Record(context.WithoutCancel(ctx), call); rerr != nil {
			return nil, fmt.Errorf("llm ledger: %w", rerr)
		}
	}
	if err != nil {
		return nil, err
	}
	return &Response{Text: call.Answer, Thinking: call.Thinking, Usage: usage, Latency: latency,
		Attempts: attempts, CallID: call.ID}, nil
}

// Recorded returns the answer the Recorder holds for r, or nil (nil too
// without a Recorder): it never calls the model. A caller that asked the
// same question in another form before (a run recorded before fix
// requests were conversations) finds its answer so.
func (c *Client) Recorded(ctx context.Context, r Request) (*Response, error) {
	return c.lookup(ctx, c.requestKey(r))
}

// requestKey is r's RequestKey, under the server the Client's requests are
// identified by.
func (c *Client) requestKey(r Request) string {
	return RequestKey(c.provider, c.model, c.identityURL, c.settings, r)
}

// lookup answers from the Recorder, if it holds key.
func (c *Client) lookup(ctx context.Context, key string) (*Response, error) {
	rec := c.cfg.Recorder
	if rec == nil {
		return nil, nil
	}
	call, err := rec.Lookup(ctx, key)
	if err != nil {
		return nil, fmt.Errorf("llm ledger: %w", err)
	}
	if call == nil {
		return nil, nil
	}
	return &Response{Text: call.Answer, Thinking: call.Thinking, Usage: call.Usage, Latency: call.Latency,
		Attempts: call.Attempts, CallID: call.ID, Cached: true}, nil
}

// classify turns a backend's error into an *APIError with the key
// redacted, or the context's error.
func (c *Client) classify(ctx context.Context, err error, st *callState) error {
	if ctx.Err() != nil {
		// OpenAI's client reports a deadline in words that do not
		// satisfy errors.Is: ask the context.
		return fmt.Errorf("%s: %w", c.Name(), ctx.Err())
	}
	var ae *APIError
	if !errors.As(err, &ae) {
		ae = &APIError{Kind: ErrMalformed, Detail: oneLine(err.Error(), 300)}
	}
	ae = &APIError{Kind: ae.Kind, Status: ae.Status, Attempts: ae.Attempts, Detail: ae.Detail, Hint: ae.Hint}
	ae.Provider, ae.Model = c.provider, c.model
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.attempts > 0 {
		ae.Attempts = st.attempts
	}
	switch {
	case st.tooLarge:
		tl := tooLargeError(MaxHTTPAnswer, "the server's reply was cut short")
		ae.Kind, ae.Detail = tl.Kind, tl.Detail
	case ae.Kind == ErrEmptyAnswer || ae.Kind == ErrCommand || ae.Kind == ErrReplay:
	case st.status >= 400:
		ae.Status, ae.Kind, ae.Detail = st.status, kindOfStatus(st.status), st.detail
		switch ae.Kind {
		case ErrAuth:
			if name := c.keyEnvName(); name != "" {
				ae.Hint = "check the key in " + name
			}
		case ErrUnknownModel:
			ae.Hint = fmt.Sprintf("is %q a model %s serves?", c.model, c.baseURL)
		}
	case st.timedOut || ae.Kind == ErrTimeout:
		ae.Kind, ae.Detail = ErrTimeout, fmt.Sprintf("no complete answer within %v per attempt", c.cfg.Timeout)
	case st.netErr != nil:
		ae.Kind, ae.Detail = ErrUnreachable, oneLine(st.netErr.Error(), 300)
		if transientNetError(st.netErr) {
			ae.Kind = ErrServer
		}
		ae.Hint = "is the server at " + c.baseURL + " running?"
	}
	ae.Detail, ae.Hint = c.redact(ae.Detail), c.redact(ae.Hint)
	return ae
}

// redact removes the API key from s.
func (c *Client) redact(s string) string {
	if c.key == "" || len(c.key) < 4 {
		return s
	}
	return strings.ReplaceAll(s, c.key, "[redacted]")
}
