package arena

import (
	"context"
	"fmt"

	"policyevolve/baselines/qlearn"
	"policyevolve/evolve/episode"
)

// ImportQTable admits a trained Q-table into the global pool as a
// baseline member, as Import does for a source (stored, evaluated in
// self-play, rated against opponents drawn with rngSeed, pool trimmed) but
// without the sandbox: a table is data. It must be a table of the
// arena's game.
func (a *Arena) ImportQTable(ctx context.Context, t *qlearn.Table, name string, rngSeed uint64) (*ImportReport, error) {
	a.defaults()
	if game := t.Game.String(); game != a.Env.Config.Game {
		return nil, fmt.Errorf("the Q-table was trained on %s; the pool %s is a %s pool", game, a.GlobalPool(), a.Env.Config.Game)
	}
	p, err := episode.QLearnPolicy(t, name)
	if err != nil {
		return nil, err
	}
	return a.admit(ctx, p, "baseline", rngSeed)
}
