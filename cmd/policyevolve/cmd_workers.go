package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"policyevolve/distrib"
)

// workersOptions are the flags of "workers".
type workersOptions struct {
	nats natsOptions
	json bool
}

func cmdWorkers(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var o workersOptions
	fs := newFlagSet("workers", "--nats URL [flags]", `
List the evaluation workers connected to a NATS server (those heard from in
the last 30 seconds) with the jobs each has played, its failures and
episodes per second, and the depth of the work queues.`, stdout)
	o.nats.register(fs, "NATS server URL, e.g. nats://coordinator:4222")
	fs.BoolVar(&o.json, "json", false, "print JSON")
	if err := parseFlags(fs, args, false); err != nil {
		return err
	}
	return runWorkers(ctx, o, stdout)
}

func runWorkers(ctx context.Context, o workersOptions, stdout io.Writer) error {
	if err := o.nats.resolve(); err != nil {
		return err
	}
	nc, err := o.nats.connect("policyevolve workers")
	if err != nil {
		return err
	}
	defer nc.Close()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	ws, err := distrib.ListWorkers(ctx, nc)
	if err != nil {
		return fmt.Errorf("workers: %w", err)
	}
	qs, err := distrib.Queues(ctx, nc)
	if err != nil {
		return fmt.Errorf("queues: %w", err)
	}
	if o.json {
		return json.NewEncoder(stdout).Encode(struct {
			Workers []distrib.WorkerStats `json:"workers"`
			Queues  []distrib.Queue       `json:"queues"`
		}{ws, qs})
	}
	if len(qs) == 0 {
		fmt.Fprintln(stdout, "no work queue yet (no coordinator has run on this server)")
	}
	for _, q := range qs {
		fmt.Fprintf(stdout, "queue %s: %d waiting, %d running, %d redelivered\n", q.Backend, q.Waiting, q.Running, q.Redelivered)
	}
	if len(ws) == 0 {
		fmt.Fprintln(stdout, "no worker connected")
		return nil
	}
	fmt.Fprintln(stdout)
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tHOST\tBACKEND\tSLOTS\tBUSY\tJOBS\tFAILED\tERRORS\tEPISODES/S\tS/JOB\tUP\tSEEN")
	now := time.Now()
	for _, w := range ws {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\t%d\t%d\t%.2f\t%.3f\t%s\t%s ago\n", w.Name, w.Host, w.Backend, w.Concurrency,
			w.Busy, w.Jobs, w.Failed, w.Errors, w.Rate, w.JobSeconds, now.Sub(w.Started).Round(time.Second),
			now.Sub(w.Seen).Round(time.Second))
	}
	return tw.Flush()
}
