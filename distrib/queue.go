package distrib

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// The JetStream names. Subjects carry a protocol version: workers of an
// older release never see the jobs of a newer one.
const (
	// JobsStream is the work queue: one message per episode, on
	// policyevolve.v1.jobs.BACKEND.ID, removed when a worker acknowledges it.
	JobsStream = "POLICYEVOLVE_JOBS"
	// ResultsStream keeps the last result of every episode, on
	// policyevolve.v1.results.ID, for ResultTTL: results are content-
	// addressed, so a coordinator that restarts finds them again.
	ResultsStream = "POLICYEVOLVE_RESULTS"
	// DeadStream captures the server's advisories for jobs delivered
	// MaxDeliver times without an acknowledgement (the dead-letter queue),
	// even while no coordinator runs.
	DeadStream = "POLICYEVOLVE_DEAD"
	// WorkersBucket is the key-value bucket where each worker keeps its
	// statistics, refreshed every heartbeat; an entry expires when its
	// worker stops refreshing it.
	WorkersBucket = "policyevolve-workers"

	subjectRoot    = "policyevolve.v1"
	deadConsumer   = "coordinator"
	workersTTL     = 30 * time.Second
	maxJobBytes    = 8 << 20
	consumerPrefix = "workers-"
)

func jobSubject(backend, id string) string { return subjectRoot + ".jobs." + backend + "." + id }
func jobFilter(backend string) string      { return subjectRoot + ".jobs." + backend + ".>" }
func resultSubject(id string) string       { return subjectRoot + ".results." + id }

// consumerName is the durable pull consumer the workers of a backend share.
func consumerName(backend string) string { return consumerPrefix + backend }

// lastToken is a subject's last token: the episode id of a job or result.
func lastToken(subject string) string { return subject[strings.LastIndexByte(subject, '.')+1:] }

// QueueConfig is how the queue redelivers jobs. The coordinator owns it:
// it creates the streams and consumers; workers read it from the consumer.
// The zero value works: every field has a default, set in WithDefaults.
type QueueConfig struct {
	// AckWait is how long a job may go without a word from its worker
	// (a result, or an in-progress acknowledgement, which workers send
	// every AckWait/3) before the server gives it to another worker.
	AckWait time.Duration
	// MaxDeliver is how many times a job is delivered before it counts as
	// failed (a poison job) and comes back as ErrJobFailed.
	MaxDeliver int
	// ResultTTL is how long results are kept for coordinators to find
	// again.
	ResultTTL time.Duration
	// Duplicates is the window in which a job published twice (by a
	// coordinator that restarted, say) is stored once.
	Duplicates time.Duration
}

// Defaults, with the reasons for them.
const (
	// Workers acknowledge progress every 10 s: a worker that died is
	// noticed within half a minute, one that is merely slow never.
	DefaultAckWait = 30 * time.Second
	// Five deliveries: a job survives a few killed or restarted workers,
	// while a job that kills every worker stops within minutes.
	DefaultMaxDeliver = 5
	// A day: long enough for a run to resume after a night's stop.
	DefaultResultTTL = 24 * time.Hour
	// Long enough to cover a coordinator's restart.
	DefaultDuplicates = 10 * time.Minute
)

// WithDefaults returns c with every zero field set to its default.
func (c QueueConfig) WithDefaults() QueueConfig {
	if c.AckWait <= 0 {
		c.AckWait = DefaultAckWait
	}
	if c.MaxDeliver <= 0 {
		c.MaxDeliver = DefaultMaxDeliver
	}
	if c.ResultTTL <= 0 {
		c.ResultTTL = DefaultResultTTL
	}
	if c.Duplicates <= 0 {
		c.Duplicates = DefaultDuplicates
	}
	return c
}

// ensureQueue creates (or brings up to date) the streams, the workers'
// consumer for each backend, the dead-letter consumer and the workers'
// bucket. It is idempotent: the coordinator runs it at start and after
// every reconnection (a server that lost its state gets it back).
func ensureQueue(ctx context.Context, js jetstream.JetStream, c QueueConfig, backends []string) error {
	streams := []jetstream.StreamConfig{{
		Name: JobsStream, Description: "policyevolve: episodes to play (a work queue)",
		Subjects: []string{subjectRoot + ".jobs.>"}, Retention: jetstream.WorkQueuePolicy,
		Storage: jetstream.FileStorage, Duplicates: c.Duplicates, MaxMsgSize: maxJobBytes,
	}, {
		Name: ResultsStream, Description: "policyevolve: the result of each episode, by its content address",
		Subjects: []string{subjectRoot + ".results.>"}, Storage: jetstream.FileStorage,
		MaxAge: c.ResultTTL, MaxMsgsPerSubject: 1, AllowDirect: true,
	}, {
		Name: DeadStream, Description: "policyevolve: jobs delivered MaxDeliver times (advisories)",
		Subjects:  []string{"$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES." + JobsStream + ".*"},
		Retention: jetstream.WorkQueuePolicy, Storage: jetstream.FileStorage,
	}}
	for _, sc := range streams {
		if _, err := js.CreateOrUpdateStream(ctx, sc); err != nil {
			return fmt.Errorf("stream %s: %w", sc.Name, err)
		}
	}
	for _, b := range backends {
		cc := jetstream.ConsumerConfig{Durable: consumerName(b), Description: "policyevolve workers (" + b + ")",
			AckPolicy: jetstream.AckExplicitPolicy, AckWait: c.AckWait, MaxDeliver: c.MaxDeliver,
			FilterSubject: jobFilter(b)}
		if _, err := js.CreateOrUpdateConsumer(ctx, JobsStream, cc); err != nil {
			return fmt.Errorf("consumer %s: %w", cc.Durable, err)
		}
	}
	dc := jetstream.ConsumerConfig{Durable: deadConsumer, AckPolicy: jetstream.AckExplicitPolicy, AckWait: time.Minute}
	if _, err := js.CreateOrUpdateConsumer(ctx, DeadStream, dc); err != nil {
		return fmt.Errorf("consumer %s: %w", deadConsumer, err)
	}
	_, err := workersBucket(ctx, js)
	return err
}

// workersBucket opens the workers' bucket, creating it if needed.
func workersBucket(ctx context.Context, js jetstream.JetStream) (jetstream.KeyValue, error) {
	kv, err := js.KeyValue(ctx, WorkersBucket)
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		kv, err = js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: WorkersBucket,
			Description: "policyevolve: connected workers and their statistics", TTL: workersTTL,
			Storage: jetstream.MemoryStorage})
	}
	if err != nil {
		return nil, fmt.Errorf("bucket %s: %w", WorkersBucket, err)
	}
	return kv, nil
}
