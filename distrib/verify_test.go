package distrib

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"policyevolve/evolve"
	"policyevolve/evolve/episode"
	"policyevolve/store"
)

// rogue is a client that holds the server's credentials (here: none are
// needed) and takes jobs from the native queue like a worker, answering
// each with the message forge makes of it instead of playing it (nil:
// no answer, the job kept until the server gives it to another).
func rogue(t *testing.T, u string, forge func(k int, id string, ep *episode.Episode) *nats.Msg) *atomic.Int64 {
	t.Helper()
	nc, err := Connect(u, "rogue", Auth{})
	if err != nil {
		t.Fatal(err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var answered atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			cons, err := js.Consumer(ctx, JobsStream, consumerName("native"))
			if err != nil {
				sleep(ctx, 50*time.Millisecond)
				continue
			}
			batch, err := cons.Fetch(1, jetstream.FetchMaxWait(200*time.Millisecond))
			if err != nil {
				continue
			}
			for m := range batch.Messages() {
				id := lastToken(m.Subject())
				var ep episode.Episode
				if json.Unmarshal(m.Data(), &ep) != nil {
					m.Term()
					continue
				}
				k := int(answered.Add(1)) - 1
				if msg := forge(k, id, &ep); msg != nil {
					js.PublishMsg(ctx, msg)
					m.Ack()
				} // else it sits on the job, never answering

			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		<-done
		nc.Close()
	})
	return &answered
}

// forged is an in-range result of ep that is not its result: every agent
// earns a tenth of the steps, with fair metrics.
func forged(id string, ep *episode.Episode) *episode.Result {
	n, T := ep.Env.Agents, ep.Env.MaxSteps
	out := &episode.Result{Job: id, Steps: T, Returns: make([]float64, n)}
	for i := range out.Returns {
		out.Returns[i] = float64(T) / 10
	}
	out.Metrics.Efficiency, out.Metrics.Equality, out.Metrics.Sustainability = float64(n)/10, 1, float64(T)/2
	return out
}

func signedMsg(s *signer, id string, out any) *nats.Msg {
	data, _ := json.Marshal(out)
	return s.message(resultSubject(id), data)
}

// verifiedRemote is a coordinator's executor on the server at u that
// replays its workers' results on replay.
func verifiedRemote(t testing.TB, u string, v VerifyConfig) *Remote {
	t.Helper()
	nc, err := Connect(u, "test coordinator", Auth{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewRemote(context.Background(), nc, RemoteConfig{Queue: testQueue, Recheck: time.Second, Verify: v,
		Log: func(f string, a ...any) { t.Logf(f, a...) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		r.Close()
		nc.Close()
	})
	return r
}

// TestForgingWorkerDoesNotChangeTheRun: a client that holds the token,
// takes jobs and answers every one with a forged result — in range and
// signed with a key of its own, signed with a new key each time, out of
// range, not decodable, or not signed — beside an honest worker, leaves
// the run's records exactly those of the same run played locally; the
// coordinator does not stop.
func TestForgingWorkerDoesNotChangeTheRun(t *testing.T) {
	want := localDigest(t)
	s := openStore(t)
	srv := startServer(t)
	fixed, err := newSigner("rogue")
	if err != nil {
		t.Fatal(err)
	}
	answered := rogue(t, srv.url(), func(k int, id string, ep *episode.Episode) *nats.Msg {
		switch k % 5 {
		case 0: // in range, signed
			return signedMsg(fixed, id, forged(id, ep))
		case 1: // in range, under a new identity every time
			fresh, _ := newSigner("honest") // and another's name
			return signedMsg(fresh, id, forged(id, ep))
		case 2: // out of range
			out := forged(id, ep)
			out.Steps = ep.Env.MaxSteps + 5
			return signedMsg(fixed, id, out)
		case 3: // not a result
			m := nats.NewMsg(resultSubject(id))
			m.Data = []byte("{not json")
			return m
		default: // not signed
			data, _ := json.Marshal(forged(id, ep))
			return &nats.Msg{Subject: resultSubject(id), Data: data}
		}
	})
	sb := newSandbox(t)
	replay := &episode.Local{Sandbox: sb}
	defer replay.Close()
	remote := verifiedRemote(t, srv.url(), VerifyConfig{Replay: replay})
	job := &evolve.Job{Config: remoteCfg, Store: s, Sandbox: sb, Planner: remotePlanner, Executor: remote}
	type outcome struct {
		run *store.Run
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		run, err := job.Run(context.Background())
		done <- outcome{run, err}
	}()
	// The rogue alone until it has tried each forgery, then an honest
	// worker beside it.
	waitFor(t, "the rogue to answer five jobs", func() bool { return answered.Load() >= 5 })
	startWorker(t, srv.url(), "honest", 1)
	out := <-done
	if out.err != nil {
		t.Fatal(out.err)
	}
	if got := digest(t, s, out.run); got != want {
		t.Fatalf("local run:\n%s\nrun with a forging worker:\n%s", want, got)
	}
	v := remote.verify
	t.Logf("the rogue answered %d jobs; %d replayed here, %d mismatches, %d identities quarantined, %d results unusable",
		answered.Load(), v.replayed.Load(), v.mismatches.Load(), v.quarantined.Load(), v.invalid.Load())
	if v.mismatches.Load() == 0 || v.quarantined.Load() == 0 || v.invalid.Load() == 0 {
		t.Fatal("no forgery was noticed")
	}
}

// builtinEpisode is an episode of built-ins (no sandbox needed), 4 agents
// on Gathering's small map.
func builtinEpisode(t *testing.T, seed uint64) *episode.Episode {
	t.Helper()
	env, err := episode.ResolveEnv("gathering", "small", 4, 50)
	if err != nil {
		t.Fatal(err)
	}
	src := episode.BuiltinSource("random")
	return episode.New(env, []episode.Policy{{ID: store.SourceID(src), Builtin: "random", Source: src}}, make([]int, 4), seed, episode.Limits{})
}

// TestLaterForgeryIsFound: a worker that forges a result the sample does
// not pick gets it used — the threat model's limit, shown — and when it is
// caught on a sampled one, the replay of its earlier results finds the one
// used, and Play stops the run with ErrForged naming it.
func TestLaterForgeryIsFound(t *testing.T) {
	srv := startServer(t)
	key, err := newSigner("sleeper")
	if err != nil {
		t.Fatal(err)
	}
	rogue(t, srv.url(), func(k int, id string, ep *episode.Episode) *nats.Msg {
		return signedMsg(key, id, forged(id, ep))
	})
	replay := &episode.Local{}
	r := verifiedRemote(t, srv.url(), VerifyConfig{Replay: replay, First: -1, Rate: 0.5})
	// The test knows the secret: pick an episode the sample skips and one
	// it takes.
	var skipped, taken *episode.Episode
	for seed := uint64(0); skipped == nil || taken == nil; seed++ {
		ep := builtinEpisode(t, seed)
		if r.verify.sampled(ep.ID()) {
			taken = ep
		} else {
			skipped = ep
		}
	}
	ctx := context.Background()
	res, err := r.Play(ctx, skipped)
	if err != nil {
		t.Fatal(err)
	}
	if res.Returns[0] != float64(50)/10 {
		t.Fatalf("an unsampled result: %v, want the forged one (used unchecked)", res.Returns)
	}
	_, err = r.Play(ctx, taken)
	if !errors.Is(err, ErrForged) || !strings.Contains(err.Error(), fmt.Sprintf("%.12s", skipped.ID())) {
		t.Fatalf("the sampled forgery: %v, want ErrForged naming episode %.12s", err, skipped.ID())
	}
	// Quarantined: its results are no longer used.
	next := builtinEpisode(t, 1000)
	res, err = r.Play(ctx, next)
	want, _ := replay.Play(ctx, next)
	if err != nil || fmt.Sprint(res.Returns) != fmt.Sprint(want.Returns) {
		t.Fatalf("after the quarantine: %v %v, want the local result %v", res, err, want.Returns)
	}
}

// TestUnusableResultIsSentAgain: a coordinator that trusts its workers
// drops a result out of range (instead of stopping) and has the job
// played again; the next answer is used.
func TestUnusableResultIsSentAgain(t *testing.T) {
	srv := startServer(t)
	key, _ := newSigner("clumsy")
	ep := builtinEpisode(t, 3)
	want, err := (&episode.Local{}).Play(context.Background(), ep)
	if err != nil {
		t.Fatal(err)
	}
	rogue(t, srv.url(), func(k int, id string, ep *episode.Episode) *nats.Msg {
		if k == 0 {
			out := forged(id, ep)
			out.Returns[1] = 1e9
			return signedMsg(key, id, out)
		}
		res, err := (&episode.Local{}).Play(context.Background(), ep)
		out, err := episode.NewResult(id, res, err)
		if err != nil {
			t.Error(err)
		}
		return signedMsg(key, id, out)
	})
	r := newRemote(t, srv.url())
	got, err := r.Play(context.Background(), ep)
	if err != nil || played(got, nil) != played(want, nil) {
		t.Fatalf("%s, %v; want %s", played(got, nil), err, played(want, nil))
	}
}

// TestSilentThiefsJobsArePlayedHere: a client that takes every job and
// never answers makes each a dead letter after MaxDeliver deliveries; a
// verifying coordinator does not record that as the episode's failure
// but plays the episode itself.
func TestSilentThiefsJobsArePlayedHere(t *testing.T) {
	srv := startServer(t)
	rogue(t, srv.url(), func(int, string, *episode.Episode) *nats.Msg { return nil })
	replay := &episode.Local{}
	r := verifiedRemote(t, srv.url(), VerifyConfig{Replay: replay})
	ep := builtinEpisode(t, 7)
	want, err := replay.Play(context.Background(), ep)
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.Play(context.Background(), ep)
	if err != nil || played(got, nil) != played(want, nil) {
		t.Fatalf("%s, %v; want the local %s", played(got, nil), err, played(want, nil))
	}
	// The dead letter is counted just after its answer is published, so
	// the answer can reach Play first: wait for the count (generously).
	for deadline := time.Now().Add(time.Minute); r.dead.Load() == 0 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if r.dead.Load() != 1 {
		t.Fatalf("%d dead letters, want the job's", r.dead.Load())
	}
}
