package arena

import (
	"context"
	"fmt"

	"policyevolve/envs"
	"policyevolve/envs/ssd"
	"policyevolve/evolve/episode"
	"policyevolve/store"
)

// TransferRow is a policy's self-play on one map: mean metrics over the
// seeds that completed.
type TransferRow struct {
	Map     string        `json:"map"` // a built-in name or the map file
	Env     string        `json:"env"`
	Metrics store.Metrics `json:"metrics"`
	Seeds   int           `json:"seeds"`            // seeds that completed
	Failed  []string      `json:"failed,omitempty"` // the others, with why
}

// TransferMaps are the built-in maps of game followed by extra map files:
// where a transfer test plays.
func TransferMaps(game ssd.Game, extra []string) []string {
	return append(envs.BuiltinMaps(game), extra...)
}

// Transfer plays actor in self-play (every agent) on each map, with the
// given agents, steps and seeds: how a policy evolved on one map does on
// the others. A policy's failure on a seed is recorded in its row; any
// other error (a map that does not load) is returned.
func Transfer(ctx context.Context, game ssd.Game, maps []string, agents, steps int, actor envs.Actor, seeds []uint64) ([]TransferRow, error) {
	var rows []TransferRow
	all := make([]int, agents)
	for i := range all {
		all[i] = i
	}
	for _, spec := range maps {
		env, err := episode.ResolveEnv(game.String(), spec, agents, steps)
		if err != nil {
			return nil, fmt.Errorf("transfer: %w", err)
		}
		e, err := envs.New(envs.Config{Map: env.Map, Agents: agents, MaxSteps: steps})
		if err != nil {
			return nil, fmt.Errorf("transfer: map %s: %w", spec, err)
		}
		row := TransferRow{Map: spec, Env: env.Config.String()}
		for _, seed := range seeds {
			res, err := envs.Run(ctx, e, []envs.Seat{{Actor: actor, Agents: all}}, envs.Options{Seed: seed, Verify: true})
			if err != nil {
				if !episode.PolicyFailure(err) {
					return nil, fmt.Errorf("transfer: map %s, seed %d: %w", spec, seed, err)
				}
				row.Failed = append(row.Failed, fmt.Sprintf("seed %d: %v", seed, err))
				continue
			}
			m := res.Metrics
			row.Metrics.Efficiency += m.Efficiency
			row.Metrics.Equality += m.Equality
			row.Metrics.Sustainability += m.Sustainability
			row.Metrics.Peace += m.Peace
			row.Seeds++
		}
		if k := float64(row.Seeds); k > 0 {
			row.Metrics.Efficiency /= k
			row.Metrics.Equality /= k
			row.Metrics.Sustainability /= k
			row.Metrics.Peace /= k
		}
		rows = append(rows, row)
	}
	return rows, nil
}
