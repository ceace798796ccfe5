package distrib

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// EmbeddedConfig configures an in-process NATS server with JetStream.
type EmbeddedConfig struct {
	// Host to listen on: loopback unless a host is given ("0.0.0.0" for
	// every interface, so that workers on other machines can join). A
	// host other than loopback needs Auth to check clients (a token, an
	// NKey, or TLS with a CA for clients' certificates).
	Host string
	// Port to listen on (default 4222; -1: any free port).
	Port int
	// StoreDir keeps JetStream's streams: the queue and the results
	// survive a restart of the coordinator when it is kept. Required.
	StoreDir string
	// Auth the server demands of clients: a token or an NKey (the public
	// key of NKeyFile's seed); with TLSCert and TLSKey it serves TLS, and
	// with TLSCA also verifies the clients' certificates. A credentials
	// file (an operator's JWTs) needs a server of its own.
	Auth Auth
	// ReadyTimeout bounds the wait for the server to accept connections
	// (default 30 s).
	ReadyTimeout time.Duration
}

// Embedded is a NATS server running in this process.
type Embedded struct {
	srv *server.Server
}

// ParseEmbedded reads "embedded", "embedded:PORT" or
// "embedded:HOST:PORT" (the --nats flag's forms), reporting whether spec
// names an embedded server at all.
func ParseEmbedded(spec string) (host string, port int, ok bool, err error) {
	const word = "embedded"
	if spec != word && (len(spec) <= len(word) || spec[:len(word)+1] != word+":") {
		return "", 0, false, nil
	}
	host, port = "127.0.0.1", 4222
	if spec == word {
		return host, port, true, nil
	}
	rest := spec[len(word)+1:]
	p := rest
	if h, pp, err := net.SplitHostPort(rest); err == nil {
		host, p = h, pp
	}
	port, err = strconv.Atoi(p)
	if err != nil || port < 0 || port > 65535 {
		return "", 0, true, fmt.Errorf("%q: want embedded, embedded:PORT or embedded:HOST:PORT", spec)
	}
	return host, port, true, nil
}

// StartEmbedded starts an in-process NATS server with JetStream and waits
// until it accepts connections.
func StartEmbedded(c EmbeddedConfig) (*Embedded, error) {
	if c.StoreDir == "" {
		return nil, errors.New("embedded nats: no directory for its streams")
	}
	if err := c.Auth.Validate(); err != nil {
		return nil, err
	}
	if c.Auth.CredsFile != "" {
		return nil, errors.New("embedded nats: a credentials file needs an operator-mode server of its own; give the embedded server a token or an NKey")
	}
	if c.Host == "" {
		c.Host = "127.0.0.1"
	}
	if !c.Auth.admits() && !isLoopback(c.Host) {
		return nil, fmt.Errorf("embedded nats: listening on %s without credentials would let anyone who reaches it take and answer jobs; give a token or an NKey (or listen on loopback)", c.Host)
	}
	if c.Port == 0 {
		c.Port = 4222
	}
	if c.ReadyTimeout <= 0 {
		c.ReadyTimeout = 30 * time.Second
	}
	if c.Port > 0 {
		// The server would only say so after ReadyTimeout.
		l, err := net.Listen("tcp", net.JoinHostPort(c.Host, strconv.Itoa(c.Port)))
		if err != nil {
			return nil, fmt.Errorf("embedded nats: %w", err)
		}
		l.Close()
	}
	opts := &server.Options{ServerName: "policyevolve", Host: c.Host, Port: c.Port, JetStream: true,
		StoreDir: c.StoreDir, NoSigs: true, NoLog: true, MaxPayload: maxJobBytes}
	switch {
	case c.Auth.Token != "":
		opts.Authorization = c.Auth.Token
	case c.Auth.NKeyFile != "":
		pub, err := nkeyPublic(c.Auth.NKeyFile)
		if err != nil {
			return nil, err
		}
		opts.Nkeys = []*server.NkeyUser{{Nkey: pub}}
	}
	if c.Auth.TLSCert != "" {
		tc, err := server.GenTLSConfig(&server.TLSConfigOpts{CertFile: c.Auth.TLSCert, KeyFile: c.Auth.TLSKey,
			CaFile: c.Auth.TLSCA, Verify: c.Auth.TLSCA != ""})
		if err != nil {
			return nil, fmt.Errorf("embedded nats: tls: %w", err)
		}
		opts.TLSConfig, opts.TLSTimeout, opts.TLSVerify = tc, 5, c.Auth.TLSCA != ""
	}
	srv, err := server.NewServer(opts)
	if err != nil {
		return nil, fmt.Errorf("embedded nats: %w", err)
	}
	srv.Start()
	if !srv.ReadyForConnections(c.ReadyTimeout) {
		srv.Shutdown()
		return nil, fmt.Errorf("embedded nats: not accepting connections on %s after %v (is the port in use?)",
			net.JoinHostPort(c.Host, strconv.Itoa(c.Port)), c.ReadyTimeout)
	}
	return &Embedded{srv: srv}, nil
}

// admits reports whether a server with a's settings checks who connects:
// a token, an NKey, or TLS that verifies client certificates.
func (a Auth) admits() bool {
	return a.Token != "" || a.NKeyFile != "" || a.TLSCert != "" && a.TLSCA != ""
}

// isLoopback reports whether host names this machine's loopback interface
// only.
func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// URL is where clients connect (for a server on every interface, the
// loopback address; other machines use this machine's name).
func (e *Embedded) URL() string { return e.srv.ClientURL() }

// Connect connects to this server through memory rather than the network
// (its authentication applies, its TLS does not), as name.
func (e *Embedded) Connect(name string, auth Auth) (*nats.Conn, error) {
	return Connect(strings.Replace(e.URL(), "tls://", "nats://", 1), name, auth, nats.InProcessServer(e.srv))
}

// Close shuts the server down and waits until it has.
func (e *Embedded) Close() {
	e.srv.Shutdown()
	e.srv.WaitForShutdown()
}
