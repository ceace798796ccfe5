package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/nats-io/nats.go"

	"policyevolve/distrib"
)

// natsOptions are the flags of the commands that talk to a NATS server.
// None has its value as a printed default: a URL may hold a password, and
// the token is a secret; both may come from the environment instead, which
// ps does not show.
type natsOptions struct {
	url       string
	tokenFile string
	auth      distrib.Auth
}

// The environment variables the NATS flags fall back to.
const (
	envNATS      = "POLICYEVOLVE_NATS"
	envNATSToken = "POLICYEVOLVE_NATS_TOKEN"
)

func (o *natsOptions) register(fs *flagSet, urlHelp string) {
	fs.StringVar(&o.url, "nats", "", urlHelp+" (default $"+envNATS+")")
	fs.StringVar(&o.auth.Token, "nats-token", "", "NATS token (default $"+envNATSToken+", which, unlike a flag, ps does not show)")
	fs.StringVar(&o.tokenFile, "nats-token-file", "", "file holding the NATS token (mode 0600), such as the STORE.nats-token an evolve --nats embedded generates")
	fs.StringVar(&o.auth.NKeyFile, "nats-nkey", "", "NATS user NKey seed file")
	fs.StringVar(&o.auth.CredsFile, "nats-creds", "", "NATS credentials file (user JWT and seed)")
	fs.StringVar(&o.auth.TLSCA, "nats-tls-ca", "", "CA certificate that signed the NATS server's (PEM)")
	fs.StringVar(&o.auth.TLSCert, "nats-tls-cert", "", "TLS certificate (PEM): this client's, or the embedded server's")
	fs.StringVar(&o.auth.TLSKey, "nats-tls-key", "", "key of --nats-tls-cert (PEM)")
}

// resolve fills what the flags left empty from the environment and
// checks the credentials' options.
func (o *natsOptions) resolve() error {
	if o.url == "" {
		o.url = os.Getenv(envNATS)
	}
	if o.tokenFile != "" {
		if o.auth.Token != "" {
			return usagef("nats: give the token once: --nats-token or --nats-token-file")
		}
		token, err := distrib.ReadTokenFile(o.tokenFile)
		if err != nil {
			return usagef("--nats-token-file: %v", err)
		}
		o.auth.Token = token
	}
	if o.auth.Token == "" {
		o.auth.Token = os.Getenv(envNATSToken)
	}
	if err := o.auth.Validate(); err != nil {
		return usagef("nats: %v", err)
	}
	return nil
}

// connect connects to the server named by --nats as name.
func (o *natsOptions) connect(name string, more ...nats.Option) (*nats.Conn, error) {
	if o.url == "" {
		return nil, usagef("--nats: which NATS server? (a URL such as nats://host:4222, or $%s)", envNATS)
	}
	nc, err := distrib.Connect(o.url, name, o.auth, more...)
	if errors.Is(err, nats.ErrAuthorization) {
		return nil, fmt.Errorf("%w\n%s", err, refusedHint(o.auth))
	}
	return nc, err
}

// refusedHint says how to get past a server that refused a client's
// credentials.
func refusedHint(a distrib.Auth) string {
	if a.Token == "" && a.NKeyFile == "" && a.CredsFile == "" {
		return "The server requires credentials. An \"evolve --nats embedded\" server's token is in the file STORE.nats-token\n" +
			"beside the coordinator's store: give it with --nats-token-file FILE (a copy, mode 0600) or $" + envNATSToken + "."
	}
	return "The server refused these credentials: check the token (an \"evolve --nats embedded\" server's is in STORE.nats-token\n" +
		"beside the coordinator's store), the NKey or the credentials file."
}
