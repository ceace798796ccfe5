package distrib

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"policyevolve/evolve/episode"
	"policyevolve/store"
)

// benchSeed makes every benchmarked episode a new one: a result already
// published would be found by its address instead of played.
var benchSeed atomic.Uint64

// benchEpisode is a self-play episode of an example policy on
// Gathering's paper map with 10 agents, steps long, on a new seed.
func benchEpisode(b *testing.B, policy string, steps int) *episode.Episode {
	b.Helper()
	src, err := os.ReadFile(filepath.Join("..", "examples", "policies", policy+".go"))
	if err != nil {
		b.Fatal(err)
	}
	env, err := episode.ResolveEnv("gathering", "", 10, steps)
	if err != nil {
		b.Fatal(err)
	}
	return &episode.Episode{Env: episode.EnvSpec{EnvConfig: env.Config, MapText: env.Map.Text},
		Policies: []episode.Policy{{ID: store.SourceID(string(src)), Source: string(src)}}, Side: make([]int, 10),
		Seed: benchSeed.Add(1), Limits: episode.LimitsOf(newSandbox(b))}
}

// playAll plays n copies of ep, each on a new seed, inFlight at a time.
func playAll(b *testing.B, ex episode.Executor, ep *episode.Episode, n, inFlight int) {
	b.Helper()
	var next atomic.Int64
	var wg sync.WaitGroup
	var failed atomic.Value
	for range inFlight {
		wg.Go(func() {
			for next.Add(1) <= int64(n) {
				e := *ep
				e.Seed = benchSeed.Add(1)
				if _, err := ex.Play(context.Background(), &e); err != nil {
					failed.Store(err)
				}
			}
		})
	}
	wg.Wait()
	if err := failed.Load(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkEpisodes measures episodes per second of a policy of realistic
// cost (the Voronoi example: a flood fill per agent and step): played
// here (local, as many at once as CPUs), and on 1 or 2 worker processes
// of this machine (as many slots each as CPUs) fed over an embedded NATS
// server in the benchmark's process.
//
//	go test ./distrib -run '^$' -bench '^BenchmarkEpisodes$' -benchtime 40x
func BenchmarkEpisodes(b *testing.B) {
	for _, workers := range []int{0, 1, 2} {
		name := "local"
		if workers > 0 {
			name = fmt.Sprintf("workers=%d", workers)
		}
		b.Run(name, func(b *testing.B) { benchExecutor(b, workers, "voronoi", 1000, 8, nil) })
	}
}

// BenchmarkVerifiedEpisodes is BenchmarkEpisodes' one worker process with
// the coordinator verifying its results as by default (VerifyConfig's
// defaults: the first 3 of every worker, then 1 in 20, replayed here), and
// with every result replayed (rate 1): the cost of verification, beside
// the replayed share of the episodes.
//
//	go test ./distrib -run '^$' -bench VerifiedEpisodes -benchtime 40x
func BenchmarkVerifiedEpisodes(b *testing.B) {
	for _, c := range []struct {
		name string
		v    VerifyConfig
	}{{"trusting", trusting}, {"default", VerifyConfig{}}, {"all", VerifyConfig{Rate: 1}}} {
		b.Run(c.name, func(b *testing.B) { benchExecutor(b, 1, "voronoi", 1000, 8, &c.v) })
	}
}

// BenchmarkJobOverhead measures one short episode (one step) at a time:
// the difference between local and over NATS is the cost of a job — send,
// delivery, result, acknowledgement — beyond its episode.
//
//	go test ./distrib -run '^$' -bench JobOverhead -benchtime 200x
func BenchmarkJobOverhead(b *testing.B) {
	for _, workers := range []int{0, 1} {
		name := "local"
		if workers > 0 {
			name = "nats"
		}
		b.Run(name, func(b *testing.B) { benchExecutor(b, workers, "bfs", 1, 1, nil) })
	}
}

// benchExecutor plays episodes of policy locally (workers 0) or on worker
// processes, the coordinator verifying their results by verify (nil:
// trusting them).
func benchExecutor(b *testing.B, workers int, policy string, steps, inFlight int, verify *VerifyConfig) {
	ep := benchEpisode(b, policy, steps)
	var ex episode.Executor
	if workers == 0 {
		local := &episode.Local{Sandbox: newSandbox(b)}
		defer local.Close()
		ex = local
	} else {
		srv := startServer(b)
		for k := range workers {
			startWorker(b, srv.url(), fmt.Sprintf("bench-%d", k), 0)
		}
		if verify == nil {
			ex = newRemote(b, srv.url())
		} else {
			v := *verify
			if !v.TrustWorkers {
				local := &episode.Local{Sandbox: newSandbox(b)}
				defer local.Close()
				v.Replay = local
			}
			r := verifiedRemote(b, srv.url(), v)
			ex = r
			defer func() {
				b.ReportMetric(float64(r.verify.replayed.Load())/float64(b.N+4), "replayed/episode")
			}()
		}
	}
	// Warm up: compile the policy everywhere, start the policy workers.
	playAll(b, ex, ep, 4*max(workers, 1), 4*max(workers, 1))
	b.ResetTimer()
	playAll(b, ex, ep, b.N, inFlight)
	b.StopTimer() // not the closing of workers
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "episodes/s")
}
