package arena

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"policyevolve/envs"
	"policyevolve/evolve/episode"
	"policyevolve/store"
)

// Invasion is one invasion test (the paper's Table 2 seating): K agents
// run the invader A, the other N−K the residents B. Agents 0…K−1 are the
// invaders, as the reference seats its attacker on agent 0.
type Invasion struct {
	K int `json:"k"`
	// A and B are the mean per-agent returns of each side over the seeds;
	// a side with no agents has none (its Agents is 0).
	A SideReturn `json:"a"`
	B SideReturn `json:"b"`
	// Failed names the seeds whose episode stopped early because a policy
	// failed; the returns cover the steps played.
	Failed []string `json:"failed,omitempty"`
}

// SideReturn is one side's mean per-agent return.
type SideReturn struct {
	Agents int     `json:"agents"`
	Return float64 `json:"return"`
}

// Invade plays invader a (k agents) among residents b (n−k) on each seed
// and returns the sides' mean per-agent returns. k = 0 is b's self-play,
// k = n a's. A policy that fails ends its episode there, recorded in
// Failed; any other error is returned.
func Invade(ctx context.Context, env episode.Env, a, b envs.Actor, k int, seeds []uint64) (*Invasion, error) {
	n := env.Config.Agents
	if k < 0 || k > n {
		return nil, fmt.Errorf("invade: k = %d invaders among %d agents", k, n)
	}
	inv := &Invasion{K: k, A: SideReturn{Agents: k}, B: SideReturn{Agents: n - k}}
	var invaders, residents []int
	for i := range n {
		if i < k {
			invaders = append(invaders, i)
		} else {
			residents = append(residents, i)
		}
	}
	var seats []envs.Seat
	if k > 0 {
		seats = append(seats, envs.Seat{Actor: a, Agents: invaders})
	}
	if k < n {
		seats = append(seats, envs.Seat{Actor: b, Agents: residents})
	}
	e, err := envs.New(envs.Config{Map: env.Map, Agents: n, MaxSteps: env.Config.MaxSteps})
	if err != nil {
		return nil, err
	}
	mean := func(agents []int, returns []float64) float64 {
		sum := 0.0
		for _, i := range agents {
			sum += returns[i]
		}
		return sum / float64(len(agents))
	}
	for _, seed := range seeds {
		res, err := envs.Run(ctx, e, seats, envs.Options{Seed: seed, Verify: true})
		if err != nil {
			if !episode.PolicyFailure(err) || res == nil {
				return nil, fmt.Errorf("invade: seed %d: %w", seed, err)
			}
			inv.Failed = append(inv.Failed, fmt.Sprintf("seed %d: stopped after %d steps: %v", seed, res.Steps, err))
		}
		if k > 0 {
			inv.A.Return += mean(invaders, res.Returns) / float64(len(seeds))
		}
		if k < n {
			inv.B.Return += mean(residents, res.Returns) / float64(len(seeds))
		}
	}
	return inv, nil
}

// Actor returns a stored policy ready to play seats of an episode: a
// built-in (or Q-table) in process, a source through the sandbox
// (compiled once, like every arena episode).
func (a *Arena) Actor(ctx context.Context, id string) (envs.Actor, error) {
	a.defaults()
	p, prog, err := a.program(ctx, id)
	if err != nil {
		return nil, err
	}
	if prog != nil {
		return prog.Actor(), nil
	}
	return episode.BuiltinActor(p)
}

// InvasionTest seats one agent of each invader among residents (k = 1)
// on the arena's match seeds and returns the worst invasion: the invader
// that gains most over the residents — its per-agent return minus theirs
// — (ties: the smaller id), with the residents' mean per-agent return in
// it; no invader ("", gain 0) when none earns more than the residents.
// Its episodes count in Episodes.
// Resists is left to the caller, who knows the margin. Nothing is stored:
// the episodes are pure functions of the policies and seeds, so the test
// gives the same answer when repeated.
func (a *Arena) InvasionTest(ctx context.Context, resident string, invaders []string) (store.Invasion, error) {
	b, err := a.Actor(ctx, resident)
	if err != nil {
		return store.Invasion{}, err
	}
	var w store.Invasion
	for _, id := range invaders {
		if id == resident {
			continue
		}
		inv, err := a.Actor(ctx, id)
		if err != nil {
			return store.Invasion{}, err
		}
		r, err := Invade(ctx, a.Env, inv, b, 1, a.MatchSeeds)
		if err != nil {
			return store.Invasion{}, err
		}
		a.episodes.Add(int64(len(a.MatchSeeds)))
		if m := r.A.Return - r.B.Return; m > w.Gain || (m == w.Gain && w.Invader != "" && id < w.Invader) {
			w = store.Invasion{Invader: id, Gain: m, Residents: r.B.Return}
		}
	}
	return w, nil
}

// WorstInvader is InvasionTest's invader and gain.
func (a *Arena) WorstInvader(ctx context.Context, resident string, invaders []string) (string, float64, error) {
	w, err := a.InvasionTest(ctx, resident, invaders)
	return w.Invader, w.Gain, err
}

// Invasion returns the invasion evaluation of the policy id: Invaders agents
// (0…Invaders−1) run it among residents running Against on the EvalSeeds (the
// exploit objective's score), playing it only if the store has none, and
// storing it. A policy that fails on a seed is a failed evaluation, not
// an error; Invader and Residents are the sides' mean per-agent returns
// over the seeds that completed.
func (a *Arena) Invasion(ctx context.Context, id string) (*store.Evaluation, error) {
	a.defaults()
	return a.InvasionOn(ctx, id, a.EvalSeeds)
}

// InvasionOn is Invasion over other seeds (a set), as when a contender
// for champion is rechecked (search.Rechecker).
func (a *Arena) InvasionOn(ctx context.Context, id string, seeds []uint64) (*store.Evaluation, error) {
	a.defaults()
	n := a.Env.Config.Agents
	if a.Against == "" || a.Invaders < 1 || a.Invaders >= n {
		return nil, fmt.Errorf("invasion of %.12s: no target (against %q, k = %d among %d agents)", id, a.Against, a.Invaders, n)
	}
	if len(seeds) == 0 {
		return nil, fmt.Errorf("invasion of %.12s: no seeds", id)
	}
	seeds = slices.Compact(slices.Sorted(slices.Values(seeds)))
	var ev *store.Evaluation
	err := a.Store.View(func(tx *store.Tx) (err error) {
		ev, err = tx.InvasionEvaluation(id, a.Env.Config, seeds, a.Against, a.Invaders)
		return err
	})
	if err == nil {
		return ev, nil
	}
	if !errors.Is(err, store.ErrNotFound) {
		return nil, err
	}
	side := make([]int, n)
	for i := a.Invaders; i < n; i++ {
		side[i] = 1
	}
	results, errs := a.playSeeds(ctx, []string{id, a.Against}, side, seeds)
	ev = &store.Evaluation{Policy: id, Env: a.Env.Config, Seeds: seeds, Status: store.StatusOK, Against: a.Against, K: a.Invaders, Backend: a.scoredBy(id)}
	ok := 0
	for k, seed := range seeds {
		sr, played, err := foldSeed(ev, seed, results[k], errs[k], fmt.Sprintf("invasion of %.12s", id))
		if err != nil {
			return nil, err
		}
		if played {
			ok++
			ev.Invader += perAgent(sr.Returns[:a.Invaders])
			ev.Residents += perAgent(sr.Returns[a.Invaders:])
		}
	}
	meanOver(ev, ok)
	if ok > 0 {
		ev.Invader /= float64(ok)
		ev.Residents /= float64(ok)
	}
	if err := a.Store.Update(func(tx *store.Tx) error { return tx.PutEvaluation(ev) }); err != nil {
		return nil, err
	}
	a.logf("invasion of %.12s (%d among %.12s): %s, invader return %.1f, residents %.1f", id, a.Invaders, a.Against, ev.Status, ev.Invader, ev.Residents)
	return ev, nil
}
