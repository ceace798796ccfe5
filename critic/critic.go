package critic

// Reflection is one finding of the critic: what happened, with its
// numbers, and what to change.
type Reflection struct {
	// Code identifies the kind of finding, stably across runs, e.g.
	// "waste-high" or "idle".
	Code string `json:"code"`
	// Text states the finding with its numbers and a direction, in a
	// sentence or two meant for a planner's prompt.
	Text string `json:"text"`
	// Stake estimates the per-agent reward at stake; reflections are
	// ranked by it, largest first.
	Stake float64 `json:"stake"`
}

// Diagnostics are the numbers the critic computes from a policy's
// episodes; reflections are derived from them.
type Diagnostics struct {
	Game     string `json:"game"`
	Episodes int    `json:"episodes"`
}
