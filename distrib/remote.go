package distrib

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"policyevolve/envs"
	"policyevolve/evolve/episode"
	"policyevolve/sandbox"
)

// RemoteConfig configures a Remote. The zero value works: every field has
// a default, set in withDefaults.
type RemoteConfig struct {
	Queue QueueConfig
	// Backend is the queue of the episodes that need no sandbox (built-ins
	// only); the others go to their sandbox's backend (default native).
	Backend sandbox.Backend
	// InFlight bounds the episodes sent and not yet answered: the
	// coordinator's back-pressure (default 128).
	InFlight int
	// Recheck is how long an episode may wait before the coordinator looks
	// for it: its result, or the job in the queue, sent again if it was
	// lost (a server that lost its state, say). Default 15 s.
	Recheck time.Duration
	// Verify is how the workers' results are checked (replayed here).
	Verify VerifyConfig
	// Log receives one line per notable event (nil: none).
	Log func(format string, args ...any)
}

// Defaults, with the reasons for them.
const (
	// Enough to keep a few dozen worker slots busy while the coordinator
	// plans; an iteration rarely has more episodes than that at once.
	DefaultInFlight = 128
	// Lost jobs are rare (a server restarted without its state): a check
	// every 15 s per waiting episode costs nothing and finds them soon.
	DefaultRecheck = 15 * time.Second
)

func (c *RemoteConfig) withDefaults() {
	c.Queue = c.Queue.WithDefaults()
	if c.Backend == "" {
		c.Backend = sandbox.Native
	}
	if c.InFlight <= 0 {
		c.InFlight = DefaultInFlight
	}
	if c.Recheck <= 0 {
		c.Recheck = DefaultRecheck
	}
}

// Remote is an episode.Executor that plays episodes on workers: each
// episode becomes a job on the JetStream work queue, named by its content
// address (episode.Episode.ID), and comes back as a result on the results
// stream, which is verified (VerifyConfig) before it is used. A job
// sent twice, delivered twice or played twice is harmless: the same
// episode always has the same result. The coordinator (the process that
// holds the store) is the only one that writes the store; workers only
// publish results.
//
// Remote survives a restart of the NATS server (the connection reconnects,
// streams are recreated if the server lost them, lost jobs are sent again)
// and of the coordinator (a result published meanwhile is found by its
// address). A job that no worker can finish comes back, after MaxDeliver
// deliveries, as a failure wrapping episode.ErrJobFailed; unless it
// trusts its workers, the coordinator then plays it itself, and returns
// that failure only if it fails here too for a reason of the system.
type Remote struct {
	cfg RemoteConfig
	nc  *nats.Conn
	js  jetstream.JetStream

	slots   chan struct{} // one per episode in flight
	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	ensure  chan struct{} // asks for the streams to be checked again
	consume jetstream.ConsumeContext

	mu       sync.Mutex // guards waiting, backends and the waiters' fields
	waiting  map[string]*waiter
	backends map[string]bool

	verify *verifier

	resent, dead atomic.Int64
	logged       rateLog
}

var _ episode.Executor = (*Remote)(nil)

// waiter is an episode this coordinator waits for.
type waiter struct {
	id, backend string
	data        []byte // the job
	refs        int
	checked     time.Time // sent or last looked for
	got         *delivery
	done        chan struct{} // closed when got is set

	// What is made of got (use), once for every caller.
	once  sync.Once
	final *episode.Result
	err   error
}

// NewRemote prepares the queue on the server nc is connected to and
// starts listening for results. Close it when done (nc stays open).
func NewRemote(ctx context.Context, nc *nats.Conn, cfg RemoteConfig) (*Remote, error) {
	cfg.withDefaults()
	v, err := newVerifier(cfg.Verify)
	if err != nil {
		return nil, err
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, err
	}
	r := &Remote{cfg: cfg, nc: nc, js: js, verify: v, slots: make(chan struct{}, cfg.InFlight), ensure: make(chan struct{}, 1),
		waiting: map[string]*waiter{}, backends: map[string]bool{string(cfg.Backend): true}}
	if err := ensureQueue(ctx, js, cfg.Queue, r.backendList()); err != nil {
		return nil, fmt.Errorf("nats queue: %w", err)
	}
	cons, err := js.OrderedConsumer(ctx, ResultsStream, jetstream.OrderedConsumerConfig{
		FilterSubjects: []string{resultSubject(">")}, DeliverPolicy: jetstream.DeliverNewPolicy})
	if err != nil {
		return nil, fmt.Errorf("nats results: %w", err)
	}
	r.consume, err = cons.Consume(func(m jetstream.Msg) { r.deliver(lastToken(m.Subject()), m.Headers(), m.Data()) },
		jetstream.ConsumeErrHandler(func(_ jetstream.ConsumeContext, err error) { r.logged.logf(r.cfg.Log, "nats results: %v", err) }))
	if err != nil {
		return nil, fmt.Errorf("nats results: %w", err)
	}
	r.ctx, r.cancel = context.WithCancel(context.Background())
	nc.SetReconnectHandler(func(*nats.Conn) { r.ensureSoon() })
	r.wg.Add(3)
	go r.ensureLoop()
	go r.recheckLoop()
	go r.deadLoop()
	return r, nil
}

// errClosed is what Play returns once the Remote is closed.
var errClosed = errors.New("remote executor closed")

// Close stops listening and waiting; the connection stays open. Episodes
// still waiting return errClosed (their jobs stay in the queue: their
// results will be found by address).
func (r *Remote) Close() {
	r.cancel()
	r.consume.Stop()
	r.wg.Wait()
}

// Play sends the episode to the queue (unless its result is known
// already) and waits for its result, when fewer than InFlight episodes
// are in flight.
func (r *Remote) Play(ctx context.Context, ep *episode.Episode) (*envs.Result, error) {
	select {
	case r.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-r.slots }()
	data, err := json.Marshal(ep)
	if err != nil {
		return nil, err
	}
	backend := string(ep.Limits.Backend)
	if backend == "" {
		backend = string(r.cfg.Backend)
	}
	if err := r.ensureBackend(ctx, backend); err != nil {
		return nil, err
	}
	id := ep.ID()
	w, first := r.wait(id, backend, data)
	defer r.unwait(w)
	if first {
		if d := r.lookup(ctx, id); d != nil {
			r.settle(id, d)
		} else if err := r.publish(ctx, w, id); err != nil {
			return nil, err
		}
	}
	if err := r.await(ctx, w); err != nil {
		return nil, err
	}
	w.once.Do(func() { w.final, w.err = r.settled(ctx, ep, w) })
	if w.err != nil {
		return nil, w.err
	}
	return w.final.Played()
}

// await waits until w has a delivery.
func (r *Remote) await(ctx context.Context, w *waiter) error {
	r.mu.Lock()
	done := w.done
	r.mu.Unlock()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-r.ctx.Done():
		return errClosed
	}
}

// settled makes the result of w's episode out of what was delivered:
// verified (use), or, with TrustWorkers, used as it is when it is of the
// right shape and range — else dropped, and the job sent again, up to
// MaxDeliver times.
func (r *Remote) settled(ctx context.Context, ep *episode.Episode, w *waiter) (*episode.Result, error) {
	for attempt := 1; ; attempt++ {
		r.mu.Lock()
		d := w.got
		r.mu.Unlock()
		if !r.verify.cfg.TrustWorkers {
			out, err := r.use(ctx, ep, d)
			if d.why != "" {
				r.purge(ctx, w.id)
			}
			return out, err
		}
		why := d.why
		if d.out != nil { // trusted: signed or not (a dead letter, a worker of an older version)
			why = ""
			if err := d.out.Check(ep); err != nil {
				why = err.Error()
			}
		}
		if d.out != nil && why == "" {
			return d.out, nil
		}
		r.purge(ctx, w.id)
		if attempt >= r.cfg.Queue.MaxDeliver {
			return episode.JobFailed(w.id, fmt.Sprintf("every result received (%d) was unusable; the last, from %s: %s", attempt, d.who(), why)), nil
		}
		r.logged.logf(r.cfg.Log, "nats: a result for episode %.12s from %s is not used (%s); sending the job again", w.id, d.who(), why)
		r.mu.Lock()
		w.got, w.done = nil, make(chan struct{})
		r.mu.Unlock()
		if err := r.publish(ctx, w, w.id+"."+strconv.FormatInt(time.Now().UnixNano(), 36)); err != nil {
			return nil, err
		}
		if err := r.await(ctx, w); err != nil {
			return nil, err
		}
	}
}

// purge removes the stored result of episode id: a later lookup does not
// find it.
func (r *Remote) purge(ctx context.Context, id string) {
	if s, err := r.js.Stream(ctx, ResultsStream); err == nil {
		s.Purge(ctx, jetstream.WithPurgeSubject(resultSubject(id)))
	}
}

// wait registers a waiter for id, or joins the one there is, reporting
// whether it is new (then the caller sends the job).
func (r *Remote) wait(id, backend string, data []byte) (*waiter, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if w := r.waiting[id]; w != nil {
		w.refs++
		return w, false
	}
	w := &waiter{id: id, backend: backend, data: data, refs: 1, checked: time.Now(), done: make(chan struct{})}
	r.waiting[id] = w
	return w, true
}

func (r *Remote) unwait(w *waiter) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if w.refs--; w.refs == 0 {
		delete(r.waiting, w.id)
	}
}

// settle hands a delivery to whoever waits for it.
func (r *Remote) settle(id string, d *delivery) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if w := r.waiting[id]; w != nil && w.got == nil {
		w.got = d
		close(w.done)
	}
}

// deliver reads a result from the results stream and hands it to whoever
// waits for it, whatever it holds: what to make of it is decided there.
func (r *Remote) deliver(id string, h nats.Header, data []byte) {
	r.settle(id, readDelivery(id, h, data))
}

// lookup returns the stored result of episode id, or nil.
func (r *Remote) lookup(ctx context.Context, id string) *delivery {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	s, err := r.js.Stream(ctx, ResultsStream)
	if err != nil {
		return nil
	}
	m, err := s.GetLastMsgForSubject(ctx, resultSubject(id))
	if err != nil {
		return nil
	}
	return readDelivery(id, m.Header, m.Data)
}

// publish sends the job of w, again and again until the server has it or
// ctx ends. The first sending is deduplicated by the episode's id (a
// coordinator that restarted sends its jobs again); a job sent again
// because it was lost is not (the server may remember the first).
func (r *Remote) publish(ctx context.Context, w *waiter, msgID string) error {
	msg := &nats.Msg{Subject: jobSubject(w.backend, w.id), Data: w.data}
	for attempt := 0; ; attempt++ {
		pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		_, err := r.js.PublishMsg(pctx, msg, jetstream.WithMsgID(msgID))
		cancel()
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if errors.Is(err, jetstream.ErrNoStreamResponse) || errors.Is(err, nats.ErrNoResponders) {
			r.ensureSoon()
		}
		r.logged.logf(r.cfg.Log, "nats: sending episode %.12s: %v (trying again)", w.id, err)
		if err := sleep(ctx, backoff(attempt)); err != nil {
			return err
		}
	}
}

// ensureBackend creates the workers' consumer of a backend the first time
// an episode needs it.
func (r *Remote) ensureBackend(ctx context.Context, backend string) error {
	r.mu.Lock()
	known := r.backends[backend]
	r.backends[backend] = true
	r.mu.Unlock()
	if known {
		return nil
	}
	if err := ensureQueue(ctx, r.js, r.cfg.Queue, []string{backend}); err != nil {
		r.mu.Lock()
		delete(r.backends, backend)
		r.mu.Unlock()
		return fmt.Errorf("nats queue: %w", err)
	}
	return nil
}

func (r *Remote) backendList() []string {
	var out []string
	for b := range r.backends {
		out = append(out, b)
	}
	return out
}

func (r *Remote) ensureSoon() {
	select {
	case r.ensure <- struct{}{}:
	default:
	}
}

// ensureLoop recreates the queue when asked (after a reconnection): a
// server restarted without its state gets its streams back.
func (r *Remote) ensureLoop() {
	defer r.wg.Done()
	for {
		select {
		case <-r.ctx.Done():
			return
		case <-r.ensure:
		}
		for attempt := 0; ; attempt++ {
			r.mu.Lock()
			backends := r.backendList()
			r.mu.Unlock()
			ctx, cancel := context.WithTimeout(r.ctx, 30*time.Second)
			err := ensureQueue(ctx, r.js, r.cfg.Queue, backends)
			cancel()
			if err == nil || r.ctx.Err() != nil {
				break
			}
			r.logged.logf(r.cfg.Log, "nats: %v (trying again)", err)
			if sleep(r.ctx, backoff(attempt)) != nil {
				return
			}
		}
	}
}

// recheckLoop looks, every Recheck, for the episodes that have waited
// that long: a result missed, or a job lost and sent again.
func (r *Remote) recheckLoop() {
	defer r.wg.Done()
	t := time.NewTicker(max(r.cfg.Recheck/4, 50*time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-r.ctx.Done():
			return
		case <-t.C:
		}
		now := time.Now()
		var stale []*waiter
		r.mu.Lock()
		for _, w := range r.waiting {
			if w.got == nil && now.Sub(w.checked) >= r.cfg.Recheck {
				w.checked = now
				stale = append(stale, w)
			}
		}
		r.mu.Unlock()
		for _, w := range stale {
			r.recheck(w)
		}
	}
}

func (r *Remote) recheck(w *waiter) {
	ctx, cancel := context.WithTimeout(r.ctx, 30*time.Second)
	defer cancel()
	if d := r.lookup(ctx, w.id); d != nil {
		r.settle(w.id, d)
		return
	}
	s, err := r.js.Stream(ctx, JobsStream)
	if err == nil {
		_, err = s.GetLastMsgForSubject(ctx, jobSubject(w.backend, w.id))
	}
	switch {
	case err == nil:
		return // queued, or in a worker's hands
	case errors.Is(err, jetstream.ErrStreamNotFound):
		r.ensureSoon()
		return
	case !errors.Is(err, jetstream.ErrMsgNotFound):
		return // the server is away: next time
	}
	if d := r.lookup(ctx, w.id); d != nil { // answered meanwhile
		r.settle(w.id, d)
		return
	}
	r.resent.Add(1)
	r.logf("nats: episode %.12s was lost from the queue; sending it again", w.id)
	r.publish(ctx, w, w.id+"."+strconv.FormatInt(time.Now().UnixNano(), 36))
}

// deadLoop takes the advisories of jobs delivered MaxDeliver times and
// answers each with a failure (episode.ErrJobFailed), removing the job.
func (r *Remote) deadLoop() {
	defer r.wg.Done()
	for attempt := 0; r.ctx.Err() == nil; {
		cons, err := r.js.Consumer(r.ctx, DeadStream, deadConsumer)
		var batch jetstream.MessageBatch
		if err == nil {
			batch, err = cons.Fetch(16, jetstream.FetchMaxWait(5*time.Second))
		}
		if err != nil {
			if r.ctx.Err() == nil {
				if errors.Is(err, jetstream.ErrStreamNotFound) || errors.Is(err, jetstream.ErrConsumerNotFound) {
					r.ensureSoon()
				}
				sleep(r.ctx, backoff(attempt))
				attempt++
			}
			continue
		}
		attempt = 0
		for m := range batch.Messages() {
			r.deadLetter(m)
		}
	}
}

// advisory is the part of the server's max-deliveries advisory read here.
type advisory struct {
	StreamSeq  uint64 `json:"stream_seq"`
	Deliveries uint64 `json:"deliveries"`
}

func (r *Remote) deadLetter(m jetstream.Msg) {
	ctx, cancel := context.WithTimeout(r.ctx, 30*time.Second)
	defer cancel()
	var adv advisory
	if err := json.Unmarshal(m.Data(), &adv); err != nil {
		m.Term()
		return
	}
	jobs, err := r.js.Stream(ctx, JobsStream)
	if err != nil {
		m.Nak()
		return
	}
	job, err := jobs.GetMsg(ctx, adv.StreamSeq)
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		m.Ack() // answered or removed already
		return
	}
	if err != nil {
		m.Nak()
		return
	}
	id := lastToken(job.Subject)
	out := episode.JobFailed(id, fmt.Sprintf("no worker finished the episode in %d deliveries (each worker died, was killed or went silent while playing it)", adv.Deliveries))
	data, _ := json.Marshal(out)
	if _, err := r.js.Publish(ctx, resultSubject(id), data); err != nil {
		m.Nak()
		return
	}
	jobs.DeleteMsg(ctx, adv.StreamSeq)
	m.Ack()
	r.dead.Add(1)
	then := "the coordinator plays it itself"
	if r.verify.cfg.TrustWorkers {
		then = "recorded as a failure"
	}
	r.logf("nats: episode %.12s failed on every delivery (%d); %s", id, adv.Deliveries, then)
}

func (r *Remote) logf(format string, args ...any) {
	if r.cfg.Log != nil {
		r.cfg.Log(format, args...)
	}
}

// backoff is the wait before attempt+1: 250 ms doubling to 5 s.
func backoff(attempt int) time.Duration {
	return min(250*time.Millisecond<<min(attempt, 5), 5*time.Second)
}

// sleep waits d, or until ctx ends.
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

// rateLog passes a log line at most once every 10 s for each format (the
// rest are counted), so that a server away for minutes does not flood the
// log.
type rateLog struct {
	mu    sync.Mutex
	lines map[string]*rateLine
}

type rateLine struct {
	last    time.Time
	dropped int
}

func (l *rateLog) logf(log func(string, ...any), format string, args ...any) {
	if log == nil {
		return
	}
	l.mu.Lock()
	if l.lines == nil {
		l.lines = map[string]*rateLine{}
	}
	ln := l.lines[format]
	if ln == nil {
		ln = &rateLine{}
		l.lines[format] = ln
	}
	now := time.Now()
	if now.Sub(ln.last) < 10*time.Second {
		ln.dropped++
		l.mu.Unlock()
		return
	}
	dropped := ln.dropped
	ln.last, ln.dropped = now, 0
	l.mu.Unlock()
	if dropped > 0 {
		format += fmt.Sprintf(" (%d more like it in the last seconds)", dropped)
	}
	log(format, args...)
}
