package main

import (
	"context"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"policyevolve/internal/storetest"
)

// TestServeRefuses: a non-loopback address without --public, --public
// without a (long enough) token, and a missing store are refused before
// anything listens.
func TestServeRefuses(t *testing.T) {
	db := filepath.Join(t.TempDir(), "s.db")
	storetest.Open(t, db)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--addr", "0.0.0.0:0"}, exitUsage, "not a loopback address"},
		{[]string{"--addr", ":0", "--public"}, exitUsage, "needs a token"},
		{[]string{"--addr", ":0", "--public", "--token", "short"}, exitUsage, "16 characters"},
		{[]string{"--addr", "127.0.0.1:0", "--token", "short"}, exitUsage, "16 characters"},
		{[]string{"--addr", "127.0.0.1"}, exitUsage, "HOST:PORT"},
		{[]string{"--addr", "127.0.0.1:0", "--poll", "1ms"}, exitUsage, "--poll"},
		{[]string{"--addr", "127.0.0.1:0", "--store", filepath.Join(t.TempDir(), "none.db")}, exitFailure, "no store"},
	} {
		args := append([]string{"serve", "--store", db}, c.args...)
		code, _, errOut := runCLI(t, context.Background(), args...)
		if code != c.code || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, %q; want exit %d and %q", c.args, code, errOut, c.code, c.want)
		}
	}
}

// TestServeStartsAndStops: serve prints its address, answers there, and
// returns when its context is cancelled (Ctrl-C).
func TestServeStartsAndStops(t *testing.T) {
	db := filepath.Join(t.TempDir(), "s.db")
	storetest.Open(t, db)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errOut syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- dispatch(ctx, []string{"serve", "--store", db, "--addr", "127.0.0.1:0"}, &out, &errOut)
	}()
	addr := regexp.MustCompile(`on (http://127\.0\.0\.1:\d+/)`)
	var url string
	for deadline := time.Now().Add(time.Minute); url == "" && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if m := addr.FindStringSubmatch(out.String()); m != nil {
			url = m[1]
		}
	}
	if url == "" {
		cancel()
		t.Fatalf("serve printed no address: %q %q", out.String(), errOut.String())
	}
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(string(body), "no runs yet") {
		t.Errorf("GET /: %s\n%.500s", res.Status, body)
	}
	cancel()
	select {
	case code := <-done:
		if code != exitOK {
			t.Errorf("exit %d after Ctrl-C: %s", code, errOut.String())
		}
	case <-time.After(time.Minute):
		t.Fatal("serve did not stop within a minute of its context's end")
	}
}
