package llm

import (
	"errors"
	"fmt"
	"strings"
)

// Kinds of failure. An *APIError wraps exactly one, so callers branch with
// errors.Is(err, llm.ErrAuth) and so on.
var (
	ErrNoKey        = errors.New("no API key")
	ErrAuth         = errors.New("authentication failed")
	ErrUnknownModel = errors.New("unknown model")
	ErrBadRequest   = errors.New("request refused")
	ErrRateLimited  = errors.New("rate limited")
	ErrServer       = errors.New("server error")
	ErrUnreachable  = errors.New("server unreachable")
	ErrTimeout      = errors.New("timed out")
	ErrMalformed    = errors.New("malformed answer")
	ErrEmptyAnswer  = errors.New("empty answer")
	ErrCommand      = errors.New("command failed")
	ErrReplay       = errors.New("replay")
)

// APIError is a failed call. Its text is one line and never holds the
// API key.
type APIError struct {
	Kind     error  // one of the Err* kinds above
	Provider string // "openai"…
	Model    string
	Status   int    // the HTTP status of the last attempt; 0 when there was no response
	Attempts int    // HTTP attempts made, retries included
	Detail   string // what the server or the system said, shortened, key redacted
	Hint     string // what to do about it, when there is something to say
}

func (e *APIError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s:%s: %v", e.Provider, e.Model, e.Kind)
	if e.Status != 0 {
		fmt.Fprintf(&b, " (HTTP %d)", e.Status)
	}
	if e.Attempts > 1 {
		fmt.Fprintf(&b, " after %d attempts", e.Attempts)
	}
	if e.Detail != "" {
		b.WriteString(": " + e.Detail)
	}
	if e.Hint != "" {
		b.WriteString(" — " + e.Hint)
	}
	return b.String()
}

func (e *APIError) Unwrap() error { return e.Kind }

// Temporary reports whether the same call may succeed later: the server
// was busy, rate-limited, failing or slow, or the model gave an empty
// answer. Retries were made already; a caller that gets a temporary error
// can wait longer and try again, or give up the proposal. A permanent
// error (a missing or wrong key, an unknown model, a refused request, an
// unreachable server, a failing command) will not go away by itself.
func (e *APIError) Temporary() bool {
	switch e.Kind {
	case ErrRateLimited, ErrServer, ErrTimeout, ErrEmptyAnswer, ErrMalformed:
		return true
	}
	return false
}

// oneLine shortens s to one line of at most n bytes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}

// kindOfStatus classifies an HTTP status.
func kindOfStatus(status int) error {
	switch {
	case status == 401 || status == 403:
		return ErrAuth
	case status == 404:
		return ErrUnknownModel
	case status == 408:
		return ErrTimeout
	case status == 429:
		return ErrRateLimited
	case status >= 500:
		return ErrServer
	}
	return ErrBadRequest
}

// retryable reports whether an HTTP status is worth another attempt.
func retryable(status int) bool {
	return status == 408 || status == 409 || status == 429 || status >= 500
}
