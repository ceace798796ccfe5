package main

import (
	"os"

	"github.com/nats-io/nats.go"

	"policyevolve/distrib"
)

// natsOptions are the flags of the commands that talk to a NATS server.
// None has its value as a printed default: a URL may hold a password, and
// the token is a secret; both may come from the environment instead, which
// ps does not show.
type natsOptions struct {
	url  string
	auth distrib.Auth
}

// The environment variables the NATS flags fall back to.
const (
	envNATS      = "POLICYEVOLVE_NATS"
	envNATSToken = "POLICYEVOLVE_NATS_TOKEN"
)

func (o *natsOptions) register(fs *flagSet, urlHelp string) {
	fs.StringVar(&o.url, "nats", "", urlHelp+" (default $"+envNATS+")")
	fs.StringVar(&o.auth.Token, "nats-token", "", "NATS token (default $"+envNATSToken+", which, unlike a flag, ps does not show)")
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
	return distrib.Connect(o.url, name, o.auth, more...)
}
