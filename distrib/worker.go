package distrib

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"policyevolve/evolve/episode"
	"policyevolve/sandbox"
)

// WorkerConfig configures a Worker. Backend is required; every other
// field has a default, set in withDefaults.
type WorkerConfig struct {
	// Name identifies the worker in "policyevolve workers" (default:
	// host name and process id).
	Name string
	// Backend is the sandbox backend this worker runs, and so the queue it
	// serves: it takes only the jobs of coordinators with that backend.
	Backend sandbox.Backend
	// Concurrency is how many jobs the worker plays at once (default: the
	// number of CPUs).
	Concurrency int
	// Sandbox is the configuration of the sandboxes the worker builds:
	// each job's limits (step timeout, cost budget) are applied to it, so
	// that a policy is judged as the coordinator would judge it.
	Sandbox sandbox.Config
	// MaxPrograms bounds the compiled policies kept per sandbox, the least
	// recently played dropped first (default 64).
	MaxPrograms int
	// Poll is how long a request for a job waits on the server: also how
	// long Drain may take when no job is in hand (default 5 s).
	Poll time.Duration
	// Heartbeat is how often the worker refreshes its statistics in the
	// workers' bucket (default 5 s).
	Heartbeat time.Duration
	// Log receives one line per notable event (nil: none).
	Log func(format string, args ...any)
	// Executor, when set, plays the episodes instead of sandboxes built
	// from Sandbox (tests inject failures with it).
	Executor func(episode.Limits) (episode.Executor, error)
}

// Defaults, with the reasons for them.
const (
	// A hundred or so distinct policies are played in an iteration at
	// most; a compiled policy costs a binary on disk and idle workers.
	DefaultMaxPrograms = 64
	DefaultPoll        = 5 * time.Second
	// Six heartbeats fit in the bucket's 30 s lifetime.
	DefaultHeartbeat = 5 * time.Second
)

func (c *WorkerConfig) withDefaults() {
	if c.Name == "" {
		host, _ := os.Hostname()
		c.Name = fmt.Sprintf("%s-%d", host, os.Getpid())
	}
	c.Name = keySafe(c.Name)
	if c.Concurrency <= 0 {
		c.Concurrency = runtime.NumCPU()
	}
	if c.MaxPrograms <= 0 {
		c.MaxPrograms = DefaultMaxPrograms
	}
	if c.Poll <= 0 {
		c.Poll = DefaultPoll
	}
	if c.Heartbeat <= 0 {
		c.Heartbeat = DefaultHeartbeat
	}
}

// keySafe keeps the characters a bucket key may hold.
func keySafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '_'
	}, s)
}

// Worker takes jobs from the work queue of its backend, plays them as the
// coordinator would (episode.Local: the same validation, limits and OS
// confinement), publishes each result, signed with a key of its own made
// when it starts (the coordinator knows it by that key), and acknowledges
// the job. It trusts
// nothing in a job beyond its sandbox: a job is checked for shape and
// content address before anything in it runs, and policy sources are
// validated and confined as locally.
//
// While a job plays, the worker tells the server every AckWait/3 that it
// is still at it; a worker that dies is noticed after AckWait and its job
// goes to another. A job that fails for a reason of the system (not the
// policy's) is handed back for another attempt, and on its last delivery
// answered as a failed job (episode.ErrJobFailed). Workers may come and go
// at any time.
type Worker struct {
	cfg WorkerConfig
	nc  *nats.Conn
	js  jetstream.JetStream
	id  *signer // signs the results

	draining atomic.Bool
	drainMu  sync.Mutex // guards stopWaiting
	// stopWaiting ends the waits for a job (not the jobs in hand) when
	// the worker drains.
	stopWaiting context.CancelFunc

	consMu sync.Mutex // guards cons
	cons   jetstream.Consumer

	localsMu sync.Mutex // guards locals
	locals   map[episode.Limits]*episode.Local

	stats  workerCounters
	logged rateLog
}

// NewWorker returns a worker on the server nc is connected to.
func NewWorker(nc *nats.Conn, cfg WorkerConfig) (*Worker, error) {
	if cfg.Backend != sandbox.Native && cfg.Backend != sandbox.Yaegi {
		return nil, fmt.Errorf("worker: backend %q (want native or yaegi)", cfg.Backend)
	}
	cfg.withDefaults()
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, err
	}
	id, err := newSigner(cfg.Name)
	if err != nil {
		return nil, err
	}
	w := &Worker{cfg: cfg, nc: nc, js: js, id: id, locals: map[episode.Limits]*episode.Local{}}
	w.stats.started = time.Now()
	return w, nil
}

// Name is the worker's name in the workers' bucket.
func (w *Worker) Name() string { return w.cfg.Name }

// Drain asks the worker to take no more jobs: Run returns once the jobs
// in hand are played and answered. It may be called from any goroutine.
func (w *Worker) Drain() {
	w.draining.Store(true)
	w.drainMu.Lock()
	if w.stopWaiting != nil {
		w.stopWaiting()
	}
	w.drainMu.Unlock()
}

// Run serves jobs until Drain has been called and the jobs in hand are
// done, or ctx ends (jobs in hand are then handed back to the queue).
func (w *Worker) Run(ctx context.Context) error {
	defer w.closeLocals()
	hb, stopHB := context.WithCancel(context.Background())
	hbDone := make(chan struct{})
	go func() {
		defer close(hbDone)
		w.heartbeats(hb)
	}()
	defer func() {
		stopHB()
		<-hbDone
	}()
	waiting, stop := context.WithCancel(ctx)
	defer stop()
	w.drainMu.Lock()
	w.stopWaiting = stop
	w.drainMu.Unlock()
	if w.draining.Load() {
		stop()
	}
	var wg sync.WaitGroup
	for range w.cfg.Concurrency {
		wg.Go(func() { w.slot(ctx, waiting) })
	}
	wg.Wait()
	return ctx.Err()
}

// slot takes one job at a time until the worker drains (waiting ends) or
// ctx ends; a job in hand is played under ctx.
func (w *Worker) slot(ctx, waiting context.Context) {
	for attempt := 0; waiting.Err() == nil; {
		cons, err := w.consumer(waiting)
		if err != nil {
			sleep(waiting, backoff(attempt))
			attempt++
			continue
		}
		fctx, cancel := context.WithTimeout(waiting, w.cfg.Poll)
		batch, err := cons.Fetch(1, jetstream.FetchContext(fctx))
		if err == nil {
			for m := range batch.Messages() {
				w.handle(ctx, m)
			}
			err = batch.Error()
		}
		cancel()
		if err == nil || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrTimeout) || waiting.Err() != nil {
			attempt = 0
			continue
		}
		w.logged.logf(w.cfg.Log, "worker %s: asking for a job: %v", w.cfg.Name, err)
		w.forget(cons)
		sleep(waiting, backoff(attempt))
		attempt++
	}
}

// consumer returns the queue's consumer for the worker's backend, waiting
// (as a caller's retries) for a coordinator to create it.
func (w *Worker) consumer(ctx context.Context) (jetstream.Consumer, error) {
	w.consMu.Lock()
	c := w.cons
	w.consMu.Unlock()
	if c != nil {
		return c, nil
	}
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	c, err := w.js.Consumer(cctx, JobsStream, consumerName(string(w.cfg.Backend)))
	if err != nil {
		switch {
		case ctx.Err() != nil:
		case errors.Is(err, jetstream.ErrStreamNotFound) || errors.Is(err, jetstream.ErrConsumerNotFound):
			w.logged.logf(w.cfg.Log, "worker %s: waiting for a coordinator to open the %s queue", w.cfg.Name, w.cfg.Backend)
		default:
			w.logged.logf(w.cfg.Log, "worker %s: looking for the %s queue: %v (trying again)", w.cfg.Name, w.cfg.Backend, err)
		}
		return nil, err
	}
	w.consMu.Lock()
	w.cons = c
	w.consMu.Unlock()
	return c, nil
}

// forget drops a consumer that failed, to look it up again.
func (w *Worker) forget(c jetstream.Consumer) {
	w.consMu.Lock()
	if w.cons == c {
		w.cons = nil
	}
	w.consMu.Unlock()
}

// handle plays one job and answers it.
func (w *Worker) handle(ctx context.Context, m jetstream.Msg) {
	w.stats.busy.Add(1)
	defer w.stats.busy.Add(-1)
	id := lastToken(m.Subject())
	cfg := w.queueConfig()
	md, err := m.Metadata()
	if err != nil {
		m.Term()
		return
	}
	// The job is in hand from now on, until it is answered: tell the
	// server every AckWait/3 (decoding, starting a policy's worker and
	// publishing the result take time too, more on a busy machine).
	defer keepInHand(m, cfg.AckWait)()
	ep, err := decodeJob(id, m.Data())
	var bad *badJob
	if errors.As(err, &bad) {
		// A job of the wrong shape fails the same way everywhere: answer
		// it now.
		w.stats.errors.Add(1)
		w.logf("worker %s: refused job %.12s: %v", w.cfg.Name, id, err)
		w.answer(ctx, m, episode.JobFailed(id, fmt.Sprintf("worker %s refused the job: %v", w.cfg.Name, err)), true)
		return
	}
	start := time.Now()
	var out *episode.Result
	if err == nil {
		out, err = w.play(ctx, ep, id)
	}
	if ctx.Err() != nil {
		m.Nak() // abandoned: another worker takes it now
		return
	}
	if err != nil {
		// The system's failure, or a job this worker cannot read (from a
		// coordinator of another version?): perhaps another worker can.
		w.stats.errors.Add(1)
		if int(md.NumDelivered) >= cfg.MaxDeliver {
			why := fmt.Sprintf("failed on every delivery (%d); the last, on worker %s: %v", md.NumDelivered, w.cfg.Name, err)
			w.logf("worker %s: job %.12s %s", w.cfg.Name, id, why)
			w.answer(ctx, m, episode.JobFailed(id, "the episode "+why), true)
			return
		}
		w.logf("worker %s: job %.12s (delivery %d of %d): %v; handed back", w.cfg.Name, id, md.NumDelivered, cfg.MaxDeliver, err)
		m.NakWithDelay(time.Second)
		return
	}
	w.stats.played(time.Since(start), out.Failure != nil)
	w.answer(ctx, m, out, false)
}

// badJob is a job whose content is wrong wherever it is read.
type badJob struct{ err error }

func (e *badJob) Error() string { return e.err.Error() }

// decodeJob reads a job: an Episode whose content address is id, of the
// right shape (else a *badJob).
func decodeJob(id string, data []byte) (*episode.Episode, error) {
	var ep episode.Episode
	if err := json.Unmarshal(data, &ep); err != nil {
		return nil, fmt.Errorf("the job does not decode: %w", err)
	}
	if ep.ID() != id {
		return nil, errors.New("the job's content is not what its id says (a coordinator of another version?)")
	}
	if err := ep.Validate(); err != nil {
		return nil, &badJob{err}
	}
	return &ep, nil
}

// keepInHand tells the server now, and every ackWait/3 until the
// returned function is called, that the job m is in hand.
func keepInHand(m jetstream.Msg, ackWait time.Duration) (stop func()) {
	m.InProgress()
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(max(ackWait/3, 10*time.Millisecond))
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				m.InProgress()
			}
		}
	}()
	return func() { close(done) }
}

// play plays the episode; a system's failure is returned as the error.
func (w *Worker) play(ctx context.Context, ep *episode.Episode, id string) (*episode.Result, error) {
	ex, err := w.executor(ep.Limits)
	if err != nil {
		return nil, err
	}
	res, err := ex.Play(ctx, ep)
	return episode.NewResult(id, res, err)
}

// answer publishes a job's result (until the server has it, or ctx ends)
// and acknowledges the job, or terminates it (no more deliveries).
func (w *Worker) answer(ctx context.Context, m jetstream.Msg, out *episode.Result, term bool) {
	data, err := json.Marshal(out)
	if err != nil {
		m.Nak()
		return
	}
	for attempt := 0; ; attempt++ {
		pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		_, err = w.js.PublishMsg(pctx, w.id.message(resultSubject(out.Job), data))
		cancel()
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			m.Nak()
			return
		}
		w.logged.logf(w.cfg.Log, "worker %s: publishing a result: %v (trying again)", w.cfg.Name, err)
		if sleep(ctx, backoff(attempt)) != nil {
			m.Nak()
			return
		}
	}
	actx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if term {
		m.TermWithReason(out.Failure.Message)
		return
	}
	// Lost, the acknowledgement only costs a second play of the job.
	m.DoubleAck(actx)
}

// queueConfig reads the redelivery settings of the queue's consumer.
func (w *Worker) queueConfig() QueueConfig {
	c := QueueConfig{}
	w.consMu.Lock()
	if w.cons != nil {
		if info := w.cons.CachedInfo(); info != nil {
			c.AckWait, c.MaxDeliver = info.Config.AckWait, info.Config.MaxDeliver
		}
	}
	w.consMu.Unlock()
	return c.WithDefaults()
}

// executor returns the executor for a job's limits.
func (w *Worker) executor(l episode.Limits) (episode.Executor, error) {
	if w.cfg.Executor != nil {
		return w.cfg.Executor(l)
	}
	return w.local(l)
}

// local returns the Local for a job's limits, whose sandbox has exactly
// those limits, built the first time.
func (w *Worker) local(l episode.Limits) (*episode.Local, error) {
	w.localsMu.Lock()
	defer w.localsMu.Unlock()
	if ex := w.locals[l]; ex != nil {
		return ex, nil
	}
	var sb *sandbox.Sandbox
	if l != (episode.Limits{}) {
		if l.Backend != w.cfg.Backend {
			return nil, fmt.Errorf("the job needs the %s backend, this worker runs %s", l.Backend, w.cfg.Backend)
		}
		c := w.cfg.Sandbox
		c.Backend, c.StepTimeout, c.CostBudget = l.Backend, l.StepTimeout, l.CostBudget
		var err error
		if sb, err = sandbox.New(c); err != nil {
			return nil, fmt.Errorf("sandbox: %w", err)
		}
		if got := episode.LimitsOf(sb); got != l {
			return nil, fmt.Errorf("sandbox: the job's limits %+v came out as %+v", l, got)
		}
	}
	ex := &episode.Local{Sandbox: sb, Workers: w.cfg.Concurrency, MaxPrograms: w.cfg.MaxPrograms}
	w.locals[l] = ex
	return ex, nil
}

func (w *Worker) closeLocals() {
	w.localsMu.Lock()
	defer w.localsMu.Unlock()
	for _, l := range w.locals {
		l.Close()
	}
}

func (w *Worker) logf(format string, args ...any) {
	if w.cfg.Log != nil {
		w.cfg.Log(format, args...)
	}
}
