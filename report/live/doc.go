// Package live serves the store as a web site while jobs write to it:
// the list of runs, each run's report (the same page report writes, kept
// up to date in place), each policy (source, origin, evaluations seed by
// seed, matches, Elo, lineage, a replay), the pools, a diff of two
// sources and two policies replayed side by side. `policyevolve serve`
// runs it; docs/serve.md describes the pages.
//
// # Read-only, and light on the job
//
// The server only reads: it opens the store read-only and answers GET and
// HEAD, nothing else. It never keeps the file open (see package store:
// a reader holds bbolt's shared lock for one short transaction, and a
// job's next commit waits for it). To know when something changed it
// does not read the store at all: it looks at the file's size, time of
// modification and identity (os.Stat) once per Options.Poll, and only
// when they changed does a page read the store again, once for all the
// tabs that show it (pages are kept by URL and store version). So a tab
// left open on a running job costs the job one read transaction per page
// shown per change, at most one per Poll. Replays are played in the
// sandbox, one at a time, and kept.
//
// # Live updates
//
// Pages that change while a job runs load /static/live.js, which listens
// to /events (server-sent events: the store's version each time it
// changes), fetches its own URL again and swaps the parts of the page
// that differ, so a replay that did not change keeps playing and the
// scroll position stays. Without JavaScript the pages are the same, and
// a reload updates them.
//
// # Security
//
// Policy sources are untrusted text written by a model: every page is
// rendered by html/template (package report), which escapes them. Every
// answer carries a Content-Security-Policy that allows nothing from
// another origin (scripts and styles from this server only, no inline
// script, images from this server and data: URIs). The server binds to
// loopback unless told otherwise (Options.Public, with a Token), and on
// loopback it answers only requests whose Host names a loopback address,
// so a web page elsewhere cannot reach it by rebinding a DNS name. With a
// Token, a request must carry it (the ?token= of the first visit becomes
// a cookie, or an Authorization: Bearer header).
package live
