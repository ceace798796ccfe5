package live

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"policyevolve/report"
	"policyevolve/sandbox"
	"policyevolve/store"
)

//go:embed static/live.js
var liveJS []byte

// Options configure a Server. The zero value works: loopback clients
// only, no token, a look at the store every second, built-in policies
// replayed but not sources.
type Options struct {
	// Poll is how often the server looks at the store file for a change
	// (one os.Stat; default 1 s). Pages follow a running job this often
	// at most.
	Poll time.Duration
	// Sandbox plays the replays of policies with a source (nil: only
	// built-in policies are replayed; the others' replays fail with a
	// message).
	Sandbox *sandbox.Sandbox
	// Token, when set, must come with every request: as ?token= (the
	// first visit; it becomes a cookie), the cookie, or an Authorization:
	// Bearer header.
	Token string
	// AnyHost answers requests whatever their Host header names. Off, the
	// server answers only Hosts that name a loopback address (localhost,
	// 127.0.0.0/8, ::1): the defence against DNS rebinding for a server
	// bound to loopback. Serve turns it on for a public address.
	AnyHost bool
	// Log receives a line per failure worth telling the operator (nil:
	// discarded).
	Log func(format string, args ...any)
}

// Limits of a server.
const (
	// maxStreams bounds the open /events streams (one per tab).
	maxStreams = 64
	// pageCacheSize and replayCacheSize bound what is kept.
	pageCacheSize   = 64
	replayCacheSize = 32
	// heartbeat keeps an idle event stream open through proxies and lets
	// the server notice a tab that is gone.
	heartbeat = 20 * time.Second
)

// Server is the live view of one store.
type Server struct {
	store   *store.Store
	opt     Options
	watch   *watcher
	pages   *cache
	replays *cache
	play    chan struct{} // one replay played at a time
	streams atomic.Int64
	// ctx is the server's life: replays run under it, Close ends it.
	ctx   context.Context
	close context.CancelFunc
	mux   *http.ServeMux
}

// New returns a server of s, which should be opened read-only. Call Serve
// (or run Watch and use Handler) to start it.
func New(s *store.Store, o Options) *Server {
	if o.Poll <= 0 {
		o.Poll = time.Second
	}
	if o.Log == nil {
		o.Log = func(string, ...any) {}
	}
	srv := &Server{store: s, opt: o, watch: newWatcher(s.Path(), o.Poll), pages: newCache(pageCacheSize),
		replays: newCache(replayCacheSize), play: make(chan struct{}, 1), mux: http.NewServeMux()}
	srv.ctx, srv.close = context.WithCancel(context.Background())
	srv.routes()
	return srv
}

// Watch looks at the store for changes until ctx is done or the server
// is closed. Serve runs it; a caller of Handler runs it itself.
func (s *Server) Watch(ctx context.Context) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-s.ctx.Done():
			cancel()
		case <-ctx.Done():
		}
	}()
	s.watch.run(ctx)
}

// Close stops what the server runs in the background: Watch, and the
// replay being played. Serve closes the server when it returns.
func (s *Server) Close() { s.close() }

// Serve answers requests on ln until ctx is done, then closes every
// connection (event streams included) and returns nil; it returns
// another error only when serving fails.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	defer s.Close()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go s.Watch(ctx)
	hs := &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		BaseContext:       func(net.Listener) context.Context { return ctx },
		// "OPTIONS *" reaches the guard (405) instead of net/http's own
		// 200: the server answers GET and HEAD only.
		DisableGeneralOptionsHandler: true,
	}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	// The requests' contexts derive from ctx: event streams end now.
	shut, stop := context.WithTimeout(context.Background(), 5*time.Second)
	defer stop()
	if err := hs.Shutdown(shut); err != nil {
		hs.Close()
	}
	<-done
	return nil
}

// Handler is the server's handler, the security checks included.
func (s *Server) Handler() http.Handler { return s.guard(s.mux) }

func (s *Server) routes() {
	s.mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		s.servePage(w, r, true, func() (report.View, error) { return report.LoadRuns(s.store) })
	})
	s.mux.HandleFunc("GET /runs/{id}", func(w http.ResponseWriter, r *http.Request) {
		s.servePage(w, r, true, func() (report.View, error) { return report.Load(s.store, r.PathValue("id")) })
	})
	s.mux.HandleFunc("GET /policies/{id}", func(w http.ResponseWriter, r *http.Request) {
		seed, err := optionalSeed(r)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		s.servePage(w, r, true, func() (report.View, error) { return report.LoadPolicy(s.store, r.PathValue("id"), seed) })
	})
	s.mux.HandleFunc("GET /pools/{$}", func(w http.ResponseWriter, r *http.Request) {
		s.servePage(w, r, true, func() (report.View, error) { return report.LoadPools(s.store) })
	})
	s.mux.HandleFunc("GET /pools/{name...}", func(w http.ResponseWriter, r *http.Request) {
		s.servePage(w, r, true, func() (report.View, error) {
			return report.LoadPool(s.store, r.PathValue("name"), r.URL.Query().Get("sort"))
		})
	})
	s.mux.HandleFunc("GET /diff", func(w http.ResponseWriter, r *http.Request) {
		a, b, err := pair(r)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		s.servePage(w, r, false, func() (report.View, error) { return report.LoadDiff(s.store, a, b) })
	})
	s.mux.HandleFunc("GET /versus", func(w http.ResponseWriter, r *http.Request) {
		a, b, err := pair(r)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		seed, err := optionalSeed(r)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		s.servePage(w, r, false, func() (report.View, error) {
			return report.LoadVersus(s.store, a, b, r.URL.Query().Get("env"), seed)
		})
	})
	s.mux.HandleFunc("GET /replay/{id}", s.serveReplay)
	s.mux.HandleFunc("GET /events", s.serveEvents)
	css := []byte(report.Stylesheet())
	s.mux.HandleFunc("GET /static/report.css", staticFile("text/css; charset=utf-8", css))
	s.mux.HandleFunc("GET /static/live.js", staticFile("text/javascript; charset=utf-8", liveJS))
}

// badRequest is a request the server cannot answer as asked (400).
type badRequest struct{ msg string }

func (e *badRequest) Error() string { return e.msg }

func pair(r *http.Request) (a, b string, err error) {
	q := r.URL.Query()
	a, b = strings.TrimSpace(q.Get("a")), strings.TrimSpace(q.Get("b"))
	if a == "" || b == "" {
		return "", "", &badRequest{"name two policies: ?a=ID&b=ID (unique prefixes of their ids)"}
	}
	return a, b, nil
}

func optionalSeed(r *http.Request) (*uint64, error) {
	v := r.URL.Query().Get("seed")
	if v == "" {
		return nil, nil
	}
	seed, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return nil, &badRequest{fmt.Sprintf("seed %q: want a seed, 0 or more", v)}
	}
	return &seed, nil
}

// frame places a page in the site; live pages load the script that keeps
// them up to date.
func (s *Server) frame(version string, live bool) report.Frame {
	f := report.Frame{
		Stylesheet: "/static/report.css",
		Nav:        []report.Link{{Text: "runs", URL: "/"}, {Text: "pools", URL: "/pools/"}},
		PolicyURL:  func(id string) string { return "/policies/" + url.PathEscape(id) },
		PoolURL:    func(name string) string { return (&url.URL{Path: "/pools/" + name}).EscapedPath() },
		RunURL:     func(id string) string { return "/runs/" + url.PathEscape(id) },
		ReplayURL:  replayURL,
		DiffPath:   "/diff",
		VersusPath: "/versus",
	}
	if live {
		f.Script, f.Version = "/static/live.js", version
	}
	return f
}

func replayURL(ref report.ReplayRef) string {
	q := url.Values{"seed": {strconv.FormatUint(ref.Seed, 10)}}
	if ref.Run != "" {
		q.Set("run", ref.Run)
	} else {
		q.Set("env", ref.Env.Key())
	}
	return "/replay/" + url.PathEscape(ref.Policy) + "?" + q.Encode()
}

// servePage answers with the page load reads, rendered once per version
// of the store and URL whoever asks.
func (s *Server) servePage(w http.ResponseWriter, r *http.Request, live bool, load func() (report.View, error)) {
	version := s.watch.versionString()
	body, err := s.pages.get(version+" "+r.URL.RequestURI(), func() (any, error) {
		v, err := load()
		if err != nil {
			return nil, err
		}
		var buf bytes.Buffer
		if err := report.WritePage(&buf, v, s.frame(version, live)); err != nil {
			return nil, err
		}
		return buf.Bytes(), nil
	})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	reply(w, http.StatusOK, htmlType, "no-store", body.([]byte))
}

const htmlType = "text/html; charset=utf-8"

// reply answers with body.
func reply(w http.ResponseWriter, code int, contentType, cacheControl string, body []byte) {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Cache-Control", cacheControl)
	w.WriteHeader(code)
	w.Write(body)
}

// fail answers with a page saying what went wrong, with the status that
// says it to a program.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	code, title := http.StatusInternalServerError, "Something went wrong"
	var br *badRequest
	switch {
	case errors.As(err, &br), errors.Is(err, store.ErrAmbiguous), errors.Is(err, report.ErrBadQuery):
		code, title = http.StatusBadRequest, "Not a question this server answers"
	case errors.Is(err, report.ErrNotFound), errors.Is(err, store.ErrNotFound):
		code, title = http.StatusNotFound, "Not in the store"
	case errors.Is(err, report.ErrNoReplay):
		code, title = http.StatusUnprocessableEntity, "No replay"
	case errors.Is(err, store.ErrBusy):
		code, title = http.StatusServiceUnavailable, "The store is busy"
		w.Header().Set("Retry-After", "5")
	case errors.Is(err, context.Canceled):
		code, title = http.StatusServiceUnavailable, "The server is stopping"
	case errors.Is(err, store.ErrDamaged):
		// Found before it was read (the store walks a changed file's
		// pages first): the server goes on, and says so on every page.
		title = "The store is damaged"
		s.opt.Log("%s %s: %v", r.Method, r.URL.Path, err)
	default:
		s.opt.Log("%s %s: %v", r.Method, r.URL.Path, err)
	}
	var buf bytes.Buffer
	if werr := report.WritePage(&buf, report.Problem{Title: title, Message: err.Error()}, s.frame("", false)); werr != nil {
		http.Error(w, err.Error(), code)
		return
	}
	reply(w, code, htmlType, "no-store", buf.Bytes())
}

func staticFile(contentType string, body []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) { reply(w, http.StatusOK, contentType, "no-cache", body) }
}
