package store

import (
	"slices"
)

// Pooled is a policy's self-play on env over every seed it was ever
// evaluated on there: each seed's latest result, the seeds of every
// evaluation together (the run's evaluation seeds and the seeds of a
// champion's recheck, say). It is the one figure pool ls, pool show and
// the report give for a member, beside the seeds it is measured on.
type Pooled struct {
	Mean  Metrics
	Seeds []uint64 // sorted
	// Failed says the policy's latest evaluation on env failed (Mean
	// then holds the seeds that did not fail, if any).
	Failed bool
}

// PoolEvaluations pools evs, a policy's evaluations, on env; false when
// none is on env.
func PoolEvaluations(evs []Evaluation, env EnvConfig) (Pooled, bool) {
	var on []*Evaluation
	for k := range evs {
		if evs[k].Env == env {
			on = append(on, &evs[k])
		}
	}
	if len(on) == 0 {
		return Pooled{}, false
	}
	slices.SortStableFunc(on, func(a, b *Evaluation) int { return a.Created.Compare(b.Created) })
	var p Pooled
	p.Failed = on[len(on)-1].Status != StatusOK
	latest := map[uint64]Metrics{}
	for _, ev := range on {
		for _, sr := range ev.PerSeed {
			if sr.Status == StatusOK {
				latest[sr.Seed] = sr.Metrics
			}
		}
	}
	for seed := range latest {
		p.Seeds = append(p.Seeds, seed)
	}
	slices.Sort(p.Seeds)
	for _, seed := range p.Seeds { // in seed order: the same sum every time
		m := latest[seed]
		p.Mean.Efficiency += m.Efficiency
		p.Mean.Equality += m.Equality
		p.Mean.Sustainability += m.Sustainability
		p.Mean.Peace += m.Peace
	}
	if n := float64(len(p.Seeds)); n > 0 {
		p.Mean.Efficiency /= n
		p.Mean.Equality /= n
		p.Mean.Sustainability /= n
		p.Mean.Peace /= n
	}
	return p, true
}
