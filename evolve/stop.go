package evolve

import (
	"fmt"
	"time"

	"policyevolve/store"
)

// Stop asks the job to stop at the next safe point (between candidates
// and phases). It may be called from any goroutine.
func (j *Job) Stop() { j.stop.Store(true) }

// StoppedByBudget reports whether a run ended because one of its budgets
// was reached: resuming it with the same budgets would do nothing more.
func StoppedByBudget(r *store.Run) bool {
	return r.Status == store.StatusStopped && r.Stopped() == store.StopBudget
}

// stopFor records why the run stops, unless a reason is recorded
// already. The caller holds j.mu (or is the only goroutine).
func (j *Job) stopFor(kind store.StopKind, why string) {
	if j.run.Stop == "" {
		j.run.Stop, j.run.StopReason = kind, why
	}
}

// stopping says whether a reason to stop is recorded.
func (j *Job) stopping() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.run.Stop != ""
}

// budgetReached says whether a budget forbids another planner call, and
// which, in words. The caller holds j.mu (or is the only goroutine).
func (j *Job) budgetReached() string {
	c, u := j.Config, j.run.Usage
	switch {
	case c.MaxPlannerCalls > 0 && u.Proposals >= c.MaxPlannerCalls:
		return fmt.Sprintf("planner-call budget reached (%d)", c.MaxPlannerCalls)
	case c.MaxCost > 0 && u.Cost >= c.MaxCost:
		return fmt.Sprintf("cost budget reached ($%.2f)", c.MaxCost)
	case c.MaxTokens > 0 && u.InputTokens+u.OutputTokens >= c.MaxTokens:
		return fmt.Sprintf("token budget reached (%d)", c.MaxTokens)
	case c.MaxTime > 0 && time.Duration((u.WallSeconds+time.Since(j.started).Seconds())*float64(time.Second)) >= c.MaxTime:
		return fmt.Sprintf("time budget reached (%v)", c.MaxTime)
	}
	return ""
}

// budgetWith says which budget forbids another planner call, counting
// the usage as stored now and pending, the usage of work in hand that is
// not stored yet (a candidate between its local rounds); a budget reached
// is recorded as why the run stops. Candidates proposed at once
// (--planner-concurrency) do not see each other's pending calls, so they
// may overshoot the planner-call budget by one proposal each; the cost
// and token budgets hold call by call (the gate, budget.go). Its error
// (the usage could not be read) stops the run: a budget that cannot be
// checked is not taken for one that is not reached.
func (j *Job) budgetWith(pending store.RunUsage) (string, error) {
	if err := j.refreshUsage(); err != nil {
		return "", fmt.Errorf("check the budgets: %w", err)
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	stored := j.run.Usage
	j.run.Usage.Add(pending)
	reason := j.budgetReached()
	j.run.Usage = stored
	if reason != "" {
		j.stopFor(store.StopBudget, reason)
	}
	return reason, nil
}

// shouldStop says whether to stop before the next step: a reason is
// recorded, or Stop was called (recorded then).
func (j *Job) shouldStop() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.run.Stop != "" {
		return true
	}
	if j.stop.Load() {
		j.stopFor(store.StopInterrupted, string(store.StopInterrupted))
		return true
	}
	return false
}

// interrupted says whether Stop was called, recording it as the reason
// when no budget was reached first.
func (j *Job) interrupted() bool {
	if !j.stop.Load() {
		return false
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	j.stopFor(store.StopInterrupted, string(store.StopInterrupted))
	return true
}
