package live

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"policyevolve/internal/storetest"
	"policyevolve/store"
)

// TestCheckToken: a token is usable through the printed URL and the
// cookie of the first visit, or refused with the reason.
func TestCheckToken(t *testing.T) {
	for _, c := range []struct{ token, want string }{
		{"0123456789abcdef", ""},
		{"abcXYZ019-._~abcXYZ019-._~", ""},
		{"short", "must be 16 characters or more"},
		{"0123456789abcdef;x", `';' cannot travel`},
		{"0123456789abcdef,x", `',' cannot travel`},
		{`0123456789abcdef"x`, `'"' cannot travel`},
		{`0123456789abcdef\x`, `'\\' cannot travel`},
		{"0123456789abcdef x", `' ' cannot travel`},
		{"0123456789abcdefé", `'é' cannot travel`},
	} {
		err := CheckToken(c.token)
		if c.want == "" {
			if err != nil {
				t.Errorf("%q: %v", c.token, err)
				continue
			}
			// The first visit's ?token= becomes a cookie that lets in.
			ts := newTestServer(t, Options{Token: c.token})
			res, _ := get(t, request(t, "GET", ts.url+"/pools/?token="+c.token))
			if res.StatusCode != 303 || len(res.Cookies()) != 1 {
				t.Fatalf("%q in the URL: %d, cookies %v", c.token, res.StatusCode, res.Cookies())
			}
			req := request(t, "GET", ts.url+"/pools/")
			req.AddCookie(res.Cookies()[0])
			if res, _ := get(t, req); res.StatusCode != 200 {
				t.Errorf("%q: with the cookie: %d", c.token, res.StatusCode)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.token, err, c.want)
		}
	}
}

// TestOptionsStarRefused: "OPTIONS *", which net/http answers 200 by
// itself, is refused like every method but GET and HEAD.
func TestOptionsStarRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.db")
	storetest.Open(t, path)
	ro, err := store.Open(path, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- New(ro, Options{Poll: time.Hour}).Serve(ctx, ln) }()
	defer func() { cancel(); <-done }()
	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.Write([]byte("OPTIONS * HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"))
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusMethodNotAllowed || res.Header.Get("Allow") != "GET, HEAD" {
		t.Errorf("OPTIONS *: %s, Allow %q", res.Status, res.Header.Get("Allow"))
	}
}
