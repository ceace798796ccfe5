package store

import "strings"

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
