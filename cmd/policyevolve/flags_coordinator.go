package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/nats-io/nats.go"

	"policyevolve/distrib"
	"policyevolve/evolve/episode"
	"policyevolve/sandbox"
)

// coordinatorOptions are evolve's flags for playing its episodes on
// evaluation workers over NATS JetStream.
type coordinatorOptions struct {
	natsOptions
	dir        string
	inFlight   int
	ackWait    time.Duration
	maxDeliver int
	// verifyFirst and verifyRate: which workers' results are replayed
	// here (0: none).
	verifyFirst int
	verifyRate  float64
}

func (o *coordinatorOptions) register(fs *flagSet) {
	o.natsOptions.register(fs, "play the episodes on workers (policyevolve worker) fed by this NATS server: a URL, or embedded[:[HOST:]PORT] to run one in this process (loopback, port 4222, unless given)")
	fs.StringVar(&o.dir, "nats-dir", "", "where the embedded server keeps its streams (default: the store's path + .nats)")
	fs.IntVar(&o.inFlight, "nats-inflight", distrib.DefaultInFlight, "episodes sent to the workers and not yet answered, at most")
	fs.DurationVar(&o.ackWait, "nats-ack-wait", distrib.DefaultAckWait, "silence after which a worker's job goes to another worker")
	fs.IntVar(&o.maxDeliver, "nats-max-deliver", distrib.DefaultMaxDeliver, "deliveries after which a job counts as failed")
	fs.IntVar(&o.verifyFirst, "nats-verify-first", distrib.DefaultVerifyFirst, "results of every worker replayed here before any is used (a worker's result is evidence, not truth)")
	fs.Float64Var(&o.verifyRate, "nats-verify-rate", distrib.DefaultVerifyRate, "share of the later results of every worker replayed here, chosen unpredictably (1: all)")
}

// check validates the flags, before anything starts.
func (o *coordinatorOptions) check() error {
	if err := o.resolve(); err != nil {
		return err
	}
	if o.url == "" {
		return nil
	}
	if _, _, _, err := distrib.ParseEmbedded(o.url); err != nil {
		return usagef("--nats: %v", err)
	}
	return nil
}

// hasCredentials reports whether the flags give the embedded server a
// way to check clients: a token, an NKey, or TLS verifying clients'
// certificates.
func (o *coordinatorOptions) hasCredentials() bool {
	a := o.auth
	return a.Token != "" || a.NKeyFile != "" || a.TLSCert != "" && a.TLSCA != ""
}

// shellArg quotes s for a POSIX shell when it holds anything but plain
// path characters.
func shellArg(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./,:+@%=") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// start connects to the NATS server (starting the embedded one first, if
// asked) and returns the executor that sends episodes to the workers, and
// what to call when the job is over; nil without --nats.
//
// The workers' results are verified by replaying some of them on replay
// (the coordinator's own executor, with its sandbox).
func (o *coordinatorOptions) start(ctx context.Context, storePath string, backend sandbox.Backend, replay episode.Executor, stderr io.Writer, logf func(string, ...any)) (*distrib.Remote, func(), error) {
	if o.url == "" {
		return nil, func() {}, nil
	}
	var closers []func()
	closeAll := func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
	}
	var nc *nats.Conn
	var err error
	url := o.url
	host, port, embedded, _ := distrib.ParseEmbedded(o.url)
	if embedded {
		dir := o.dir
		if dir == "" {
			dir = storePath + ".nats"
		}
		join, tokenNote := "--nats ", ""
		if !o.hasCredentials() {
			// Nobody gets in without credentials: one is made, and kept
			// beside the store for a resume and the workers given it.
			path := distrib.TokenPath(storePath)
			token, created, terr := distrib.LoadOrCreateToken(path)
			if terr != nil {
				return nil, nil, terr
			}
			o.auth.Token = token
			verb := "reusing the token in"
			if created {
				verb = "generated a token in"
			}
			tokenNote = fmt.Sprintf("  (%s %s, mode 0600, kept for --resume: copy it to workers on other machines,\n  or give it as %s=$(cat %s))\n",
				verb, path, envNATSToken, shellArg(path))
			join = "--nats-token-file " + shellArg(path) + " --nats "
		}
		srv, serr := distrib.StartEmbedded(distrib.EmbeddedConfig{Host: host, Port: port, StoreDir: dir, Auth: o.auth})
		if serr != nil {
			return nil, nil, serr
		}
		closers = append(closers, srv.Close)
		url = srv.URL()
		fmt.Fprintf(stderr, "policyevolve evolve: NATS server with JetStream on %s (streams in %s); workers join with:\n  %s worker %s%s\n%s",
			url, dir, self(), join, url, tokenNote)
		nc, err = srv.Connect("policyevolve evolve", o.auth)
	} else {
		nc, err = distrib.Connect(url, "policyevolve evolve", o.auth)
	}
	if err != nil {
		closeAll()
		return nil, nil, err
	}
	closers = append(closers, nc.Close)
	verify := distrib.VerifyConfig{Replay: replay, First: o.verifyFirst, Rate: o.verifyRate}
	if verify.First == 0 {
		verify.First = -1 // none
	}
	if verify.Rate == 0 {
		verify.Rate = -1
	}
	r, err := distrib.NewRemote(ctx, nc, distrib.RemoteConfig{Backend: backend, InFlight: o.inFlight, Log: logf,
		Queue: distrib.QueueConfig{AckWait: o.ackWait, MaxDeliver: o.maxDeliver}, Verify: verify})
	if err != nil {
		closeAll()
		return nil, nil, err
	}
	closers = append(closers, r.Close)
	if !embedded {
		fmt.Fprintf(stderr, "policyevolve evolve: playing episodes on the workers of %s\n", distrib.Redact(url))
	}
	return r, closeAll, nil
}
