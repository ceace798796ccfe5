//go:build unix

package llm

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestExecAnswerBounded: a command that writes without end is killed, with
// what it started, once its answer runs over the bound; the error says so.
// The call's timeout is an hour, so only the bound can end it.
func TestExecAnswerBounded(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	c, err := New(Config{Spec: "exec:cat /dev/zero & echo $! > " + pidFile + "; wait", Timeout: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	c.b.(*execBackend).limit = 1 << 20
	_, err = c.Generate(context.Background(), req)
	if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), "the answer ran over 1 MiB; the command was killed") {
		t.Errorf("error %v, want the answer's bound", err)
	}
	if pid := childPID(t, pidFile); !gone(t, pid) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("the command's child %d outlived the call", pid)
	}
}

// TestHTTPAnswerBounded: a server whose reply never ends (a local
// OpenAI-compatible server gone wrong) is cut off at MaxHTTPAnswer bytes
// with a clear error, well before the attempt's hour-long timeout.
func TestHTTPAnswerBounded(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"choices": [{"message": {"content": "`))
		chunk := []byte(strings.Repeat("a", 64<<10))
		for r.Context().Err() == nil {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	clearProviderEnv(t)
	c, err := New(Config{Spec: "openai:local", BaseURL: srv.URL, Getenv: env(nil), Timeout: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Generate(context.Background(), req)
	if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), "the answer ran over 64 MiB; the server's reply was cut short") {
		t.Errorf("error %v, want the answer's bound", err)
	}
}
