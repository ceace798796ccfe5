package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"time"

	"policyevolve/report/live"
)

// serveOptions are the flags of "serve".
type serveOptions struct {
	addr   string
	public bool
	token  string
	poll   time.Duration
	storeOptions
	sandboxOptions
}

func cmdServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var o serveOptions
	fs := newFlagSet("serve", "[--addr 127.0.0.1:8080] [--store FILE] [flags]", `
Serve the store as a web site, read-only, while jobs write to it: every
run (mode, game, objective, status, progress, spending, champion); each
run's report, which updates itself as the job goes on (charts grow,
candidates appear, the champion changes) without reloading; each policy
(source, origin, self-play per seed, matches, Elo history, lineage, a
replay); the pools, sortable; a diff of two sources; two policies
replayed side by side on the same seed. docs/serve.md describes the pages.

It only reads: short read-only transactions, only after the store file
changed (looked at once per --poll), once for every tab showing a page;
a job runs as fast with a tab open on it (docs/serve.md has the
measurement).

It listens on loopback unless --public says otherwise, and then every
request must carry --token. Ctrl-C stops it. Replaying a source policy
needs the sandbox (--backend).`, stdout)
	fs.StringVar(&o.addr, "addr", "127.0.0.1:8080", "address to listen on, HOST:PORT (port 0: any free port)")
	fs.BoolVar(&o.public, "public", false, "allow an address other than loopback (anyone who can reach it reads the store): needs --token")
	fs.StringVar(&o.token, "token", os.Getenv("POLICYEVOLVE_SERVE_TOKEN"), fmt.Sprintf("a secret every request must carry, %d characters or more (default: $POLICYEVOLVE_SERVE_TOKEN)", live.MinTokenLength))
	fs.DurationVar(&o.poll, "poll", time.Second, "how often to look at the store file for a change")
	o.storeOptions.register(fs)
	o.sandboxOptions.register(fs)
	if err := parseFlags(fs, args, false); err != nil {
		return err
	}
	return runServe(ctx, o, stdout, stderr)
}

func runServe(ctx context.Context, o serveOptions, stdout, stderr io.Writer) error {
	loopback, err := live.CheckAddr(o.addr, o.public, o.token)
	if err != nil {
		return usagef("--addr: %v", err)
	}
	if o.token != "" {
		if err := live.CheckToken(o.token); err != nil {
			return usagef("--token: %v", err)
		}
	}
	sb, err := o.sandboxOptions.open(stderr)
	if err != nil {
		return err
	}
	s, err := o.storeOptions.open(readStore)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	srv := live.New(s, live.Options{Poll: o.poll, Sandbox: sb, Token: o.token, AnyHost: !loopback,
		Log: func(format string, args ...any) { fmt.Fprintf(stderr, "policyevolve serve: "+format+"\n", args...) }})
	u := url.URL{Scheme: "http", Host: ln.Addr().String(), Path: "/"}
	if o.token != "" {
		u.RawQuery = url.Values{"token": {o.token}}.Encode()
	}
	fmt.Fprintf(stdout, "serving %s read-only on %s (Ctrl-C stops)\n", s.Path(), u.String())
	return srv.Serve(ctx, ln)
}
