package distrib

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"policyevolve/evolve/episode"
)

// VerifyConfig is how a Remote checks its workers' results. A worker's
// result is evidence, not truth: the coordinator plays some of them again
// (Replay) and compares, bit for bit — an episode is deterministic, so an
// honest worker's result is exactly the replay's.
//
// Which results are replayed: the First results of every worker identity
// (an Ed25519 key made by each worker process, which signs its results;
// see signer), then a share Rate of the rest, chosen by a keyed hash of
// the episode's id under a secret drawn when the Remote starts — a worker
// cannot tell which of its results will be checked. Always replayed: a
// result that claims the job failed (ErrJobFailed), and every result that
// cannot be used as it is (it does not decode, is not signed, fails
// episode.Result.Check, or comes from a quarantined identity): the
// coordinator plays that episode itself.
//
// On a mismatch, the identity is quarantined (its later results are
// ignored: their episodes are played here) and every earlier result of it
// that was used unverified is replayed (to that end the Remote keeps, per
// identity, the episodes it used unverified: a few hundred bytes each, the
// policies' sources shared with the caller's). If one of those differs, the run
// has used a forged result: Play returns an error wrapping ErrForged, and
// the run stops.
type VerifyConfig struct {
	// Replay plays an episode on this machine (the coordinator's
	// episode.Local, with its sandbox). Required unless TrustWorkers.
	Replay episode.Executor
	// First is how many results of every worker identity are replayed
	// before any is used (default DefaultVerifyFirst; negative: none).
	First int
	// Rate is the share of the later results replayed (default
	// DefaultVerifyRate; negative: none; 1: all).
	Rate float64
	// TrustWorkers turns verification off: a result of the right shape and
	// range is used as it is, and one that is not is dropped and its job
	// sent again (tests of the queue's mechanics; a deployment whose
	// workers are all trusted).
	TrustWorkers bool
}

// Defaults, with the reasons for them (docs/distributed.md has the
// figures).
const (
	// A worker that forges from its start (or makes a new key to escape
	// quarantine) is caught on its first result, before any is used;
	// three costs a new worker three episodes of the coordinator's time.
	DefaultVerifyFirst = 3
	// One result in twenty: the coordinator spends a twentieth of the
	// workers' episode time, and a worker that forges a share of its
	// results is caught after 20 forged results on average (and after 59
	// with probability 0.95).
	DefaultVerifyRate = 0.05
)

// ErrForged is a worker's forged result found among those a run has
// already used: the run's records are no longer those of a local run.
var ErrForged = errors.New("a worker's forged result was used")

func (c *VerifyConfig) withDefaults() {
	if c.First == 0 {
		c.First = DefaultVerifyFirst
	}
	if c.Rate == 0 {
		c.Rate = DefaultVerifyRate
	}
	c.First, c.Rate = max(c.First, 0), min(max(c.Rate, 0), 1)
}

// identity is what the coordinator knows of one worker key.
type identity struct {
	name        string
	results     int  // results used or verified
	quarantined bool // a result of it did not match its replay
	// unverified are the episodes whose results were used without a
	// replay, with the results, to replay on a quarantine.
	unverified []used
}

type used struct {
	ep  *episode.Episode
	out *episode.Result
}

// verifier holds the identities; it belongs to a Remote.
type verifier struct {
	cfg    VerifyConfig
	secret [32]byte // keys the sampling hash

	mu  sync.Mutex // guards ids
	ids map[string]*identity

	// Counts: episodes replayed here, results that did not match their
	// replay, identities quarantined, results not usable as they were.
	replayed, mismatches, quarantined, invalid atomic.Int64
}

func newVerifier(cfg VerifyConfig) (*verifier, error) {
	if !cfg.TrustWorkers && cfg.Replay == nil {
		return nil, errors.New("remote: no executor to replay workers' results on (VerifyConfig.Replay), and workers not trusted")
	}
	cfg.withDefaults()
	v := &verifier{cfg: cfg, ids: map[string]*identity{}}
	if _, err := rand.Read(v.secret[:]); err != nil {
		return nil, fmt.Errorf("remote: %w", err)
	}
	return v, nil
}

// sampled reports whether the result of episode id is among the share
// Rate replayed: a hash of id under the secret, unknown to the workers.
func (v *verifier) sampled(id string) bool {
	if v.cfg.Rate >= 1 {
		return true
	}
	h := hmac.New(sha256.New, v.secret[:])
	h.Write([]byte(id))
	x := binary.BigEndian.Uint64(h.Sum(nil))
	return float64(x>>11)/(1<<53) < v.cfg.Rate
}

// use decides what to make of a delivery for ep: the result as the
// worker gave it, or the episode's replay here. An error is the system's
// (a replay that failed for a reason of this machine) or wraps ErrForged.
func (r *Remote) use(ctx context.Context, ep *episode.Episode, d *delivery) (*episode.Result, error) {
	v := r.verify
	id := ep.ID()
	var bad error // the result's shape or range
	if d.out != nil {
		bad = d.out.Check(ep)
	}
	if d.out != nil && bad == nil && errors.Is(failureOf(d.out), episode.ErrJobFailed) {
		// No worker played it, says a worker or a dead letter (signed or
		// not, it is not taken on its word): play it here.
		r.logged.logf(r.cfg.Log, "nats: episode %.12s came back as a failed job (%s); playing it here", id, d.out.Failure.Message)
		local, err := v.replay(ctx, ep)
		if err != nil {
			return d.out, nil // it fails here too: the job's failure stands
		}
		return local, nil
	}
	if bad != nil && d.why == "" {
		d.why = bad.Error()
		// Signed, and wrong: its signer's fault.
		if err := v.quarantine(ctx, r, d, "a result out of shape or range: "+d.why); err != nil {
			return nil, err
		}
	}
	if d.why != "" {
		v.invalid.Add(1)
		r.logged.logf(r.cfg.Log, "nats: a result for episode %.12s from %s is not used (%s); playing the episode here", id, d.who(), d.why)
		return v.replay(ctx, ep)
	}
	v.mu.Lock()
	who := v.ids[d.key]
	if who == nil {
		who = &identity{name: d.name}
		v.ids[d.key] = who
	}
	if who.quarantined {
		v.mu.Unlock()
		v.invalid.Add(1)
		return v.replay(ctx, ep)
	}
	check := who.results < v.cfg.First || v.sampled(id)
	if !check {
		who.results++
		who.unverified = append(who.unverified, used{ep, d.out})
		v.mu.Unlock()
		return d.out, nil
	}
	v.mu.Unlock()
	local, err := v.replay(ctx, ep)
	if err != nil {
		return nil, err
	}
	if same(local, d.out) {
		v.mu.Lock()
		who.results++
		v.mu.Unlock()
		return d.out, nil
	}
	v.mismatches.Add(1)
	if err := v.quarantine(ctx, r, d, fmt.Sprintf("its result for episode %.12s is not the episode's (%s)", id, differs(local, d.out))); err != nil {
		return nil, err
	}
	return local, nil
}

// quarantine ignores d's signer from now on and replays every result of
// it used unverified: an error wrapping ErrForged if one differs.
func (v *verifier) quarantine(ctx context.Context, r *Remote, d *delivery, why string) error {
	v.mu.Lock()
	who := v.ids[d.key]
	if who == nil {
		who = &identity{name: d.name}
		v.ids[d.key] = who
	}
	if who.quarantined {
		v.mu.Unlock()
		return nil
	}
	who.quarantined = true
	earlier := who.unverified
	who.unverified = nil
	v.mu.Unlock()
	v.quarantined.Add(1)
	r.logf("nats: worker %s is quarantined: %s; its results are ignored from now on, and its %d earlier result(s) used unchecked are played again here",
		d.who(), why, len(earlier))
	var forged []string
	var mu sync.Mutex
	var wg sync.WaitGroup
	errs := make(chan error, len(earlier))
	for _, u := range earlier {
		wg.Go(func() {
			local, err := v.replay(ctx, u.ep)
			if err != nil {
				errs <- err
				return
			}
			if !same(local, u.out) {
				mu.Lock()
				forged = append(forged, fmt.Sprintf("%.12s", u.ep.ID()))
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return fmt.Errorf("replaying the results of quarantined worker %s: %w", d.who(), err)
	}
	if len(forged) > 0 {
		return fmt.Errorf("%w: worker %s forged %d result(s) the run had already used (episodes %s); the run's records since then are not those of a local run — start it again without that worker (see docs/distributed.md)",
			ErrForged, d.who(), len(forged), strings.Join(forged, ", "))
	}
	r.logf("nats: the %d earlier result(s) of worker %s match their replays", len(earlier), d.who())
	return nil
}

// replay plays ep here; a policy's failure is a result, the system's an
// error.
func (v *verifier) replay(ctx context.Context, ep *episode.Episode) (*episode.Result, error) {
	v.replayed.Add(1)
	res, err := v.cfg.Replay.Play(ctx, ep)
	out, err := episode.NewResult(ep.ID(), res, err)
	if err != nil {
		return nil, fmt.Errorf("replaying episode %.12s here: %w", ep.ID(), err)
	}
	return out, nil
}

// failureOf is a result's failure as an error (nil: none).
func failureOf(out *episode.Result) error {
	if out.Failure == nil {
		return nil
	}
	_, err := out.Played()
	return err
}

// same reports whether two results are the same, bit for bit.
func same(a, b *episode.Result) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}

// differs says briefly how a worker's result differs from the replay's.
func differs(local, remote *episode.Result) string {
	switch {
	case (local.Failure == nil) != (remote.Failure == nil):
		return fmt.Sprintf("failure %v here, %v there", local.Failure != nil, remote.Failure != nil)
	case local.Steps != remote.Steps:
		return fmt.Sprintf("%d steps here, %d there", local.Steps, remote.Steps)
	default:
		return fmt.Sprintf("returns %v here, %v there", local.Returns, remote.Returns)
	}
}
