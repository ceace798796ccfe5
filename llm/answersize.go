package llm

import (
	"errors"
	"fmt"
	"io"
	"sync"
)

// Bounds on the bytes of one answer. A policy is at most 256 KiB and a
// model's reasoning a few hundred KiB; the bounds are far above both, so
// that only a runaway (an endless stream, a command printing forever) is
// cut short. Time is bounded too: Config.Timeout covers one attempt, the
// whole answer included, for every provider and for exec:.
const (
	// MaxExecAnswer bounds what an exec: command writes on its standard
	// output; a command that writes more is killed (its process group).
	MaxExecAnswer = 16 << 20
	// MaxHTTPAnswer bounds the body of one successful HTTP response: a
	// streamed answer carries a JSON event per token, several times the
	// text it holds.
	MaxHTTPAnswer = 64 << 20
)

// errAnswerTooLarge is what a capped body's Read returns past its bound.
var errAnswerTooLarge = errors.New("answer too large")

// tooLargeError is the error a call whose answer ran over limit ends with.
func tooLargeError(limit int, what string) *APIError {
	return &APIError{Kind: ErrMalformed, Detail: fmt.Sprintf("the answer ran over %d MiB; %s", limit>>20, what)}
}

// capWriter keeps at most n bytes; the first write past them calls over
// (which kills the command) and fails.
type capWriter struct {
	mu   sync.Mutex
	buf  []byte
	n    int
	over func()
	hit  bool
}

func (w *capWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.hit {
		return 0, errAnswerTooLarge
	}
	if len(w.buf)+len(p) > w.n {
		w.hit = true
		w.over()
		return 0, errAnswerTooLarge
	}
	w.buf = append(w.buf, p...)
	return len(p), nil
}

// overran reports whether more than n bytes were written.
func (w *capWriter) overran() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.hit
}

// capBody fails a response body's reads once more than n bytes have been
// read, and marks the call's state so that the error says why.
type capBody struct {
	io.ReadCloser
	n  int64
	st *callState
}

func (b *capBody) Read(p []byte) (int, error) {
	if b.n < 0 {
		return 0, errAnswerTooLarge
	}
	if int64(len(p)) > b.n+1 {
		p = p[:b.n+1]
	}
	k, err := b.ReadCloser.Read(p)
	b.n -= int64(k)
	if b.n < 0 {
		b.st.mu.Lock()
		b.st.tooLarge = true
		b.st.mu.Unlock()
		return k, errAnswerTooLarge
	}
	return k, err
}
