package store

import "testing"

// TestStopped: a run's stop kind is its Stop, or for a record written
// before runs kept it, read from the fixed words of its StopReason.
func TestStopped(t *testing.T) {
	for _, tc := range []struct {
		run  Run
		want StopKind
	}{
		{Run{}, ""},
		{Run{Stop: StopBudget, StopReason: "whatever it says"}, StopBudget},
		{Run{StopReason: "interrupted"}, StopInterrupted},
		{Run{StopReason: "planner-call budget reached (12)"}, StopBudget},
		{Run{StopReason: "cost budget reached ($1.00)"}, StopBudget},
		{Run{StopReason: "abandoned (cancelled mid-step)"}, StopAbandoned},
		{Run{StopReason: "something else"}, ""},
	} {
		if got := tc.run.Stopped(); got != tc.want {
			t.Errorf("%+v: Stopped() = %q, want %q", tc.run, got, tc.want)
		}
	}
}
