package distrib

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go"

	"policyevolve/evolve/episode"
)

// The headers of a result message: who signed it and the signature.
const (
	hdrWorkerKey  = "Policyevolve-Worker-Key" // the signer's Ed25519 public key, base64url
	hdrWorkerName = "Policyevolve-Worker"     // the name it gives (not checked: anyone may claim any name)
	hdrSignature  = "Policyevolve-Signature"  // Ed25519 over the subject, a NUL byte and the data, base64url
)

// signer is a worker's identity: an Ed25519 key pair made when the worker
// starts, never stored or sent but for its public half. A result signed
// with it can only come from this worker process: another client of the
// server (holding the same token) sees the public key in every result
// but cannot sign with it. It can make keys of its own, as many as it
// likes; the coordinator treats each as a new worker (Remote verifies the
// first results of every key).
type signer struct {
	name string
	pub  string // base64url
	priv ed25519.PrivateKey
}

func newSigner(name string) (*signer, error) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("worker key: %w", err)
	}
	return &signer{name: name, pub: base64.RawURLEncoding.EncodeToString(pub), priv: priv}, nil
}

// message is a result's message on subject, signed.
func (s *signer) message(subject string, data []byte) *nats.Msg {
	m := nats.NewMsg(subject)
	m.Data = data
	m.Header.Set(hdrWorkerKey, s.pub)
	m.Header.Set(hdrWorkerName, s.name)
	m.Header.Set(hdrSignature, base64.RawURLEncoding.EncodeToString(ed25519.Sign(s.priv, signedBytes(subject, data))))
	return m
}

func signedBytes(subject string, data []byte) []byte {
	return append(append([]byte(subject), 0), data...)
}

// verifySignature returns the public key that signed a message, or why
// the message has no valid signature.
func verifySignature(subject string, h nats.Header, data []byte) (string, error) {
	key, sig := h.Get(hdrWorkerKey), h.Get(hdrSignature)
	if key == "" || sig == "" {
		return "", errors.New("it is not signed (a worker of an older version, or not a worker)")
	}
	pub, err := base64.RawURLEncoding.DecodeString(key)
	if err != nil || len(pub) != ed25519.PublicKeySize {
		return "", errors.New("its signer's key does not read")
	}
	s, err := base64.RawURLEncoding.DecodeString(sig)
	if err != nil || !ed25519.Verify(pub, signedBytes(subject, data), s) {
		return "", errors.New("its signature does not match")
	}
	return key, nil
}

// delivery is a result message as the coordinator received it.
type delivery struct {
	out  *episode.Result // nil when the data does not decode
	key  string          // the signer's public key; "" when unsigned or badly signed
	name string          // the name the message gives its worker
	// why says what is wrong with the message when it may not be used as
	// it is ("" when it may, once verified).
	why string
}

// readDelivery reads a result message for episode id.
func readDelivery(id string, h nats.Header, data []byte) *delivery {
	d := &delivery{name: keySafe(h.Get(hdrWorkerName))}
	if len(d.name) > 64 {
		d.name = d.name[:64]
	}
	var out episode.Result
	if err := json.Unmarshal(data, &out); err != nil {
		d.why = fmt.Sprintf("it does not decode: %v", err)
		return d
	}
	if out.Job != id {
		d.why = fmt.Sprintf("it names episode %.12s", out.Job)
		return d
	}
	d.out = &out
	key, err := verifySignature(resultSubject(id), h, data)
	if err != nil {
		d.why = err.Error()
		return d
	}
	d.key = key
	return d
}

// who names a delivery's worker for a log line.
func (d *delivery) who() string {
	name := d.name
	if name == "" {
		name = "(no name)"
	}
	if d.key == "" {
		return name
	}
	return fmt.Sprintf("%s (key %.10s)", name, d.key)
}
