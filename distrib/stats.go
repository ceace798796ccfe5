package distrib

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// WorkerStats is what a worker tells of itself in the workers' bucket.
type WorkerStats struct {
	Name        string `json:"name"`
	Host        string `json:"host"`
	PID         int    `json:"pid"`
	Backend     string `json:"backend"`
	Concurrency int    `json:"concurrency"`
	// Key is the public key the worker signs its results with, as the
	// coordinator's logs name it (told by the worker: for display only).
	Key     string    `json:"key"`
	Started time.Time `json:"started"`
	Seen    time.Time `json:"seen"` // the last heartbeat
	// Jobs answered with a result; Failed of them, a policy's failure;
	// Errors: jobs the system failed (handed back, or refused).
	Jobs   int64 `json:"jobs"`
	Failed int64 `json:"failed"`
	Errors int64 `json:"errors"`
	Busy   int64 `json:"busy"` // jobs in hand
	// Rate is episodes per second over the last minute; JobSeconds the
	// mean time a job took (compiling its policies the first time, and
	// playing).
	Rate       float64 `json:"rate"`
	JobSeconds float64 `json:"job_seconds"`
}

// workerCounters are a worker's running counts.
type workerCounters struct {
	started              time.Time
	jobs, failed, errors atomic.Int64
	busy                 atomic.Int64
	jobNanos             atomic.Int64
	mu                   sync.Mutex // guards samples
	samples              []sample   // (time, jobs) at each heartbeat, the last minute's
}

type sample struct {
	t    time.Time
	jobs int64
}

func (c *workerCounters) played(d time.Duration, failed bool) {
	c.jobs.Add(1)
	c.jobNanos.Add(int64(d))
	if failed {
		c.failed.Add(1)
	}
}

// Stats returns the worker's statistics now.
func (w *Worker) Stats() WorkerStats {
	c := &w.stats
	host, _ := os.Hostname()
	now := time.Now()
	s := WorkerStats{Name: w.cfg.Name, Host: host, PID: os.Getpid(), Backend: string(w.cfg.Backend),
		Concurrency: w.cfg.Concurrency, Key: w.id.pub, Started: c.started, Seen: now, Jobs: c.jobs.Load(),
		Failed: c.failed.Load(), Errors: c.errors.Load(), Busy: c.busy.Load()}
	if s.Jobs > 0 {
		s.JobSeconds = time.Duration(c.jobNanos.Load()).Seconds() / float64(s.Jobs)
	}
	c.mu.Lock()
	c.samples = append(c.samples, sample{now, s.Jobs})
	for len(c.samples) > 2 && now.Sub(c.samples[1].t) >= time.Minute {
		c.samples = c.samples[1:]
	}
	if first := c.samples[0]; now.Sub(first.t) > 0 && len(c.samples) > 1 {
		s.Rate = float64(s.Jobs-first.jobs) / now.Sub(first.t).Seconds()
	}
	c.mu.Unlock()
	return s
}

// heartbeats puts the worker's statistics in the workers' bucket every
// Heartbeat until ctx ends, then removes them.
func (w *Worker) heartbeats(ctx context.Context) {
	var kv jetstream.KeyValue
	beat := func(ctx context.Context) {
		if kv == nil {
			var err error
			if kv, err = workersBucket(ctx, w.js); err != nil {
				return
			}
		}
		data, _ := json.Marshal(w.Stats())
		if _, err := kv.Put(ctx, w.cfg.Name, data); err != nil && ctx.Err() == nil {
			kv = nil // the server may have lost the bucket: open it again
		}
	}
	t := time.NewTicker(w.cfg.Heartbeat)
	defer t.Stop()
	for {
		bctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		beat(bctx)
		cancel()
		select {
		case <-ctx.Done():
			// Gone: the entry goes too (after any heartbeat sent).
			if w.nc.IsConnected() {
				dctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				if kv == nil {
					kv, _ = workersBucket(dctx, w.js)
				}
				if kv != nil {
					kv.Delete(dctx, w.cfg.Name)
				}
				cancel()
			}
			return
		case <-t.C:
		}
	}
}

// ListWorkers returns the workers whose statistics are in the bucket
// (those heard from within its 30 s lifetime), by name.
func ListWorkers(ctx context.Context, nc *nats.Conn) ([]WorkerStats, error) {
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, err
	}
	kv, err := js.KeyValue(ctx, WorkersBucket)
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		return nil, nil // no worker ever came
	}
	if err != nil {
		return nil, err
	}
	keys, err := kv.Keys(ctx)
	if errors.Is(err, jetstream.ErrNoKeysFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []WorkerStats
	for _, k := range keys {
		e, err := kv.Get(ctx, k)
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			continue // gone meanwhile
		}
		if err != nil {
			return nil, err
		}
		var s WorkerStats
		if err := json.Unmarshal(e.Value(), &s); err != nil {
			return nil, fmt.Errorf("worker %s: %w", k, err)
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Queue is the state of one backend's work queue.
type Queue struct {
	Backend     string `json:"backend"`
	Waiting     uint64 `json:"waiting"` // jobs no worker has taken yet
	Running     int    `json:"running"` // jobs in a worker's hands
	Redelivered int    `json:"redelivered"`
}

// Queues returns the state of every backend's work queue (none before a
// coordinator has opened one).
func Queues(ctx context.Context, nc *nats.Conn) ([]Queue, error) {
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, err
	}
	s, err := js.Stream(ctx, JobsStream)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Queue
	l := s.ListConsumers(ctx)
	for info := range l.Info() {
		if len(info.Name) <= len(consumerPrefix) || info.Name[:len(consumerPrefix)] != consumerPrefix {
			continue
		}
		out = append(out, Queue{Backend: info.Name[len(consumerPrefix):], Waiting: info.NumPending,
			Running: info.NumAckPending, Redelivered: info.NumRedelivered})
	}
	if err := l.Err(); err != nil {
		return nil, err
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Backend < out[j].Backend })
	return out, nil
}

// RemoteStats is the state of a coordinator's episodes, for its progress
// display.
type RemoteStats struct {
	Pending int     `json:"pending"` // episodes sent and not yet answered
	Queues  []Queue `json:"queues"`
	Workers int     `json:"workers"` // workers heard from lately
	Resent  int64   `json:"resent"`  // jobs sent again after they were lost
	Dead    int64   `json:"dead"`    // jobs answered as failed after MaxDeliver
}

// Stats reports the coordinator's pending episodes, the queues and the
// workers.
func (r *Remote) Stats(ctx context.Context) (RemoteStats, error) {
	r.mu.Lock()
	s := RemoteStats{Pending: len(r.waiting), Resent: r.resent.Load(), Dead: r.dead.Load()}
	r.mu.Unlock()
	var err error
	if s.Queues, err = Queues(ctx, r.nc); err != nil {
		return s, err
	}
	ws, err := ListWorkers(ctx, r.nc)
	s.Workers = len(ws)
	return s, err
}

// String is the state in a few words, for a progress line.
func (s RemoteStats) String() string {
	var waiting uint64
	running := 0
	for _, q := range s.Queues {
		waiting += q.Waiting
		running += q.Running
	}
	out := fmt.Sprintf("queue: %d waiting, %d running, %d worker(s)", waiting, running, s.Workers)
	if s.Dead > 0 {
		out += fmt.Sprintf(", %d failed jobs", s.Dead)
	}
	return out
}
