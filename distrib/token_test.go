package distrib

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadOrCreateToken(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.db.nats-token")
	tok, created, err := LoadOrCreateToken(path)
	if err != nil || !created {
		t.Fatalf("first: %q %v %v", tok, created, err)
	}
	if len(tok) != tokenLen || strings.Trim(tok, tokenAlphabet) != "" {
		t.Fatalf("token %q: want %d characters of %s", tok, tokenLen, tokenAlphabet)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", st.Mode())
	}
	again, created, err := LoadOrCreateToken(path)
	if err != nil || created || again != tok {
		t.Fatalf("second: %q %v %v, want %q reused", again, created, err, tok)
	}
	other, _ := NewToken()
	if other == tok {
		t.Fatal("two tokens alike")
	}
	dir := t.TempDir()
	write := func(name, data string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), mode); err != nil {
			t.Fatal(err)
		}
		os.Chmod(p, mode)
		return p
	}
	for _, c := range []struct {
		name, path, want string
	}{
		{"missing", filepath.Join(dir, "none"), "no such file"},
		{"readable by others", write("open", "abc\n", 0o644), "chmod 600"},
		{"empty", write("empty", "\n\n", 0o600), "empty"},
		{"a space", write("space", "a b\n", 0o600), "control character or space"},
		{"huge", write("huge", strings.Repeat("a", 5000), 0o600), "larger than"},
		{"a directory", dir, "not a regular file"},
	} {
		_, err := ReadTokenFile(c.path)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	if _, err := ReadTokenFile(filepath.Join(dir, "none")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}
	if got, err := ReadTokenFile(write("ok", "  tok-1  \nignored\n", 0o600)); err != nil || got != "tok-1" {
		t.Errorf("a token file: %q %v", got, err)
	}
}

// TestEmbeddedRefusesAnOpenNetworkListener: an embedded server on an
// interface beyond loopback must check its clients.
func TestEmbeddedRefusesAnOpenNetworkListener(t *testing.T) {
	_, err := StartEmbedded(EmbeddedConfig{Host: "0.0.0.0", Port: -1, StoreDir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "without credentials") {
		t.Fatalf("0.0.0.0 without credentials: %v", err)
	}
	e, err := StartEmbedded(EmbeddedConfig{Host: "0.0.0.0", Port: -1, StoreDir: t.TempDir(), Auth: Auth{Token: "t0k"}})
	if err != nil {
		t.Fatalf("0.0.0.0 with a token: %v", err)
	}
	defer e.Close()
	if _, err := Connect(e.URL(), "anonymous", Auth{}); err == nil {
		t.Fatal("a client without the token got in")
	}
	nc, err := Connect(e.URL(), "holder", Auth{Token: "t0k"})
	if err != nil {
		t.Fatal(err)
	}
	nc.Close()
}
