package distrib

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nkeys"

	"policyevolve/internal/infile"
)

// Auth is how a coordinator or worker proves itself to the NATS server,
// through NATS's own options. At most one of Token, NKeyFile and CredsFile
// (a user name and password may also be given in the URL); TLS with or
// without them. Nothing here is ever stored or logged: a URL is printed
// only through Redact.
type Auth struct {
	Token     string // a shared token
	NKeyFile  string // a file holding a user NKey seed ("SU…")
	CredsFile string // a credentials file (user JWT and seed), for an operator-mode server
	// TLS: the CA that signed the server's certificate, and this side's
	// certificate and key when the server verifies clients.
	TLSCA, TLSCert, TLSKey string
}

// Validate reports options that cannot work together.
func (a Auth) Validate() error {
	n := 0
	for _, s := range []string{a.Token, a.NKeyFile, a.CredsFile} {
		if s != "" {
			n++
		}
	}
	switch {
	case n > 1:
		return errors.New("give one of a token, an NKey seed file and a credentials file")
	case (a.TLSCert == "") != (a.TLSKey == ""):
		return errors.New("a TLS certificate needs its key, and a key its certificate")
	}
	for _, f := range []string{a.NKeyFile, a.CredsFile, a.TLSCA, a.TLSCert, a.TLSKey} {
		if f == "" {
			continue
		}
		if _, err := os.Stat(f); err != nil {
			return fmt.Errorf("nats credentials: %w", err)
		}
	}
	return nil
}

// options are the NATS client options for a.
func (a Auth) options() ([]nats.Option, error) {
	var opts []nats.Option
	switch {
	case a.Token != "":
		opts = append(opts, nats.Token(a.Token))
	case a.NKeyFile != "":
		o, err := nats.NkeyOptionFromSeed(a.NKeyFile)
		if err != nil {
			return nil, fmt.Errorf("nkey seed %s: %w", a.NKeyFile, err)
		}
		opts = append(opts, o)
	case a.CredsFile != "":
		opts = append(opts, nats.UserCredentials(a.CredsFile))
	}
	if a.TLSCA != "" {
		opts = append(opts, nats.RootCAs(a.TLSCA))
	}
	if a.TLSCert != "" {
		opts = append(opts, nats.ClientCert(a.TLSCert, a.TLSKey))
	}
	return opts, nil
}

// maxSeedFile bounds an NKey seed file: a seed is 58 characters, a
// decorated one a few lines.
const maxSeedFile = 64 << 10

// nkeyPublic returns the public key of the user seed in file.
func nkeyPublic(file string) (string, error) {
	data, err := infile.Read(file, maxSeedFile)
	if err != nil {
		return "", fmt.Errorf("nkey seed: %w", err)
	}
	kp, err := nkeys.ParseDecoratedNKey(data)
	if err != nil {
		return "", fmt.Errorf("nkey seed %s: %w", file, err)
	}
	defer kp.Wipe()
	pub, err := kp.PublicKey()
	if err != nil {
		return "", err
	}
	if !nkeys.IsValidPublicUserKey(pub) {
		return "", fmt.Errorf("nkey seed %s: not a user seed (SU…)", file)
	}
	return pub, nil
}

// Connect connects to the NATS server at url as name (shown in the
// server's monitoring), failing at once when it cannot be reached or
// refuses the credentials; once connected, the connection reconnects for
// ever (a restarted server is found again). More options (in-process
// connection, handlers) may be added.
func Connect(rawURL, name string, auth Auth, more ...nats.Option) (*nats.Conn, error) {
	if err := auth.Validate(); err != nil {
		return nil, err
	}
	opts, err := auth.options()
	if err != nil {
		return nil, err
	}
	opts = append(opts, nats.Name(name), nats.MaxReconnects(-1), nats.ReconnectWait(500*time.Millisecond),
		nats.Timeout(10*time.Second))
	opts = append(opts, more...)
	nc, err := nats.Connect(rawURL, opts...)
	if err != nil {
		return nil, fmt.Errorf("nats %s: %w", Redact(rawURL), err)
	}
	return nc, nil
}

// Redact returns a NATS URL (or a comma-separated list of them) fit to
// print: passwords and tokens in it replaced.
func Redact(raw string) string {
	parts := strings.Split(raw, ",")
	for i, p := range parts {
		u, err := url.Parse(strings.TrimSpace(p))
		if err != nil || u.User == nil {
			if err != nil && strings.Contains(p, "@") {
				parts[i] = "(a URL that does not parse)"
			}
			continue
		}
		if _, ok := u.User.Password(); ok {
			u.User = url.UserPassword(u.User.Username(), "xxxxx")
		} else {
			u.User = url.User("xxxxx") // a token
		}
		parts[i] = u.String()
	}
	return strings.Join(parts, ",")
}
