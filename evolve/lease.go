package evolve

import (
	"context"
	"errors"
	"time"

	"policyevolve/store"
)

// ErrLeaseLost: while the job ran, another process took its run over
// (it judged this one gone: a heartbeat older than store.StaleAfter seen
// from another host). The job stopped without writing the run's status.
var ErrLeaseLost = store.ErrLeaseLost

// owner is this job's lease of its run: who holds it (Job.Owner, or this
// process), the heartbeat that renews it, and whether it was lost.
type owner struct {
	holder store.Holder
	held   bool
	stop   func() // stops the heartbeat; nil when none runs
	lost   bool   // written by the heartbeat goroutine before it cancels the job's context
}

// holder is the identity the job's lease names.
func (j *Job) holder() store.Holder {
	if j.Owner.PID == 0 {
		j.Owner = store.Self()
	}
	return j.Owner
}

// takeLease makes this process the owner of the run (in tx): a
// *store.LeaseHeldError when a live process drives it.
func (j *Job) takeLease(tx *store.Tx, run string) error {
	if _, err := tx.TakeLease(run, j.holder()); err != nil {
		return err
	}
	j.lease.holder, j.lease.held = j.holder(), true
	return nil
}

// beat renews the lease every store.HeartbeatEvery until stopped; when
// the lease was taken over it cancels the job (cancel) with ErrLeaseLost.
func (j *Job) beat(ctx context.Context, cancel context.CancelCauseFunc) {
	every := j.HeartbeatEvery
	if every <= 0 {
		every = store.HeartbeatEvery
	}
	done, stopped := make(chan struct{}), make(chan struct{})
	run, h := j.RunID, j.lease.holder
	go func() {
		defer close(stopped)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
			}
			err := j.Store.Update(func(tx *store.Tx) error { return tx.RenewLease(run, h) })
			if errors.Is(err, store.ErrLeaseLost) {
				j.mu.Lock()
				j.lease.lost = true
				j.mu.Unlock()
				cancel(err)
				return
			}
			if err != nil && j.Log != nil {
				j.Log("heartbeat of run %s: %v (next in %v)", run, err, every)
			}
		}
	}()
	j.lease.stop = func() { close(done); <-stopped }
}

// leaseLost says whether the heartbeat found the lease taken over.
func (j *Job) leaseLost() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.lease.lost
}

// releaseLease stops the heartbeat and ends the lease (unless it was
// lost: then the new owner's stands).
func (j *Job) releaseLease() {
	if j.lease.stop != nil {
		j.lease.stop()
		j.lease.stop = nil
	}
	if !j.lease.held || j.leaseLost() {
		return
	}
	j.lease.held = false
	err := j.Store.Update(func(tx *store.Tx) error { return tx.ReleaseLease(j.RunID, j.lease.holder) })
	if err != nil && j.Log != nil {
		j.Log("release the lease of run %s: %v", j.RunID, err)
	}
}
