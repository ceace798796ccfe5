package evolve

import (
	"errors"
	"fmt"
	"strconv"
	"time"
)

// ErrBudgetShrunk: a resume asked for less of a budget than the run was
// given (a budget may only be carried further on resume).
var ErrBudgetShrunk = errors.New("a resume may raise a budget, not lower it")

// Budgets are the settings a resume may change (Job.Extend): the run's
// budgets, carried further. A zero field leaves the stored budget as it
// is; NoLimit lifts a budget.
type Budgets struct {
	Iterations      int
	MaxPlannerCalls int
	MaxCost         float64
	MaxTokens       int
	MaxTime         time.Duration // wall-clock time of the run, summed over its processes
}

// NoLimit in a Budgets field other than Iterations lifts that budget.
const NoLimit = -1

// Extension is one budget a resume carried further, as recorded with the
// run (JobConfig.Extended) and shown by runs show.
type Extension struct {
	At time.Time `json:"at"`
	// Flag is the budget's flag without its dashes: iterations,
	// max-planner-calls, max-cost, max-tokens or time.
	Flag string `json:"flag"`
	// From and To are its values before and after ("none": no limit).
	From string `json:"from"`
	To   string `json:"to"`
	// Done is how many iterations the run had done when it was extended.
	Done int `json:"done"`
}

// String is the extension for people: "--iterations 3 → 6 (after
// iterations 0–3 done, 2026-11-28 15:04)".
func (e Extension) String() string {
	return fmt.Sprintf("--%s %s → %s (after %s, %s)", e.Flag, e.From, e.To, IterationsDone(e.Done), e.At.Local().Format("2006-01-02 15:04"))
}

// extend applies b to cfg, a resumed run's stored configuration with
// done iterations done, and returns what it changed (nothing for a field
// left zero or equal to the stored budget). A budget lowered is refused
// naming its flag.
func extend(cfg *JobConfig, b Budgets, done int, now time.Time) ([]Extension, error) {
	var out []Extension
	limit := func(v float64) string {
		if v == 0 {
			return "none"
		}
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	step := func(flag string, stored, asked float64, set func(float64)) error {
		switch {
		case asked == 0 || asked == stored || asked == NoLimit && stored == 0:
			return nil
		case asked == NoLimit:
			asked = 0
		case stored == 0 || asked < stored:
			return fmt.Errorf("%w: --%s %s is below the run's %s", ErrBudgetShrunk, flag, limit(asked), limit(stored))
		}
		out = append(out, Extension{At: now.UTC(), Flag: flag, From: limit(stored), To: limit(asked), Done: done})
		set(asked)
		return nil
	}
	if b.Iterations < 0 {
		return nil, fmt.Errorf("--iterations %d: the run's iterations cannot be lifted", b.Iterations)
	}
	for _, s := range []struct {
		flag          string
		stored, asked float64
		set           func(float64)
	}{
		{"iterations", float64(cfg.Iterations), float64(b.Iterations), func(v float64) { cfg.Iterations = int(v) }},
		{"max-planner-calls", float64(cfg.MaxPlannerCalls), float64(b.MaxPlannerCalls), func(v float64) { cfg.MaxPlannerCalls = int(v) }},
		{"max-cost", cfg.MaxCost, b.MaxCost, func(v float64) { cfg.MaxCost = v }},
		{"max-tokens", float64(cfg.MaxTokens), float64(b.MaxTokens), func(v float64) { cfg.MaxTokens = int(v) }},
	} {
		if err := step(s.flag, s.stored, s.asked, s.set); err != nil {
			return nil, err
		}
	}
	// The time budget, in its own words ("2h0m0s").
	switch asked, stored := b.MaxTime, cfg.MaxTime; {
	case asked == 0 || asked == stored || asked == NoLimit && stored == 0:
	case asked != NoLimit && (stored == 0 || asked < stored):
		return nil, fmt.Errorf("%w: --time %v is below the run's %s", ErrBudgetShrunk, asked, durationLimit(stored))
	default:
		if asked == NoLimit {
			asked = 0
		}
		out = append(out, Extension{At: now.UTC(), Flag: "time", From: durationLimit(stored), To: durationLimit(asked), Done: done})
		cfg.MaxTime = asked
	}
	cfg.Extended = append(cfg.Extended, out...)
	return out, nil
}

func durationLimit(d time.Duration) string {
	if d == 0 {
		return "none"
	}
	return d.String()
}
