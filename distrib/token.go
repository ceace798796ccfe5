package distrib

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
)

// TokenPath is where a coordinator keeps the token it generated for its
// embedded server: beside the store, so that a resumed run (and the
// workers already given the token) keeps it.
func TokenPath(storePath string) string { return storePath + ".nats-token" }

// tokenAlphabet is lowercase base32: safe unquoted in a URL, a cookie, an
// environment variable and a shell.
const tokenAlphabet = "abcdefghijklmnopqrstuvwxyz234567"

// tokenLen characters of 5 bits each: 160 bits of crypto/rand.
const tokenLen = 32

// maxTokenFile bounds what ReadTokenFile reads: a token is a line.
const maxTokenFile = 4096

// NewToken returns a random token of tokenLen characters from
// tokenAlphabet, drawn from crypto/rand.
func NewToken() (string, error) {
	buf := make([]byte, tokenLen)
	if _, err := rand.Read(buf); err != nil {
		return "", fmt.Errorf("token: %w", err)
	}
	for i, b := range buf {
		buf[i] = tokenAlphabet[int(b)%len(tokenAlphabet)] // 256 is a multiple of 32: no bias
	}
	return string(buf), nil
}

// LoadOrCreateToken returns the token kept in path, or, when there is no
// such file, a new one written there with mode 0600 (created reports
// which). An existing file must be a regular file readable by its owner
// only.
func LoadOrCreateToken(path string) (token string, created bool, err error) {
	token, err = ReadTokenFile(path)
	if err == nil {
		return token, false, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", false, err
	}
	if token, err = NewToken(); err != nil {
		return "", false, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", false, fmt.Errorf("nats token: %w", err)
	}
	if _, err := f.WriteString(token + "\n"); err != nil {
		f.Close()
		os.Remove(path)
		return "", false, fmt.Errorf("nats token: %w", err)
	}
	if err := f.Close(); err != nil {
		os.Remove(path)
		return "", false, fmt.Errorf("nats token: %w", err)
	}
	return token, true, nil
}

// ReadTokenFile reads a token from a file (its first line, spaces
// trimmed). The file must be a regular file that neither its group nor
// others can read or write (a token is a password), of at most 4 KiB.
// A missing file gives an error matching fs.ErrNotExist.
func ReadTokenFile(path string) (string, error) {
	// Opening a named pipe blocks until a writer comes: look first.
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		return "", fmt.Errorf("nats token %s: not a regular file (%s)", path, st.Mode().Type())
	}
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("nats token: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("nats token: %w", err)
	}
	switch {
	case !st.Mode().IsRegular():
		return "", fmt.Errorf("nats token %s: not a regular file (%s)", path, st.Mode().Type())
	case st.Mode().Perm()&0o077 != 0:
		return "", fmt.Errorf("nats token %s: group or others may read it (mode %04o); make it the owner's alone: chmod 600 %s",
			path, st.Mode().Perm(), path)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxTokenFile+1))
	if err != nil {
		return "", fmt.Errorf("nats token: %w", err)
	}
	if len(data) > maxTokenFile {
		return "", fmt.Errorf("nats token %s: larger than %d bytes: not a token", path, maxTokenFile)
	}
	token, _, _ := strings.Cut(string(data), "\n")
	token = strings.TrimSpace(token)
	if token == "" {
		return "", fmt.Errorf("nats token %s: empty", path)
	}
	for _, r := range token {
		if r <= ' ' || r == 0x7f {
			return "", fmt.Errorf("nats token %s: a control character or space in the token", path)
		}
	}
	return token, nil
}
