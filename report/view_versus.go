package report

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	"policyevolve/envs"
	"policyevolve/evolve/episode"
	"policyevolve/store"
)

// Versus is two policies side by side, each in self-play on the same
// environment and seed: their replays, what the store holds of their
// evaluations on that seed, and their match on it, if they played one.
type Versus struct {
	Store     string
	Generated time.Time
	A, B      store.Policy
	Env       store.EnvConfig
	Map       *envs.Map // nil when the environment's map cannot be read
	Seed      uint64
	// SeedA and SeedB are their stored self-play results on Seed (nil
	// when not evaluated on it); Match their stored match on it, from
	// A's side (nil when none).
	SeedA, SeedB *store.SeedResult
	Match        *store.Match
	// Seeds are the seeds either was evaluated on in Env.
	Seeds []uint64
}

// LoadVersus reads the two policies unique id prefixes name, in one
// read-only transaction. env (a key such as "gathering/small/4/100"; ""
// for the newest environment both were evaluated on, else A's, else
// B's) and seed (nil: the first seed evaluated there) choose the episode.
func LoadVersus(s *store.Store, a, b, env string, seed *uint64) (*Versus, error) {
	v := &Versus{Store: s.Path(), Generated: time.Now()}
	err := s.View(func(tx *store.Tx) error {
		var err error
		if v.A, v.B, err = findPair(tx, a, b); err != nil {
			return err
		}
		evals := make([][]store.Evaluation, 2)
		for i, id := range []string{v.A.ID, v.B.ID} {
			if evals[i], err = tx.EvaluationsOf(id); err != nil {
				return err
			}
			slices.SortStableFunc(evals[i], func(a, b store.Evaluation) int { return b.Created.Compare(a.Created) })
		}
		if err := v.chooseEnv(env, evals); err != nil {
			return err
		}
		for _, evs := range evals {
			for _, ev := range evs {
				for _, sd := range ev.Seeds {
					if ev.Env == v.Env && !slices.Contains(v.Seeds, sd) {
						v.Seeds = append(v.Seeds, sd)
					}
				}
			}
		}
		slices.Sort(v.Seeds)
		switch {
		case seed != nil:
			v.Seed = *seed
		case len(v.Seeds) > 0:
			v.Seed = v.Seeds[0]
		}
		v.SeedA, v.SeedB = seedResult(evals[0], v.Env, v.Seed), seedResult(evals[1], v.Env, v.Seed)
		m, err := tx.Match(v.A.ID, v.B.ID, v.Env, v.Seed)
		if err == nil {
			v.Match = m
		} else if m, err := tx.Match(v.B.ID, v.A.ID, v.Env, v.Seed); err == nil {
			m.A, m.B, m.ScoreA, m.ScoreB, m.Outcome = m.B, m.A, m.ScoreB, m.ScoreA, 1-m.Outcome
			v.Match = m
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if e, err := episode.ResolveEnv(v.Env.Game, v.Env.Map, v.Env.Agents, v.Env.MaxSteps); err == nil {
		v.Map = e.Map
	}
	return v, nil
}

// seedResult is a policy's newest stored self-play result on env and seed.
func seedResult(evs []store.Evaluation, env store.EnvConfig, seed uint64) *store.SeedResult {
	for _, ev := range evs {
		if ev.Env != env {
			continue
		}
		for k := range ev.PerSeed {
			if ev.PerSeed[k].Seed == seed {
				return &ev.PerSeed[k]
			}
		}
	}
	return nil
}

// chooseEnv picks the environment: the one asked for, else the newest
// both policies were evaluated on, else A's newest, else B's.
func (v *Versus) chooseEnv(key string, evals [][]store.Evaluation) error {
	if key != "" {
		for _, evs := range evals {
			for _, ev := range evs {
				if ev.Env.Key() == key {
					v.Env = ev.Env
					return nil
				}
			}
		}
		e, ok := ParseEnvKey(key)
		if !ok {
			return fmt.Errorf("%w: environment %q: want GAME/MAP/AGENTS/STEPS", ErrBadQuery, key)
		}
		v.Env = e
		return nil
	}
	for _, ea := range evals[0] {
		for _, eb := range evals[1] {
			if ea.Env == eb.Env {
				v.Env = ea.Env
				return nil
			}
		}
	}
	for _, evs := range evals {
		if len(evs) > 0 {
			v.Env = evs[0].Env
			return nil
		}
	}
	return fmt.Errorf("%w: neither %.12s nor %.12s has a self-play evaluation, so no environment to play them on (give env=GAME/MAP/AGENTS/STEPS)",
		ErrNoReplay, v.A.ID, v.B.ID)
}

type versusPage struct {
	Env, Seed string
	Sides     []versusSide
	Match     string
	Seeds     []seedLink
	Diff      string
}

type versusSide struct {
	Policy  policyRef
	Replay  *replayPage
	Outcome string
}

func (v *Versus) page(f *Frame) *page {
	p := &page{Title: fmt.Sprintf("%s and %s on seed %d", short(v.A.ID, 12), short(v.B.ID, 12), v.Seed),
		Generated: v.Generated.Format(time.DateTime), Store: v.Store}
	vp := &versusPage{Env: v.Env.Key(), Seed: strconv.FormatUint(v.Seed, 10), Diff: pairURL(f.DiffPath, v.A.ID, v.B.ID)}
	p.Versus = vp
	for i, pol := range []store.Policy{v.A, v.B} {
		side := versusSide{Policy: refOf(pol, f), Outcome: "not evaluated on this seed"}
		if sr := []*store.SeedResult{v.SeedA, v.SeedB}[i]; sr != nil {
			m := sr.Metrics
			side.Outcome = fmt.Sprintf("stored self-play: %s, %d steps, efficiency %.3f, equality %.3f, sustainability %.1f, peace %.2f",
				sr.Status, sr.Steps, m.Efficiency, m.Equality, m.Sustainability, m.Peace)
		}
		if f.ReplayURL != nil {
			side.Replay = servedReplay(f, ReplayRef{Policy: pol.ID, Env: v.Env, Seed: v.Seed}, v.Map)
		}
		vp.Sides = append(vp.Sides, side)
	}
	if m := v.Match; m != nil {
		result := "a draw"
		switch {
		case m.Outcome > 0.5:
			result = "won by " + short(v.A.ID, 12)
		case m.Outcome < 0.5:
			result = "won by " + short(v.B.ID, 12)
		}
		vp.Match = fmt.Sprintf("Their stored match on this seed (mean per-agent return of each side over both episodes): %.2f – %.2f, %s.",
			m.ScoreA, m.ScoreB, result)
	}
	if f.VersusPath != "" {
		for _, sd := range v.Seeds {
			u := pairURL(f.VersusPath, v.A.ID, v.B.ID) + "&env=" + v.Env.Key() + "&seed=" + strconv.FormatUint(sd, 10)
			vp.Seeds = append(vp.Seeds, seedLink{Seed: strconv.FormatUint(sd, 10), Href: u, Current: sd == v.Seed})
		}
	}
	return p
}
