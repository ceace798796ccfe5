package qlearn

import (
	"context"
	"testing"

	"policyevolve/envs"
	"policyevolve/envs/ssd"
)

// BenchmarkTrainEpisode trains for one 1000-step episode of the paper's
// setting (10 agents; the large Gathering map, the default Cleanup map)
// per iteration, from an empty table with ε = 1 (episode 0).
//
//	go test -run XXX -bench TrainEpisode ./baselines/qlearn
func BenchmarkTrainEpisode(b *testing.B) {
	for _, c := range []struct {
		game ssd.Game
		m    string
	}{{ssd.Gathering, "large"}, {ssd.Cleanup, "default"}} {
		b.Run(c.game.String()+"-"+c.m, func(b *testing.B) {
			m, err := envs.BuiltinMap(c.game, c.m)
			if err != nil {
				b.Fatal(err)
			}
			seed := uint64(40)
			for b.Loop() {
				if _, err := Train(context.Background(), Config{Map: m, Agents: 10, Episodes: 1, Seed: seed}); err != nil {
					b.Fatal(err)
				}
				seed++
			}
		})
	}
}
