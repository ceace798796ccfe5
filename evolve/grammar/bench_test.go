package grammar

import (
	"context"
	"fmt"
	"math/rand"
	"testing"
	"time"

	"policyevolve/envs"
	"policyevolve/envs/ssd"
	"policyevolve/sandbox"
)

// benchGenomes are the genomes the evaluation benchmarks cycle through:
// random ones, as a search meets them.
func benchGenomes(game ssd.Game) []Genome {
	rng := rand.New(rand.NewSource(2026))
	out := make([]Genome, 8)
	for i := range out {
		out[i] = Random(game, space10, rng)
	}
	return out
}

var allTen = []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}

func benchEpisode(b *testing.B, game ssd.Game, actor func(i int) envs.Actor) {
	m, err := envs.BuiltinMap(game, envs.DefaultMap(game))
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		env, err := envs.New(envs.Config{Map: m, Agents: 10})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := envs.Run(context.Background(), env, []envs.Seat{{Actor: actor(i), Agents: allTen}}, envs.Options{Seed: uint64(i)}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "evals/s")
}

// BenchmarkEvalInProcess: one genome evaluation is one self-play episode
// of 10 agents and 1000 steps on the game's default map, the genome run
// in process. Run with
//
//	go test ./evolve/grammar -run - -bench Eval -benchtime 16x
func BenchmarkEvalInProcess(b *testing.B) {
	for _, game := range []ssd.Game{ssd.Gathering, ssd.Cleanup} {
		b.Run(game.String(), func(b *testing.B) {
			gs := benchGenomes(game)
			benchEpisode(b, game, func(i int) envs.Actor { return gs[i%len(gs)].Actor() })
		})
	}
}

// BenchmarkEvalSandbox: the same episodes with the rendered sources run
// by the sandbox, compiled beforehand (a native build costs about a second
// more per new genome; see BenchmarkBuildNative).
func BenchmarkEvalSandbox(b *testing.B) {
	ctx := context.Background()
	for _, be := range []sandbox.Backend{sandbox.Native, sandbox.Yaegi} {
		for _, game := range []ssd.Game{ssd.Gathering, ssd.Cleanup} {
			b.Run(fmt.Sprintf("%s/%s", be, game), func(b *testing.B) {
				sb, err := sandbox.New(sandbox.Config{Backend: be, CacheDir: testCache})
				if err != nil {
					b.Fatal(err)
				}
				var progs []*sandbox.Program
				for _, g := range benchGenomes(game) {
					src, err := Render(g)
					if err != nil {
						b.Fatal(err)
					}
					p, err := sb.Compile(ctx, src)
					if err != nil {
						b.Fatal(err)
					}
					progs = append(progs, p)
				}
				benchEpisode(b, game, func(i int) envs.Actor { return progs[i%len(progs)].Actor() })
			})
		}
	}
}

// BenchmarkBuildNative: compiling a new genome's source into a native
// worker (the worker cache is empty for each).
func BenchmarkBuildNative(b *testing.B) {
	sb, err := sandbox.New(sandbox.Config{Backend: sandbox.Native, CacheDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewSource(77))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		src, err := Render(Random(ssd.Gathering, space10, rng))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := sb.Compile(context.Background(), src); err != nil {
			b.Fatal(err)
		}
	}
}

// figureRuns are the searches BenchmarkFigures runs per game (GA seeds
// 1..figureRuns).
const figureRuns = 3

// BenchmarkFigures measures the figures of the offline planner in docs/offline-planner.md:
// for each game (default map, 10 agents, 1000 steps), a search from a
// random population of 16 genomes scored in process on training seeds
// 1000-1002, and the best genome after 1, 5 and 20 generations scored on
// the held-out seeds 0-4, with the wall time to reach it; the built-in
// bfs on the same held-out seeds for comparison. It takes minutes:
//
//	go test ./evolve/grammar -run - -bench Figures -benchtime 1x -timeout 60m -v
func BenchmarkFigures(b *testing.B) {
	checkpoints := []int{1, 5, 20}
	held := []uint64{0, 1, 2, 3, 4}
	for _, game := range []ssd.Game{ssd.Gathering, ssd.Cleanup} {
		b.Run(game.String(), func(b *testing.B) {
			m, err := envs.BuiltinMap(game, envs.DefaultMap(game))
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			test := &Evaluator{Map: m, Agents: 10, Seeds: held, Workers: 2}
			bfs, err := envs.Builtin("bfs")
			if err != nil {
				b.Fatal(err)
			}
			base := 0.0
			for _, seed := range held {
				env, _ := envs.New(envs.Config{Map: m, Agents: 10})
				res, err := envs.Run(ctx, env, []envs.Seat{{Actor: &envs.PolicyActor{New: bfs}, Agents: allTen}}, envs.Options{Seed: seed})
				if err != nil {
					b.Fatal(err)
				}
				base += res.Metrics.Efficiency / float64(len(held))
			}
			sums := make([]float64, len(checkpoints))
			secs := make([]float64, len(checkpoints))
			for n := 0; n < b.N; n++ {
				for run := 1; run <= figureRuns; run++ {
					train := &Evaluator{Map: m, Agents: 10, Seeds: TrainSeeds, Workers: 2}
					start := time.Now()
					var at []Genome
					var when []time.Duration
					var played []int
					_, err := Search(ctx, train, SearchConfig{Game: game, Space: space10, PopSize: 16, Generations: 20, Seed: uint64(run),
						OnGeneration: func(gen int, best Genome, _ float64) {
							for _, c := range checkpoints {
								if gen == c {
									at, when = append(at, best), append(when, time.Since(start))
									played = append(played, train.Played())
								}
							}
						}})
					if err != nil {
						b.Fatal(err)
					}
					line := fmt.Sprintf("%s run %d:", game, run)
					for i, g := range at {
						s, err := test.Score(ctx, g)
						if err != nil {
							b.Fatal(err)
						}
						sums[i] += s / figureRuns
						secs[i] += when[i].Seconds() / figureRuns
						line += fmt.Sprintf(" gen %d %.3f (%.0f s, %d genomes);", checkpoints[i], s, when[i].Seconds(), played[i])
					}
					b.Log(line, " best: ", at[len(at)-1].Describe())
				}
			}
			for i, c := range checkpoints {
				b.ReportMetric(sums[i]/float64(b.N), fmt.Sprintf("eff@%d", c))
				b.ReportMetric(secs[i]/float64(b.N), fmt.Sprintf("s@%d", c))
			}
			b.ReportMetric(base, "bfs-eff")
		})
	}
}
