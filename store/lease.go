package store

import (
	"errors"
	"fmt"
	"os"
	"time"
)

// A run has one owner at a time: the process that drives it (evolve, or
// evolve --resume) holds its lease, a record in the leases bucket naming
// the process (pid, host, the process's start time) and renewed by a
// heartbeat. A second driver of a run whose owner lives is refused
// (ErrLeaseHeld); a run whose owner is gone reads "interrupted"
// (StatusInterrupted, never stored) and a resume takes its lease over.
//
// Whether an owner lives is decided by the Holder that asks: on the
// owner's own host, by the process (kill(pid, 0), and its start time
// against the reuse of a pid); from another host, by the heartbeat, older
// than StaleAfter meaning gone. The leases bucket is created by the first
// lease taken; a store without it has no owners.

// Lease timing.
const (
	// HeartbeatEvery is how often an owner renews its lease.
	HeartbeatEvery = 15 * time.Second
	// StaleAfter is how old a heartbeat may be before another host takes
	// its owner for gone: eight missed heartbeats, far more than a store
	// busy for its whole lock timeout (10 s by default) can delay.
	StaleAfter = 2 * time.Minute
)

// StatusInterrupted is how a run stored running reads when its owner is
// gone (killed, crashed, its machine down): a status for display, never
// stored. `evolve --resume` continues it.
const StatusInterrupted = "interrupted"

// Errors of leases, for callers to branch on.
var (
	// ErrLeaseHeld: the run is driven by another process that lives. The
	// error is a *LeaseHeldError naming it.
	ErrLeaseHeld = errors.New("the run is driven by another process")
	// ErrLeaseLost: the lease renewed or released is no longer this
	// owner's (another process took the run over, taking this owner for
	// gone).
	ErrLeaseLost = errors.New("the run's lease was taken over")
)

var bLeases = []byte("leases") // run id → Lease; created on first use

// Lease says which process drives a run.
type Lease struct {
	Run  string `json:"run"`
	PID  int    `json:"pid"`
	Host string `json:"host"`
	// ProcStart is the owner process's start time as its host counts it
	// (Linux: clock ticks since boot, /proc/PID/stat); 0 when unknown. It
	// tells a live owner from a new process that reuses its pid.
	ProcStart uint64 `json:"proc_start,omitempty"`
	// Since is when the lease was taken; Heartbeat when it was last
	// renewed (UTC).
	Since     time.Time `json:"since"`
	Heartbeat time.Time `json:"heartbeat"`
}

// String names the owner for people: "pid 1234 on host h since 15:04:05".
func (l *Lease) String() string {
	return fmt.Sprintf("pid %d on host %s since %s", l.PID, l.Host, l.Since.Local().Format(time.DateTime))
}

// LeaseHeldError is the refusal of a lease another process holds.
type LeaseHeldError struct {
	Lease *Lease
	// Heartbeat is how old its heartbeat was.
	Heartbeat time.Duration
}

func (e *LeaseHeldError) Error() string {
	return fmt.Sprintf("run %s is driven by %s (heartbeat %s ago)", e.Lease.Run, e.Lease, e.Heartbeat.Round(time.Second))
}

func (e *LeaseHeldError) Unwrap() error { return ErrLeaseHeld }

// Holder is a process as leases see it: who takes one, and the judge of
// whether another's owner lives. Self is this process; tests inject
// hosts, clocks and liveness.
type Holder struct {
	Host      string
	PID       int
	ProcStart uint64
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// Alive reports whether process pid, started at start (0: unknown),
	// runs on this host (processAlive when nil).
	Alive func(pid int, start uint64) bool
}

// Self is this process as a Holder.
func Self() Holder {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "unknown-host"
	}
	pid := os.Getpid()
	return Holder{Host: host, PID: pid, ProcStart: processStart(pid)}
}

func (h Holder) now() time.Time {
	if h.Now != nil {
		return h.Now().UTC()
	}
	return time.Now().UTC()
}

// Owns says whether l is h's own lease.
func (h Holder) Owns(l *Lease) bool {
	return l.Host == h.Host && l.PID == h.PID && l.ProcStart == h.ProcStart
}

// Live says whether l's owner drives its run still, as h can tell: on
// h's host by the process, from another host by the heartbeat's age.
func (h Holder) Live(l *Lease) bool {
	if l.Host == h.Host {
		alive := h.Alive
		if alive == nil {
			alive = processAlive
		}
		return alive(l.PID, l.ProcStart)
	}
	return h.now().Sub(l.Heartbeat) <= StaleAfter
}

// Lease returns run's lease; an error wrapping ErrNotFound when it has
// none (it never had an owner under a version with leases, or its owner
// released it).
func (tx *Tx) Lease(run string) (*Lease, error) {
	b := tx.b.Bucket(bLeases)
	if b == nil {
		return nil, fmt.Errorf("lease of %s: %w", run, ErrNotFound)
	}
	l := &Lease{}
	if err := get(b, []byte(run), l); err != nil {
		return nil, fmt.Errorf("lease of %s: %w", run, err)
	}
	return l, nil
}

// TakeLease makes h the owner of run, unless another process that lives
// (as h judges it) holds the lease: then a *LeaseHeldError. A lease whose
// owner is gone is taken over.
func (tx *Tx) TakeLease(run string, h Holder) (*Lease, error) {
	now := h.now()
	if old, err := tx.Lease(run); err == nil && !h.Owns(old) && h.Live(old) {
		return nil, &LeaseHeldError{Lease: old, Heartbeat: now.Sub(old.Heartbeat)}
	} else if err != nil && !errors.Is(err, ErrNotFound) {
		return nil, err
	}
	b, err := tx.b.CreateBucketIfNotExists(bLeases)
	if err != nil {
		return nil, err
	}
	l := &Lease{Run: run, PID: h.PID, Host: h.Host, ProcStart: h.ProcStart, Since: now, Heartbeat: now}
	return l, put(b, []byte(run), l)
}

// RenewLease records a heartbeat of h's lease of run; ErrLeaseLost when
// the lease is no longer h's.
func (tx *Tx) RenewLease(run string, h Holder) error {
	l, err := tx.Lease(run)
	if errors.Is(err, ErrNotFound) || err == nil && !h.Owns(l) {
		return fmt.Errorf("run %s: %w", run, ErrLeaseLost)
	}
	if err != nil {
		return err
	}
	l.Heartbeat = h.now()
	return put(tx.b.Bucket(bLeases), []byte(run), l)
}

// ReleaseLease ends h's lease of run; ErrLeaseLost when it is no longer
// h's (nothing is changed then).
func (tx *Tx) ReleaseLease(run string, h Holder) error {
	l, err := tx.Lease(run)
	if errors.Is(err, ErrNotFound) || err == nil && !h.Owns(l) {
		return fmt.Errorf("run %s: %w", run, ErrLeaseLost)
	}
	if err != nil {
		return err
	}
	return tx.b.Bucket(bLeases).Delete([]byte(run))
}

// Standing is a run's status as it stands, for display: its stored
// status, except that a run stored running whose owner is gone (or that
// has no lease) reads StatusInterrupted. Owner is the run's lease when it
// has one (nil otherwise).
func (tx *Tx) Standing(r *Run, h Holder) (status string, owner *Lease, err error) {
	l, err := tx.Lease(r.ID)
	switch {
	case errors.Is(err, ErrNotFound):
		l = nil
	case err != nil:
		return "", nil, err
	}
	if r.Status == StatusRunning && (l == nil || !h.Live(l)) {
		return StatusInterrupted, l, nil
	}
	return r.Status, l, nil
}

// MarkInterrupted sets, in runs (not in the store), the status of every
// run whose owner is gone to StatusInterrupted with a StopReason naming
// the owner (see Standing).
func (tx *Tx) MarkInterrupted(runs []Run, h Holder) error {
	for i := range runs {
		if runs[i].Status != StatusRunning {
			continue
		}
		status, owner, err := tx.Standing(&runs[i], h)
		if err != nil {
			return err
		}
		if status == StatusInterrupted {
			runs[i].Status, runs[i].StopReason = status, InterruptedReason(owner)
		}
	}
	return nil
}

// InterruptedReason says, in words, why a run reads interrupted: its
// owner (nil: none recorded) is gone.
func InterruptedReason(owner *Lease) string {
	if owner == nil {
		return "its process is gone (no owner recorded)"
	}
	return fmt.Sprintf("its owner, %s, is gone", owner)
}
