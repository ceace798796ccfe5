package distrib

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nkeys"
)

// embedded starts a server with auth on a free loopback port.
func embedded(t *testing.T, auth Auth) *Embedded {
	t.Helper()
	e, err := StartEmbedded(EmbeddedConfig{Port: -1, StoreDir: t.TempDir(), Auth: auth})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	return e
}

// connects reports whether a client with auth gets in, and why not.
func connects(u string, auth Auth) error {
	nc, err := Connect(u, "test", auth)
	if err == nil {
		nc.Close()
	}
	return err
}

func TestTokenAuth(t *testing.T) {
	e := embedded(t, Auth{Token: "s3cret-token"})
	if err := connects(e.URL(), Auth{Token: "s3cret-token"}); err != nil {
		t.Fatalf("the right token: %v", err)
	}
	for _, a := range []Auth{{}, {Token: "wrong"}} {
		err := connects(e.URL(), a)
		if err == nil || !strings.Contains(err.Error(), "Authorization Violation") {
			t.Errorf("token %q: %v, want an authorization violation", a.Token, err)
		}
		if err != nil && strings.Contains(err.Error(), "s3cret") {
			t.Errorf("the error shows the token: %v", err)
		}
	}
}

func TestNKeyAuth(t *testing.T) {
	seedFile := func(name string) string {
		kp, err := nkeys.CreateUser()
		if err != nil {
			t.Fatal(err)
		}
		seed, _ := kp.Seed()
		f := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(f, seed, 0o600); err != nil {
			t.Fatal(err)
		}
		return f
	}
	user, stranger := seedFile("user.nk"), seedFile("stranger.nk")
	e := embedded(t, Auth{NKeyFile: user})
	if err := connects(e.URL(), Auth{NKeyFile: user}); err != nil {
		t.Fatalf("the user's seed: %v", err)
	}
	for _, a := range []Auth{{}, {NKeyFile: stranger}} {
		if err := connects(e.URL(), a); err == nil {
			t.Errorf("%+v got in", a)
		}
	}
}

// selfSigned writes a self-signed certificate for 127.0.0.1 and its key.
func selfSigned(t *testing.T) (cert, key string) {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "policyevolve test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true,
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, BasicConstraintsValid: true,
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cert, key = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(key, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600)
	return cert, key
}

func TestTLS(t *testing.T) {
	cert, key := selfSigned(t)
	e := embedded(t, Auth{Token: "tok", TLSCert: cert, TLSKey: key})
	if !strings.HasPrefix(e.URL(), "tls://") {
		t.Fatalf("a TLS server's URL is %s", e.URL())
	}
	if err := connects(e.URL(), Auth{Token: "tok", TLSCA: cert}); err != nil {
		t.Fatalf("a client that trusts the server's certificate: %v", err)
	}
	start := time.Now()
	err := connects(e.URL(), Auth{Token: "tok"})
	t.Logf("refused after %v", time.Since(start))
	if err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Fatalf("a client that does not trust it: %v", err)
	}
	// The coordinator's own connection goes through memory.
	nc, err := e.Connect("in-process", Auth{Token: "tok"})
	if err != nil {
		t.Fatalf("in process: %v", err)
	}
	nc.Close()
}

func TestAuthValidate(t *testing.T) {
	f := filepath.Join(t.TempDir(), "x")
	os.WriteFile(f, []byte("x"), 0o600)
	for _, c := range []struct {
		auth Auth
		want string
	}{
		{Auth{Token: "a", NKeyFile: f}, "one of"},
		{Auth{TLSCert: f}, "needs its key"},
		{Auth{CredsFile: filepath.Join(t.TempDir(), "missing.creds")}, "no such file"},
		{Auth{Token: "a", TLSCert: f, TLSKey: f, TLSCA: f}, ""},
	} {
		err := c.auth.Validate()
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%+v: %v, want %q", c.auth, err, c.want)
		}
	}
	if _, err := StartEmbedded(EmbeddedConfig{StoreDir: t.TempDir(), Auth: Auth{CredsFile: f}}); err == nil ||
		!strings.Contains(err.Error(), "operator-mode server") {
		t.Errorf("an embedded server with a credentials file: %v", err)
	}
}

func TestRedact(t *testing.T) {
	for in, want := range map[string]string{
		"nats://host:4222":                      "nats://host:4222",
		"nats://user:pass@host:4222":            "nats://user:xxxxx@host:4222",
		"nats://token@host:4222":                "nats://xxxxx@host:4222",
		"nats://a:b@h1:4222,nats://tok@h2:4222": "nats://a:xxxxx@h1:4222,nats://xxxxx@h2:4222",
		"tls://127.0.0.1:4443":                  "tls://127.0.0.1:4443",
	} {
		if got := Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseEmbedded(t *testing.T) {
	for _, c := range []struct {
		spec, host string
		port       int
		ok, bad    bool
	}{
		{"embedded", "127.0.0.1", 4222, true, false},
		{"embedded:4333", "127.0.0.1", 4333, true, false},
		{"embedded:0.0.0.0:4333", "0.0.0.0", 4333, true, false},
		{"embedded:[::1]:4333", "::1", 4333, true, false},
		{"embedded:port", "", 0, true, true},
		{"embedded:70000", "", 0, true, true},
		{"nats://embedded:4222", "", 0, false, false},
		{"embeddedx", "", 0, false, false},
	} {
		host, port, ok, err := ParseEmbedded(c.spec)
		if ok != c.ok || (err != nil) != c.bad || !c.bad && ok && (host != c.host || port != c.port) {
			t.Errorf("%q: %q %d %v %v", c.spec, host, port, ok, err)
		}
	}
}
