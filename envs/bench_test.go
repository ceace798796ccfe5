package envs

import (
	"context"
	"testing"

	"policyevolve/envs/ssd"
)

func benchEnv(b *testing.B, game ssd.Game, mapName string, agents int) *Env {
	b.Helper()
	m, err := BuiltinMap(game, mapName)
	if err != nil {
		b.Fatal(err)
	}
	env, err := New(Config{Map: m, Agents: agents})
	if err != nil {
		b.Fatal(err)
	}
	return env
}

// scriptedActions precomputes the golden "scripted" stream for seed 0.
func scriptedActions(game ssd.Game, steps, agents int) [][]int {
	s := &scriptedActor{game: game}
	for i := 0; i < agents; i++ {
		s.agents = append(s.agents, i)
	}
	out := make([][]int, steps)
	st := &ssd.State{}
	for t := range out {
		st.Step = t
		out[t] = make([]int, agents)
		s.Act(context.Background(), st, out[t])
	}
	return out
}

// BenchmarkStep times one environment step with scripted actions (beams,
// cleaning, tags and all); it must not allocate.
func BenchmarkStep(b *testing.B) {
	for _, c := range []struct {
		name   string
		game   ssd.Game
		mapN   string
		agents int
	}{
		{"cleanup-default-10", ssd.Cleanup, "default", 10},
		{"gathering-large-10", ssd.Gathering, "large", 10},
	} {
		b.Run(c.name, func(b *testing.B) {
			env := benchEnv(b, c.game, c.mapN, c.agents)
			acts := scriptedActions(c.game, env.MaxSteps(), c.agents)
			env.Reset(0)
			b.ReportAllocs()
			for b.Loop() {
				if env.Done() {
					env.Reset(0)
				}
				if _, err := env.Step(acts[env.StepCount()]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkEpisodeBFS times one whole 1000-step episode with every agent
// running the built-in greedy BFS collector, through the episode runner.
func BenchmarkEpisodeBFS(b *testing.B) {
	for _, c := range []struct {
		name   string
		game   ssd.Game
		mapN   string
		agents int
	}{
		{"gathering-large-10", ssd.Gathering, "large", 10},
		{"cleanup-default-10", ssd.Cleanup, "default", 10},
	} {
		b.Run(c.name, func(b *testing.B) {
			env := benchEnv(b, c.game, c.mapN, c.agents)
			f, _ := Builtin("bfs")
			all := make([]int, c.agents)
			for i := range all {
				all[i] = i
			}
			seats := []Seat{{Actor: &PolicyActor{New: f}, Agents: all}}
			b.ReportAllocs()
			var seed uint64
			for b.Loop() {
				if _, err := Run(context.Background(), env, seats, Options{Seed: seed}); err != nil {
					b.Fatal(err)
				}
				seed++
			}
		})
	}
}
