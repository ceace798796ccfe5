package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"policyevolve/envs"
	"policyevolve/envs/ssd"
	"policyevolve/envs/ssd/worker"
)

func benchEpisode(b *testing.B, prog *Program, game ssd.Game, steps int) {
	b.Helper()
	m, _ := envs.BuiltinMap(game, envs.DefaultMap(game))
	env, err := envs.New(envs.Config{Map: m, Agents: 10, MaxSteps: steps})
	if err != nil {
		b.Fatal(err)
	}
	all := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	actor := prog.Actor()
	var seed uint64
	start := time.Now()
	for b.Loop() {
		if _, err := envs.Run(context.Background(), env, []envs.Seat{{Actor: actor, Agents: all}}, envs.Options{Seed: seed}); err != nil {
			b.Fatal(err)
		}
		seed++
	}
	b.ReportMetric(float64(time.Since(start).Microseconds())/float64(b.N*steps), "µs/step")
}

// BenchmarkVoronoiEpisode: examples/policies/voronoi.go (its own
// multi-source flood fill on every call) plays one 1000-step episode of
// Gathering large with 10 agents, worker start included. The Python
// reference takes ~8.1 s for an LLM-style Voronoi policy here.
func BenchmarkVoronoiEpisode(b *testing.B) {
	for _, be := range backends {
		b.Run(string(be), func(b *testing.B) {
			benchEpisode(b, example(b, be, "voronoi"), ssd.Gathering, 1000)
		})
	}
}

// BenchmarkRoundTrip measures the sandbox's own cost per step: a policy
// that only returns Stand, 10 agents, so nearly all the time is the state
// snapshot sent to the worker, its decoding and the reply.
func BenchmarkRoundTrip(b *testing.B) {
	const src = "package policy\n\nimport \"ssd\"\n\nfunc Policy(v *ssd.View, agent int) int { return ssd.Stand }\n"
	for _, be := range backends {
		b.Run(string(be), func(b *testing.B) {
			benchEpisode(b, compile(b, newSandbox(b, be), src), ssd.Gathering, 1000)
		})
	}
}

// BenchmarkStart measures starting a worker and loading its policy (a
// 1-step episode), with every confinement layer and with none: the price
// of the namespaces, seccomp and Landlock at start-up.
func BenchmarkStart(b *testing.B) {
	const src = "package policy\n\nimport \"ssd\"\n\nfunc Policy(v *ssd.View, agent int) int { return ssd.Stand }\n"
	for _, be := range backends {
		for _, mode := range []struct {
			name string
			off  worker.Layer
		}{{"confined", 0}, {"unconfined", worker.AllLayers}} {
			b.Run(string(be)+"/"+mode.name, func(b *testing.B) {
				sb := newSandbox(b, be, func(c *Config) { c.Unconfined = mode.off })
				benchEpisode(b, compile(b, sb, src), ssd.Gathering, 1)
			})
		}
	}
}

// BenchmarkSelfPlay is the marginal cost of one self-play episode of
// Gathering large (10 agents, 1000 steps) played inside a reused worker
// and replayed by the host, against the same decisions made in process by
// the built-in policy (envs.Run). The targets: bfs.go within 3x of
// the built-in bfs; a Voronoi-territory policy >= 100x faster than the
// Python reference (~6.7 s per episode).
func BenchmarkSelfPlay(b *testing.B) {
	m, _ := envs.BuiltinMap(ssd.Gathering, "large")
	cfg := envs.Config{Map: m, Agents: 10, MaxSteps: 1000}
	all := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	b.Run("builtin/bfs", func(b *testing.B) {
		env, _ := envs.New(cfg)
		f, _ := envs.Builtin("bfs")
		actor := &envs.PolicyActor{New: f}
		var seed uint64
		for b.Loop() {
			if _, err := envs.Run(context.Background(), env, []envs.Seat{{Actor: actor, Agents: all}}, envs.Options{Seed: seed}); err != nil {
				b.Fatal(err)
			}
			seed++
		}
	})
	for _, be := range backends {
		for _, name := range []string{"bfs", "voronoi"} {
			b.Run(string(be)+"/"+name, func(b *testing.B) {
				prog := example(b, be, name)
				// The worker's start is not the marginal cost.
				if _, err := prog.SelfPlay(context.Background(), cfg, envs.Options{}); err != nil {
					b.Fatal(err)
				}
				var seed uint64
				for b.Loop() {
					if _, err := prog.SelfPlay(context.Background(), cfg, envs.Options{Seed: seed}); err != nil {
						b.Fatal(err)
					}
					seed++
				}
			})
		}
	}
}

// BenchmarkCheck: the admission test on the native backend (Cleanup) of
// examples/policies/bfs.go (cheap) and voronoi.go (a flood per agent and
// step: 6-7 s per episode on yaegi): the smoke test alone, then
// cross-checked on yaegi, then with the whole episode (the determinism
// check over 1000 steps), then both; the differences are the costs of
// the checks (of a first admission: the cross-check's stored verdicts are
// removed before each). The native worker is built once, before the loop.
//
//	go test ./sandbox -run - -bench Check -benchtime 3x
func BenchmarkCheck(b *testing.B) {
	if raceEnabled {
		b.Skip("the yaegi worker cannot run under the race detector")
	}
	for _, policy := range []string{"bfs", "voronoi"} {
		src, err := os.ReadFile(filepath.Join("..", "examples", "policies", policy+".go"))
		if err != nil {
			b.Fatal(err)
		}
		// Build the native worker before any timing.
		if p, err := newSandbox(b, Native).Compile(context.Background(), src); err != nil {
			b.Fatal(err)
		} else {
			p.Close()
		}
		for _, c := range []struct {
			name  string
			skip  bool
			steps int
		}{{"smoke", true, -1}, {"smoke+crosschecked", false, -1}, {"whole", true, 0}, {"whole+crosschecked", false, 0}} {
			b.Run(policy+"/"+c.name, func(b *testing.B) {
				sb := newSandbox(b, Native, func(cfg *Config) { cfg.SkipCrossCheck, cfg.AdmissionSteps = c.skip, c.steps })
				for b.Loop() {
					// The cost of a first admission: no stored verdict.
					b.StopTimer()
					os.RemoveAll(filepath.Join(sb.cfg.CacheDir, "verdicts"))
					b.StartTimer()
					p, err := sb.Check(context.Background(), src, ssd.Cleanup)
					if err != nil {
						b.Fatal(err)
					}
					p.Close()
				}
			})
		}
	}
}
