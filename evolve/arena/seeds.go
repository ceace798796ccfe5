package arena

import (
	"context"
	"fmt"
	"sync"

	"policyevolve/envs"
	"policyevolve/evolve/episode"
	"policyevolve/store"
)

// playSeeds plays one episode per seed, the seats given by side (a
// policy's index in ids per agent), at once as slots allow; results and
// errors are in seed order.
func (a *Arena) playSeeds(ctx context.Context, ids []string, side []int, seeds []uint64) ([]*envs.Result, []error) {
	results := make([]*envs.Result, len(seeds))
	errs := make([]error, len(seeds))
	var wg sync.WaitGroup
	for k, seed := range seeds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[k], errs[k] = a.play(ctx, ids, side, seed)
		}()
	}
	wg.Wait()
	return results, errs
}

// foldSeed adds one seed's episode to ev: its SeedResult is appended,
// and, when it played (ok), its metrics are added to ev.Mean (meanOver
// divides them); a policy's failure marks ev and the seed failed. Any
// other error is the system's, returned wrapped with what (the caller's
// words for the evaluation).
func foldSeed(ev *store.Evaluation, seed uint64, res *envs.Result, err error, what string) (sr store.SeedResult, ok bool, _ error) {
	sr = store.SeedResult{Seed: seed, Status: store.StatusOK}
	if res != nil {
		sr.Steps, sr.Returns = res.Steps, res.Returns
		sr.Metrics = store.Metrics(res.Metrics)
	}
	switch {
	case err == nil:
		ok = true
		ev.Mean.Efficiency += sr.Metrics.Efficiency
		ev.Mean.Equality += sr.Metrics.Equality
		ev.Mean.Sustainability += sr.Metrics.Sustainability
		ev.Mean.Peace += sr.Metrics.Peace
	case episode.PolicyFailure(err):
		sr.Status, sr.Error, sr.Kind = store.StatusFailed, err.Error(), episode.FailureKind(err)
		ev.Status = store.StatusFailed
		if ev.Error == "" {
			ev.Error = fmt.Sprintf("seed %d: %v", seed, err)
		}
	default:
		return sr, false, fmt.Errorf("%s, seed %d: %w", what, seed, err)
	}
	ev.PerSeed = append(ev.PerSeed, sr)
	return sr, ok, nil
}

// meanOver turns the sums foldSeed made of ev.Mean into means over the
// ok seeds that played (none: left at zero).
func meanOver(ev *store.Evaluation, ok int) {
	if ok == 0 {
		return
	}
	k := float64(ok)
	ev.Mean.Efficiency /= k
	ev.Mean.Equality /= k
	ev.Mean.Sustainability /= k
	ev.Mean.Peace /= k
}
