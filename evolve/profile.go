package evolve

import (
	"encoding/json"
	"fmt"
	"sync/atomic"
	"time"

	"policyevolve/store"
)

// Activity is one kind of work a job spends time on.
type Activity int

// The activities a Profile tells apart.
const (
	Planning  Activity = iota // planner and critic calls (an LLM's answer, the grammar's search)
	Checking                  // admission: validation, compilation and the smoke test of a proposal
	Compiling                 // building a stored policy's worker to play it
	Playing                   // episodes: self-play evaluations, matches, recorded trajectories
	Storing                   // store transactions
	activities
)

var activityNames = [activities]string{"planning", "checking", "compiling", "playing", "storing"}

func (a Activity) String() string {
	if a < 0 || a >= activities {
		return fmt.Sprintf("activity(%d)", int(a))
	}
	return activityNames[a]
}

// Profile adds up the time a job's goroutines spend on each activity, and
// the episodes played. Activities run concurrently (episodes on several
// workers, planner calls at once), so the sums can exceed the wall time;
// their shares say where the work goes. A nil *Profile records nothing.
//
// Storing is read from the store's own clock (store.Store.Busy), counted
// from the moment the Profile is made by NewProfile.
type Profile struct {
	busy     [activities]atomic.Int64 // nanoseconds
	episodes atomic.Int64
	store    *store.Store
	stored0  time.Duration
}

// NewProfile returns a Profile that reads its storing time from st (nil:
// none).
func NewProfile(st *store.Store) *Profile {
	p := &Profile{store: st}
	if st != nil {
		p.stored0 = st.Busy()
	}
	return p
}

// start begins timing an activity; call the returned function when it
// ends.
func (p *Profile) start(a Activity) func() {
	if p == nil {
		return func() {}
	}
	t := time.Now()
	return func() { p.busy[a].Add(int64(time.Since(t))) }
}

// add records d on activity a.
func (p *Profile) add(a Activity, d time.Duration) {
	if p != nil {
		p.busy[a].Add(int64(d))
	}
}

// Snapshot returns the totals so far.
func (p *Profile) Snapshot() ProfileTotals {
	var t ProfileTotals
	if p == nil {
		return t
	}
	for a := range activities {
		t.Busy[a] = time.Duration(p.busy[a].Load())
	}
	t.Episodes = int(p.episodes.Load())
	if p.store != nil {
		t.Busy[Storing] += p.store.Busy() - p.stored0
	}
	return t
}

// ProfileTotals are a Profile's sums at one moment.
type ProfileTotals struct {
	Busy     [activities]time.Duration
	Episodes int
}

// Sub returns t minus an earlier snapshot u.
func (t ProfileTotals) Sub(u ProfileTotals) ProfileTotals {
	for a := range activities {
		t.Busy[a] -= u.Busy[a]
	}
	t.Episodes -= u.Episodes
	return t
}

// Total is the sum over activities.
func (t ProfileTotals) Total() time.Duration {
	var s time.Duration
	for _, d := range t.Busy {
		s += d
	}
	return s
}

// Share is activity a's fraction of Total (0 when nothing was timed).
func (t ProfileTotals) Share(a Activity) float64 {
	if tot := t.Total(); tot > 0 {
		return float64(t.Busy[a]) / float64(tot)
	}
	return 0
}

// String reads "planning 1.2s (10%), checking …, 40 episodes".
func (t ProfileTotals) String() string {
	s := ""
	for a := range activities {
		s += fmt.Sprintf("%s %s (%.0f%%), ", a, t.Busy[a].Round(time.Millisecond), 100*t.Share(a))
	}
	return s + fmt.Sprintf("%d episodes", t.Episodes)
}

// MarshalJSON writes seconds per activity and the episodes:
// {"planning_s": 1.5, …, "episodes": 40}.
func (t ProfileTotals) MarshalJSON() ([]byte, error) {
	m := map[string]any{"episodes": t.Episodes}
	for a := range activities {
		m[a.String()+"_s"] = t.Busy[a].Seconds()
	}
	return json.Marshal(m)
}

// UnmarshalJSON reads what MarshalJSON writes; unknown keys are ignored.
func (t *ProfileTotals) UnmarshalJSON(b []byte) error {
	var m map[string]float64
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("profile: %w", err)
	}
	*t = ProfileTotals{Episodes: int(m["episodes"])}
	for a := range activities {
		t.Busy[a] = time.Duration(m[a.String()+"_s"] * float64(time.Second))
	}
	return nil
}
