package llm

import (
	"context"
	"sync"
	"time"
)

// DefaultThrottleMax is how many calls a Throttle lets in flight at most
// when nothing set a bound: more than any run asks at once.
const DefaultThrottleMax = 64

// Throttle paces the calls to one server, shared by every Client that
// calls it (Config.Throttle): when the server answers 429 (rate
// limited), every caller's next attempt waits out the pause the server
// asked for (Retry-After, else the backoff), and the calls allowed in
// flight drop to half of those in flight then; each answer that is not a
// 429 lets one more in again, up to the maximum. So a rate limit slows
// everyone at once instead of each caller finding it out for itself.
//
// The zero value is not usable; a nil *Throttle lets everything through.
// It is safe for concurrent use.
type Throttle struct {
	mu       sync.Mutex
	max      int
	limit    int       // calls allowed in flight now
	inflight int       // calls in flight
	until    time.Time // no new attempt before then
	wake     chan struct{}
}

// NewThrottle returns a Throttle that lets at most max calls in flight
// (DefaultThrottleMax when max <= 0).
func NewThrottle(max int) *Throttle {
	if max <= 0 {
		max = DefaultThrottleMax
	}
	return &Throttle{max: max, limit: max, wake: make(chan struct{})}
}

// acquire waits for the pause to end (when pause is set; one wait, with
// sleep) and for room in flight, and returns the function that gives the
// room back, told whether the attempt was answered without a 429.
func (t *Throttle) acquire(ctx context.Context, pause bool, sleep func(context.Context, time.Duration) error, now func() time.Time) (func(ok bool), error) {
	if t == nil {
		return func(bool) {}, nil
	}
	if d := t.pauseLeft(now()); pause && d > 0 {
		if err := sleep(ctx, d); err != nil {
			return nil, err
		}
	}
	for {
		t.mu.Lock()
		if t.inflight < t.limit {
			t.inflight++
			t.mu.Unlock()
			var once sync.Once
			return func(ok bool) { once.Do(func() { t.release(ok) }) }, nil
		}
		w := t.wake
		t.mu.Unlock()
		select {
		case <-w:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

func (t *Throttle) release(ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.inflight--
	if ok && t.limit < t.max {
		t.limit++
	}
	close(t.wake)
	t.wake = make(chan struct{})
}

// limited records a 429: no attempt before until, and half the calls in
// flight now (at least one) allowed from here on.
func (t *Throttle) limited(until time.Time) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if until.After(t.until) {
		t.until = until
	}
	t.limit = max(1, min(t.limit, t.inflight)/2)
}

// pauseLeft is how long new attempts must still wait at now.
func (t *Throttle) pauseLeft(now time.Time) time.Duration {
	if t == nil {
		return 0
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return max(0, t.until.Sub(now))
}

// Limit is how many calls the Throttle lets in flight now.
func (t *Throttle) Limit() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.limit
}
