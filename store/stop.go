package store

import "strings"

// StopKind says why a run stopped before it was done (Run.Stop), for
// callers to branch on; Run.StopReason holds the words for people.
type StopKind string

// Why a run stops.
const (
	// StopBudget: a budget was reached. Resuming the run with the same
	// budgets does nothing more.
	StopBudget StopKind = "budget"
	// StopInterrupted: the job was asked to stop at its next safe point
	// (an interrupt). It resumes where it stopped.
	StopInterrupted StopKind = "interrupted"
	// StopAbandoned: the job's context was cancelled mid-step; the step in
	// flight is redone on resume.
	StopAbandoned StopKind = "abandoned"
)

// Stopped returns why the run stopped ("" when it did not stop early):
// its Stop, or, for a record written before runs kept their Stop, the
// kind its StopReason names (those words were then fixed: "interrupted",
// "… budget reached …", "abandoned …").
func (r *Run) Stopped() StopKind {
	switch {
	case r.Stop != "" || r.StopReason == "":
		return r.Stop
	case r.StopReason == string(StopInterrupted):
		return StopInterrupted
	case strings.Contains(r.StopReason, "budget reached"):
		return StopBudget
	case strings.HasPrefix(r.StopReason, string(StopAbandoned)):
		return StopAbandoned
	}
	return ""
}
