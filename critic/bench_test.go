package critic_test

import (
	"testing"

	"policyevolve/critic"
	"policyevolve/envs"
	"policyevolve/envs/ssd"
)

// BenchmarkDiagnose measures the critic on one recorded 1000-step episode
// of the paper's maps with 10 agents: derivation of the events, every
// measure, and the analytic reflections.
func BenchmarkDiagnose(b *testing.B) {
	for _, c := range []struct {
		game   ssd.Game
		policy string
	}{{ssd.Gathering, "bfs"}, {ssd.Gathering, "exploit"}, {ssd.Cleanup, "random"}} {
		b.Run(c.game.String()+"_"+c.policy, func(b *testing.B) {
			t := &testing.T{}
			env := paperEnv(t, c.game, envs.DefaultAgents)
			eps := []critic.Episode{{Trajectory: play(t, env, 0, make([]int, envs.DefaultAgents), builtin(t, c.policy))}}
			b.ResetTimer()
			for b.Loop() {
				d, err := critic.Diagnose(eps, critic.Config{})
				if err != nil {
					b.Fatal(err)
				}
				critic.Analytic{}.Reflect(d)
			}
		})
	}
}
