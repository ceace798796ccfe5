package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"policyevolve/distrib"
	"policyevolve/evolve/episode"
	"policyevolve/sandbox"
)

// TestEmbeddedNATSNeedsAToken: "--nats embedded" with no credentials
// generates a token beside the store (mode 0600) and says how workers get
// it; a client without it is refused with a word on where it is, a client
// given the file gets in, and a second start (a resume) reuses the token.
func TestEmbeddedNATSNeedsAToken(t *testing.T) {
	t.Setenv(envNATS, "")
	t.Setenv(envNATSToken, "")
	storePath := filepath.Join(t.TempDir(), "my store.db")
	tokenPath := distrib.TokenPath(storePath)
	var token string
	for round, want := range []string{"generated a token in", "reusing the token in"} {
		port := freePort(t)
		o := coordinatorOptions{natsOptions: natsOptions{url: fmt.Sprintf("embedded:%d", port)}}
		if err := o.check(); err != nil {
			t.Fatal(err)
		}
		var stderr bytes.Buffer
		_, stop, err := o.start(context.Background(), storePath, sandbox.Native, &episode.Local{}, &stderr, nil)
		if err != nil {
			t.Fatal(err)
		}
		out := stderr.String()
		if !strings.Contains(out, want+" "+tokenPath) || !strings.Contains(out, "--nats-token-file '"+tokenPath+"'") {
			t.Errorf("round %d: the coordinator's word on the token:\n%s", round, out)
		}
		st, err := os.Stat(tokenPath)
		if err != nil || st.Mode().Perm() != 0o600 {
			t.Fatalf("the token file: %v, %v", st, err)
		}
		got, err := distrib.ReadTokenFile(tokenPath)
		if err != nil {
			t.Fatal(err)
		}
		if round == 1 && got != token {
			t.Errorf("a second start made a new token: workers given the first would be locked out")
		}
		token = got
		if strings.Contains(out, token) {
			t.Errorf("the token is printed:\n%s", out)
		}
		u := fmt.Sprintf("nats://127.0.0.1:%d", port)
		code, _, errOut := runCLI(t, context.Background(), "workers", "--nats", u)
		if code == 0 || !strings.Contains(errOut, "STORE.nats-token") || !strings.Contains(errOut, "--nats-token-file") {
			t.Errorf("round %d: a client without credentials: exit %d\n%s", round, code, errOut)
		}
		code, _, errOut = runCLI(t, context.Background(), "workers", "--nats", u, "--nats-token", "not-the-token")
		if code == 0 || !strings.Contains(errOut, "refused these credentials") {
			t.Errorf("round %d: a client with a wrong token: exit %d\n%s", round, code, errOut)
		}
		code, out, errOut = runCLI(t, context.Background(), "workers", "--nats", u, "--nats-token-file", tokenPath)
		if code != 0 || !strings.Contains(out, "no worker connected") {
			t.Errorf("round %d: a client with the token file: exit %d\n%s%s", round, code, out, errOut)
		}
		stop()
	}
	if len(token) != 32 || strings.Trim(token, "abcdefghijklmnopqrstuvwxyz234567") != "" {
		t.Errorf("token %q: want 32 characters of lowercase base32", token)
	}
	// A token file others can read is refused, with the fix.
	os.Chmod(tokenPath, 0o644)
	code, _, errOut := runCLI(t, context.Background(), "workers", "--nats", "nats://127.0.0.1:1", "--nats-token-file", tokenPath)
	if code != exitUsage || !strings.Contains(errOut, "chmod 600") {
		t.Errorf("a token file others may read: exit %d\n%s", code, errOut)
	}
}
