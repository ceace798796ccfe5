package live

import (
	"bufio"
	"context"
	"image/gif"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"policyevolve/evolve/episode"
	"policyevolve/internal/htmlcheck"
	"policyevolve/internal/storetest"
	"policyevolve/store"
)

// evilSource is a policy source written to break out of the page that
// shows it.
const evilSource = "package policy\n\n// </script><script>window.pwned=1</script>\nvar s = \"</code></pre><img src=x onerror=alert(1)>\"\n"

func putPolicy(t *testing.T, s *store.Store, src string) string {
	t.Helper()
	p := &store.Policy{Source: src, Origin: store.Origin{Operator: "import"}}
	if err := s.Update(func(tx *store.Tx) error { _, err := tx.PutPolicy(p); return err }); err != nil {
		t.Fatal(err)
	}
	return p.ID
}

// testServer is a live view of a fresh store (writable through s).
type testServer struct {
	s   *store.Store
	srv *Server
	url string
}

func newTestServer(t *testing.T, o Options) *testServer {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.db")
	s := storetest.Open(t, path)
	ro, err := store.Open(path, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	srv := New(ro, o)
	ctx, cancel := context.WithCancel(context.Background())
	go srv.Watch(ctx)
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(func() {
		srv.Close() // ends the event streams, which hs.Close waits for
		cancel()
		hs.Close()
	})
	return &testServer{s: s, srv: srv, url: hs.URL}
}

func get(t *testing.T, req *http.Request) (*http.Response, string) {
	t.Helper()
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res, string(body)
}

func request(t *testing.T, method, url string) *http.Request {
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

// TestReadOnlyAndHeaders: only GET and HEAD; every answer carries the
// security headers, a CSP that names no other origin among them.
func TestReadOnlyAndHeaders(t *testing.T) {
	ts := newTestServer(t, Options{})
	for _, c := range []struct {
		method, path string
		want         int
	}{
		{"GET", "/", 200}, {"HEAD", "/", 200}, {"GET", "/pools/", 200}, {"GET", "/static/live.js", 200}, {"GET", "/static/report.css", 200},
		{"POST", "/", 405}, {"PUT", "/runs/run-1", 405}, {"DELETE", "/policies/ab", 405}, {"PATCH", "/", 405},
		{"GET", "/runs/run-9", 404}, {"GET", "/policies/ffff", 404}, {"GET", "/nothing", 404},
		{"GET", "/diff?a=1", 400}, {"GET", "/replay/ab?seed=x", 400},
	} {
		res, _ := get(t, request(t, c.method, ts.url+c.path))
		if res.StatusCode != c.want {
			t.Errorf("%s %s: %d, want %d", c.method, c.path, res.StatusCode, c.want)
		}
		csp := res.Header.Get("Content-Security-Policy")
		if !strings.Contains(csp, "default-src 'none'") || strings.Contains(csp, "http") || strings.Contains(csp, "unsafe") ||
			res.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s %s: headers %v", c.method, c.path, res.Header)
		}
	}
}

// TestHostMustBeLoopback: a request naming another host (DNS
// rebinding) is refused unless AnyHost.
func TestHostMustBeLoopback(t *testing.T) {
	for _, any := range []bool{false, true} {
		ts := newTestServer(t, Options{AnyHost: any})
		for host, loopback := range map[string]bool{"localhost:8080": true, "127.0.0.1:1": true, "[::1]:80": true, "LOCALHOST": true,
			"evil.example:8080": false, "10.0.0.1": false, "127.0.0.1.evil.example": false} {
			req := request(t, "GET", ts.url+"/")
			req.Host = host
			res, _ := get(t, req)
			if want := loopback || any; (res.StatusCode == 200) != want {
				t.Errorf("AnyHost %v, Host %s: %d", any, host, res.StatusCode)
			}
		}
	}
}

// TestToken: with a token, nothing without it; ?token= becomes a cookie
// and leaves the address; a Bearer header works too.
func TestToken(t *testing.T) {
	const token = "0123456789abcdef0123"
	ts := newTestServer(t, Options{Token: token})
	if res, _ := get(t, request(t, "GET", ts.url+"/pools/")); res.StatusCode != 401 {
		t.Errorf("no token: %d", res.StatusCode)
	}
	if res, _ := get(t, request(t, "GET", ts.url+"/pools/?token=wrong")); res.StatusCode != 401 {
		t.Errorf("wrong token: %d", res.StatusCode)
	}
	res, _ := get(t, request(t, "GET", ts.url+"/pools/?sort=elo&token="+token))
	if res.StatusCode != 303 || res.Header.Get("Location") != "/pools/?sort=elo" || len(res.Cookies()) != 1 {
		t.Fatalf("token in the URL: %d, Location %q, cookies %v", res.StatusCode, res.Header.Get("Location"), res.Cookies())
	}
	c := res.Cookies()[0]
	if !c.HttpOnly || c.SameSite != http.SameSiteStrictMode {
		t.Errorf("cookie %+v", c)
	}
	req := request(t, "GET", ts.url+"/pools/")
	req.AddCookie(c)
	if res, _ := get(t, req); res.StatusCode != 200 {
		t.Errorf("with the cookie: %d", res.StatusCode)
	}
	req = request(t, "GET", ts.url+"/pools/")
	req.Header.Set("Authorization", "Bearer "+token)
	if res, _ := get(t, req); res.StatusCode != 200 {
		t.Errorf("with a Bearer header: %d", res.StatusCode)
	}
}

func TestCheckAddr(t *testing.T) {
	const token = "0123456789abcdef"
	for _, c := range []struct {
		addr     string
		public   bool
		token    string
		loopback bool
		ok       bool
	}{
		{"127.0.0.1:8080", false, "", true, true},
		{"localhost:0", false, "", true, true},
		{"[::1]:8080", false, "", true, true},
		{"127.3.2.1:80", false, "", true, true},
		{"0.0.0.0:8080", false, "", false, false},
		{":8080", false, token, false, false},
		{"192.168.1.5:8080", false, token, false, false},
		{"0.0.0.0:8080", true, "", false, false},
		{"0.0.0.0:8080", true, "short", false, false},
		{"0.0.0.0:8080", true, token, false, true},
		{"example.org:80", true, token, false, true},
		{"8080", false, "", false, false},
	} {
		loopback, err := CheckAddr(c.addr, c.public, c.token)
		if (err == nil) != c.ok || err == nil && loopback != c.loopback {
			t.Errorf("CheckAddr(%q, public %v, token %q): loopback %v, %v", c.addr, c.public, c.token, loopback, err)
		}
	}
}

// TestEventsFollowTheStore: an event stream says the store's new version
// when a writer commits, and nothing while it does not.
func TestEventsFollowTheStore(t *testing.T) {
	ts := newTestServer(t, Options{Poll: 20 * time.Millisecond})
	// The store was just written: settle the watcher, so that its one
	// more look at a fresh file (see TestWatcher) does not come during
	// the quiet time below.
	ts.srv.watch.mu.Lock()
	ts.srv.watch.settled = true
	ts.srv.watch.mu.Unlock()
	v, _ := ts.srv.watch.current()
	res, err := http.Get(ts.url + "/events?since=" + itoa(v))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("content type %q", res.Header.Get("Content-Type"))
	}
	events := make(chan string, 10)
	go func() {
		sc := bufio.NewScanner(res.Body)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				events <- d
			}
		}
		close(events)
	}()
	select {
	case e := <-events:
		t.Fatalf("an event (%s) before any change", e)
	case <-time.After(300 * time.Millisecond):
	}
	putPolicy(t, ts.s, "package policy // a change\n")
	select {
	case e := <-events:
		if e == itoa(v) {
			t.Errorf("the event after a change names the old version %s", e)
		}
	case <-time.After(time.Minute):
		t.Fatal("no event within a minute of a commit")
	}
}

func itoa(v uint64) string { return strconv.FormatUint(v, 10) }

// TestOneReadPerVersion: a page asked for again at the same version of
// the store is not read again (ten tabs cost one read); after a commit it
// is.
func TestOneReadPerVersion(t *testing.T) {
	ts := newTestServer(t, Options{Poll: time.Hour}) // versions move only when the test says
	ts.srv.watch.check()
	busy := ts.srv.store.Busy()
	for i := 0; i < 10; i++ {
		if res, _ := get(t, request(t, "GET", ts.url+"/pools/")); res.StatusCode != 200 {
			t.Fatal(res.Status)
		}
		if i == 0 && ts.srv.store.Busy() == busy {
			t.Fatal("the first request did not read the store")
		}
		if i == 0 {
			busy = ts.srv.store.Busy()
		}
	}
	if ts.srv.store.Busy() != busy {
		t.Error("the same page at the same version was read from the store again")
	}
	putPolicy(t, ts.s, "package policy // another\n")
	ts.srv.watch.check()
	get(t, request(t, "GET", ts.url+"/pools/"))
	if ts.srv.store.Busy() == busy {
		t.Error("after a commit, the page was not read again")
	}
}

// TestUntrustedSourceServed: the page of a policy whose source holds
// </script><script> shows it as text: the page holds the site's script
// only, and the source reads back whole.
func TestUntrustedSourceServed(t *testing.T) {
	ts := newTestServer(t, Options{})
	id := putPolicy(t, ts.s, evilSource)
	for _, path := range []string{"/policies/" + id, "/diff?a=" + id + "&b=" + id[:8]} {
		res, body := get(t, request(t, "GET", ts.url+path))
		if res.StatusCode != 200 {
			t.Fatalf("%s: %s", path, res.Status)
		}
		p, err := htmlcheck.CheckServed([]byte(body))
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if strings.Contains(body, "</script><script>") || p.Elements["img"] > 0 || p.Elements["script"] > 1 {
			t.Errorf("%s: the source is in the page as markup (%d script, %d img)", path, p.Elements["script"], p.Elements["img"])
		}
		if path[1] == 'p' && p.IDs["source-code"] != evilSource {
			t.Errorf("%s: the source reads back as %q", path, p.IDs["source-code"])
		}
	}
}

// TestReplay: a built-in policy's replay is a GIF of the frames asked
// for; an unknown policy is 404, an environment that cannot be played 422.
func TestReplay(t *testing.T) {
	ts := newTestServer(t, Options{})
	var bfs string
	err := ts.s.Update(func(tx *store.Tx) error {
		p := &store.Policy{Source: episode.BuiltinSource("bfs"), Builtin: "bfs", Name: "bfs", Origin: store.Origin{Operator: "builtin"}}
		_, err := tx.PutPolicy(p)
		bfs = p.ID
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	res, body := get(t, request(t, "GET", ts.url+"/replay/"+bfs+"?seed=3&env=gathering/small/4/30"))
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "image/gif" {
		t.Fatalf("replay: %s %q", res.Status, body)
	}
	g, err := gif.DecodeAll(strings.NewReader(body))
	if err != nil || len(g.Image) != 31 {
		t.Fatalf("replay GIF: %v, %d frames, want 31", err, len(g.Image))
	}
	for path, want := range map[string]int{
		"/replay/ffff?seed=0&env=gathering/small/4/30":        404,
		"/replay/" + bfs + "?seed=0&env=gathering/nomap/4/30": 422,
		"/replay/" + bfs + "?seed=0&env=gathering":            400,
		"/replay/" + bfs + "?seed=0&run=run-7":                422,
		"/versus?a=" + bfs + "&b=" + bfs:                      422,
		"/versus?a=" + bfs + "&b=" + bfs + "&env=cleanup/x/1": 400,
	} {
		if res, body := get(t, request(t, "GET", ts.url+path)); res.StatusCode != want {
			t.Errorf("%s: %s, want %d\n%.300s", path, res.Status, want, body)
		}
	}
}
