package qlearn

import (
	"context"
	"fmt"

	"policyevolve/envs"
	"policyevolve/envs/ssd"
)

// Actor plays a trained Table greedily, as the reference's make_q_policy_fn
// does: a tagged-out agent stands; any other takes the action of highest
// value in its state (0, forward, in a state the table never visited). It
// draws no random numbers and changes nothing in the table, so one Table
// may back any number of Actors.
type Actor struct {
	t      *Table
	agents []int
	f      *featurizer
}

var _ envs.Actor = (*Actor)(nil)

// NewActor returns an Actor for t.
func NewActor(t *Table) *Actor { return &Actor{t: t} }

// Begin checks that the game is the table's.
func (a *Actor) Begin(_ context.Context, info envs.EpisodeInfo) error {
	if info.Layout.Game != a.t.Game {
		return fmt.Errorf("the Q-table was trained on %s and cannot play %s", a.t.Game, info.Layout.Game)
	}
	if a.f == nil || a.f.lay != info.Layout {
		a.f = newFeaturizer(info.Layout)
	}
	a.agents = info.Agents
	return nil
}

func (a *Actor) Act(_ context.Context, st *ssd.State, actions []int) error {
	for _, i := range a.agents {
		if st.Timeout[i] > 0 {
			actions[i] = ssd.Stand
			continue
		}
		actions[i] = a.t.greedy(a.f.key(st, i))
	}
	return nil
}

func (a *Actor) End() error { return nil }
