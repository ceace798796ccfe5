package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptrace"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// Retry is the retry policy of HTTP calls. The zero value works.
type Retry struct {
	// MaxAttempts bounds the attempts of one call, the first included.
	// Default 6.
	MaxAttempts int
	// Base is the wait before the second attempt; each later wait
	// doubles, up to Max. Defaults 2 s and 60 s. A wait is jittered: a
	// random time between half of it and all of it.
	Base, Max time.Duration
	// MaxRetryAfter is the longest Retry-After honoured; a server asking
	// for a longer wait ends the retries. Default 10 minutes.
	MaxRetryAfter time.Duration
	// Sleep waits d or until ctx is done; nil sleeps for real. Tests
	// inject one that records the waits and returns at once.
	Sleep func(ctx context.Context, d time.Duration) error
	// Jitter returns a number in [0, 1); nil uses a generator seeded from
	// the clock (jitter spreads out clients; it is not part of any result).
	Jitter func() float64
}

func (r *Retry) applyDefaults() {
	if r.MaxAttempts <= 0 {
		r.MaxAttempts = 6
	}
	if r.Base <= 0 {
		r.Base = 2 * time.Second
	}
	if r.Max <= 0 {
		r.Max = time.Minute
	}
	if r.MaxRetryAfter <= 0 {
		r.MaxRetryAfter = 10 * time.Minute
	}
	if r.Sleep == nil {
		r.Sleep = sleep
	}
	if r.Jitter == nil {
		var mu sync.Mutex
		rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 0x6a09e667))
		r.Jitter = func() float64 {
			mu.Lock()
			defer mu.Unlock()
			return rng.Float64()
		}
	}
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// backoff is the jittered wait before attempt n+1 (n >= 1).
func (r *Retry) backoff(n int) time.Duration {
	d := r.Base
	for i := 1; i < n && d < r.Max; i++ {
		d *= 2
	}
	d = min(d, r.Max)
	return d/2 + time.Duration(r.Jitter()*float64(d/2))
}

// retryAfter reads Retry-After (seconds or an HTTP date) or OpenAI's
// retry-after-ms; 0 when absent.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if ms, err := strconv.ParseFloat(h.Get("Retry-After-Ms"), 64); err == nil && ms > 0 {
		return time.Duration(ms * float64(time.Millisecond))
	}
	v := h.Get("Retry-After")
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s > 0 {
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// callState is what the transport learns about one call, for the error
// the Client makes of a failure (langchaingo keeps only a status line).
type callState struct {
	mu       sync.Mutex
	attempts int
	status   int    // last HTTP status >= 400
	detail   string // the server's error message
	netErr   error  // last transport error
	timedOut bool   // the last attempt ran out of time
	// sent: a request reached a server (its headers were written), or a
	// command ran; a call that never got so far cost nothing and is not
	// recorded.
	sent bool
	// stream is what was seen of a streamed answer (nil unless streamed).
	stream *streamSniff
	// tooLarge: an answer ran over MaxHTTPAnswer and was cut short.
	tooLarge bool
}

func (st *callState) markSent() {
	st.mu.Lock()
	st.sent = true
	st.mu.Unlock()
}

type stateKey struct{}

func withState(ctx context.Context) (context.Context, *callState) {
	st := &callState{}
	return context.WithValue(ctx, stateKey{}, st), st
}

// stateOf is the call's state in ctx, or nil.
func stateOf(ctx context.Context) *callState {
	st, _ := ctx.Value(stateKey{}).(*callState)
	return st
}

// transport retries, times out attempts and rewrites request bodies for
// every HTTP provider.
type transport struct {
	base    http.RoundTripper
	retry   Retry
	timeout time.Duration
	// patch rewrites the JSON request body: the generation settings as
	// configured, whatever langchaingo did with them.
	patch func(body map[string]any)
	// header is added to every request (Ollama behind an authenticating
	// proxy).
	header http.Header
	// stream: the requests ask the server to stream; the answer's bytes
	// are watched (streamSniff) so that a reply that is no stream is
	// reported as such rather than as an empty answer.
	stream bool
	// throttle is shared by the Clients of one server: a 429 slows them
	// all.
	throttle *Throttle
	now      func() time.Time
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	st := stateOf(req.Context())
	if st == nil {
		st = &callState{}
	}
	var body []byte
	if req.Body != nil {
		var err error
		body, err = io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
	}
	if t.patch != nil && len(body) > 0 {
		var m map[string]any
		if json.Unmarshal(body, &m) == nil {
			t.patch(m)
			if b, err := json.Marshal(m); err == nil {
				body = b
			}
		}
	}
	ctx := req.Context()
	trace := &httptrace.ClientTrace{WroteHeaders: st.markSent}
	for n := 1; ; n++ {
		// The first attempt waits out a pause another caller's 429 set;
		// a retry has waited at least as long already (below).
		release, err := t.throttle.acquire(ctx, n == 1, t.retry.Sleep, t.now)
		if err != nil {
			return nil, err
		}
		actx, cancel := context.WithTimeout(httptrace.WithClientTrace(ctx, trace), t.timeout)
		r := req.Clone(actx)
		for k, v := range t.header {
			r.Header[k] = v
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		resp, err := t.base.RoundTrip(r)
		st.mu.Lock()
		st.attempts = n
		st.mu.Unlock()
		var wait time.Duration
		switch {
		case err != nil:
			release(false)
			timedOut := actx.Err() != nil && ctx.Err() == nil
			cancel()
			if ctx.Err() != nil {
				return nil, err
			}
			st.mu.Lock()
			st.netErr, st.timedOut, st.status = err, timedOut, 0
			st.mu.Unlock()
			if !timedOut && !transientNetError(err) {
				return nil, err
			}
			wait = t.retry.backoff(n)
		case resp.StatusCode < 400:
			body := resp.Body
			if t.stream {
				sn := &streamSniff{}
				st.mu.Lock()
				st.stream = sn
				st.mu.Unlock()
				body = &sniffBody{ReadCloser: body, sn: sn}
			}
			body = &capBody{ReadCloser: body, n: MaxHTTPAnswer, st: st}
			resp.Body = &cancelBody{ReadCloser: body, cancel: func() { cancel(); release(true) }}
			return resp, nil
		default:
			data, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
			resp.Body.Close()
			cancel()
			st.mu.Lock()
			st.status, st.detail, st.netErr, st.timedOut = resp.StatusCode, errorMessage(data), nil, false
			st.mu.Unlock()
			ra := retryAfter(resp.Header, t.now())
			wait = ra
			if wait == 0 {
				wait = t.retry.backoff(n)
			}
			if resp.StatusCode == http.StatusTooManyRequests {
				// Everyone calling this server waits too.
				t.throttle.limited(t.now().Add(min(wait, t.retry.MaxRetryAfter)))
			}
			release(resp.StatusCode != http.StatusTooManyRequests)
			if !retryable(resp.StatusCode) || ra > t.retry.MaxRetryAfter || n >= t.retry.MaxAttempts {
				resp.Body = io.NopCloser(bytes.NewReader(data))
				return resp, nil
			}
		}
		if n >= t.retry.MaxAttempts {
			return nil, err
		}
		wait = max(wait, t.throttle.pauseLeft(t.now()))
		if serr := t.retry.Sleep(ctx, wait); serr != nil {
			return nil, serr
		}
	}
}

// cancelBody ends an attempt's context when its body is closed: the
// timeout covers reading the answer too.
type cancelBody struct {
	io.ReadCloser
	cancel func()
	once   sync.Once
}

func (b *cancelBody) Close() error {
	err := b.ReadCloser.Close()
	b.once.Do(b.cancel)
	return err
}

// transientNetError reports a network failure worth another attempt: a
// connection reset or cut short, not a server that refuses connections
// or a host that does not exist.
func transientNetError(err error) bool {
	var dns *net.DNSError
	switch {
	case errors.Is(err, syscall.ECONNREFUSED), errors.As(err, &dns) && !dns.IsTemporary:
		return false
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// errorMessage pulls the message out of an error body: {"error":
// {"message": …}} (OpenAI, Anthropic), {"error": "…"} (Ollama), or the
// body itself.
func errorMessage(data []byte) string {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
	}
	if json.Unmarshal(data, &v) == nil {
		var s string
		var o struct {
			Message string `json:"message"`
		}
		switch {
		case json.Unmarshal(v.Error, &s) == nil && s != "":
			return oneLine(s, 300)
		case json.Unmarshal(v.Error, &o) == nil && o.Message != "":
			return oneLine(o.Message, 300)
		case v.Message != "":
			return oneLine(v.Message, 300)
		}
	}
	// Google answers some errors as a JSON array of such objects.
	var arr []json.RawMessage
	if json.Unmarshal(data, &arr) == nil && len(arr) > 0 {
		return errorMessage(arr[0])
	}
	return oneLine(string(data), 300)
}
