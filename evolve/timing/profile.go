package timing

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
	Planning      Activity = iota // planner and critic calls (an LLM's answer, the grammar's search)
	Checking                      // admission: validation, compilation and the smoke test of a proposal
	Compiling                     // building a stored policy's worker to play it
	Playing                       // episodes: self-play evaluations, matches, recorded trajectories
	Storing                       // store transactions
	NumActivities                 // how many activities there are
)

var activityNames = [NumActivities]string{"planning", "checking", "compiling", "playing", "storing"}

func (a Activity) String() string {
	if a < 0 || a >= NumActivities {
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
	busy     [NumActivities]atomic.Int64 // nanoseconds
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

// Start begins timing an activity; call the returned function when it
// ends. On a nil Profile it times nothing.
func (p *Profile) Start(a Activity) func() {
	if p == nil {
		return func() {}
	}
	t := time.Now()
	return func() { p.busy[a].Add(int64(time.Since(t))) }
}

// Episode counts one episode played. On a nil Profile it counts nothing.
func (p *Profile) Episode() {
	if p != nil {
		p.episodes.Add(1)
	}
}

// Snapshot returns the totals so far.
func (p *Profile) Snapshot() Totals {
	var t Totals
	if p == nil {
		return t
	}
	for a := range NumActivities {
		t.Busy[a] = time.Duration(p.busy[a].Load())
	}
	t.Episodes = int(p.episodes.Load())
	if p.store != nil {
		t.Busy[Storing] += p.store.Busy() - p.stored0
	}
	return t
}

// Totals are a Profile's sums at one moment.
type Totals struct {
	Busy     [NumActivities]time.Duration
	Episodes int
}

// Sub returns t minus an earlier snapshot u.
func (t Totals) Sub(u Totals) Totals {
	for a := range NumActivities {
		t.Busy[a] -= u.Busy[a]
	}
	t.Episodes -= u.Episodes
	return t
}

// Total is the sum over NumActivities.
func (t Totals) Total() time.Duration {
	var s time.Duration
	for _, d := range t.Busy {
		s += d
	}
	return s
}

// Share is activity a's fraction of Total (0 when nothing was timed).
func (t Totals) Share(a Activity) float64 {
	if tot := t.Total(); tot > 0 {
		return float64(t.Busy[a]) / float64(tot)
	}
	return 0
}

// String reads "planning 1.2s (10%), checking …, 40 episodes".
func (t Totals) String() string {
	s := ""
	for a := range NumActivities {
		s += fmt.Sprintf("%s %s (%.0f%%), ", a, t.Busy[a].Round(time.Millisecond), 100*t.Share(a))
	}
	return s + fmt.Sprintf("%d episodes", t.Episodes)
}

// MarshalJSON writes seconds per activity and the episodes:
// {"planning_s": 1.5, …, "episodes": 40}.
func (t Totals) MarshalJSON() ([]byte, error) {
	m := map[string]any{"episodes": t.Episodes}
	for a := range NumActivities {
		m[a.String()+"_s"] = t.Busy[a].Seconds()
	}
	return json.Marshal(m)
}

// UnmarshalJSON reads what MarshalJSON writes; unknown keys are ignored.
func (t *Totals) UnmarshalJSON(b []byte) error {
	var m map[string]float64
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("profile: %w", err)
	}
	*t = Totals{Episodes: int(m["episodes"])}
	for a := range NumActivities {
		t.Busy[a] = time.Duration(m[a.String()+"_s"] * float64(time.Second))
	}
	return nil
}
