package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/nats-io/nats.go"

	"policyevolve/distrib"
	"policyevolve/sandbox"
)

// workerOptions are the flags of "worker".
type workerOptions struct {
	nats        natsOptions
	backend     string
	concurrency int
	name        string
	maxPrograms int
	heartbeat   time.Duration
	wait        time.Duration // for the NATS server to answer; 0: for ever
}

func cmdWorker(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var o workerOptions
	fs := newFlagSet("worker", "--nats URL [flags]", `
Serve as an evaluation worker: take episodes from the NATS JetStream work
queue of an "evolve --nats" run, play them and send back the results.

Each policy is compiled once per worker (kept for the next jobs, up to
--max-programs) and played exactly as the coordinator would play it: the
same validation, the same limits (a job carries the coordinator's step
timeout and cost budget) and the same OS confinement. A worker trusts
nothing in a job beyond its sandbox; the coordinator trusts no result
beyond what it checks: the worker signs its results with a key it makes
when it starts, and the coordinator replays a sample of each worker's
results, ignoring a worker caught forging. Workers may join and leave at any time: a job a
worker dies on goes to another.

SIGTERM or Ctrl-C finishes the jobs in hand and stops; a second one
abandons them (they go back to the queue). Credentials: --nats-token-file
(an "evolve --nats embedded" without credentials generates its token in
STORE.nats-token beside its store), --nats-token (or
$POLICYEVOLVE_NATS_TOKEN), --nats-nkey, --nats-creds, and TLS with
--nats-tls-ca (and --nats-tls-cert/--nats-tls-key if the server checks
clients).`, stdout)
	o.nats.register(fs, "NATS server URL, e.g. nats://coordinator:4222")
	fs.StringVar(&o.backend, "backend", "auto", "how source policies run: native (needs a Go toolchain), yaegi or auto; the worker serves the queue of that backend")
	fs.IntVar(&o.concurrency, "concurrency", runtime.NumCPU(), "episodes played at once")
	fs.StringVar(&o.name, "name", "", "name in \"policyevolve workers\" (default: host name and process id)")
	fs.IntVar(&o.maxPrograms, "max-programs", distrib.DefaultMaxPrograms, "compiled policies kept for later jobs")
	fs.DurationVar(&o.heartbeat, "heartbeat", distrib.DefaultHeartbeat, "how often the worker's statistics are refreshed")
	fs.DurationVar(&o.wait, "nats-wait", 0, "how long to wait for the NATS server to answer before giving up (0: for ever; the worker says every 30s that it still waits)")
	if err := parseFlags(fs, args, false); err != nil {
		return err
	}
	return runWorker(ctx, o, stdout, stderr)
}

func runWorker(ctx context.Context, o workerOptions, stdout, stderr io.Writer) error {
	if err := o.nats.resolve(); err != nil {
		return err
	}
	be, err := sandbox.ParseBackend(o.backend)
	if err != nil {
		return usagef("--backend: %v", err)
	}
	// The backend as this machine resolves it (auto: native when a Go
	// toolchain works), which decides the queue served.
	max, err := workerCacheMax()
	if err != nil {
		return err
	}
	sb, err := sandbox.New(sandbox.Config{Backend: be, CacheMaxBytes: max, Notice: stderr})
	if err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	logf := func(format string, args ...any) { fmt.Fprintf(stderr, format+"\n", args...) }
	nc, err := waitForServer(ctx, func() (*nats.Conn, error) { return o.nats.connect("policyevolve worker") },
		distrib.Redact(o.nats.url), o.wait, realClock{}, stderr)
	if err != nil {
		return err
	}
	defer nc.Close()
	w, err := distrib.NewWorker(nc, distrib.WorkerConfig{Name: o.name, Backend: sb.Backend(), Concurrency: o.concurrency,
		Sandbox: sandbox.Config{CacheMaxBytes: max, Notice: stderr}, MaxPrograms: o.maxPrograms, Heartbeat: o.heartbeat, Log: logf})
	if err != nil {
		return err
	}
	release := onInterrupt(func() {
		fmt.Fprintf(stderr, "worker %s: finishing the jobs in hand (again to abandon them)\n", w.Name())
		w.Drain()
	})
	defer release()
	fmt.Fprintf(stderr, "worker %s: serving the %s queue of %s with %d slot(s)\n", w.Name(), sb.Backend(),
		distrib.Redact(o.nats.url), o.concurrency)
	err = w.Run(ctx)
	s := w.Stats()
	fmt.Fprintf(stdout, "worker %s: %d job(s) played (%d policy failure(s)), %d error(s)\n", w.Name(), s.Jobs, s.Failed, s.Errors)
	return err
}
