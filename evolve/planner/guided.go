package planner

import (
	"context"
	"errors"
	"strings"

	"policyevolve/critic"
	"policyevolve/store"
)

// GuidedPlanner is a planner that GEPA can drive: it writes under strategy
// guidance (a GEPA prompt candidate) and reflects on what a candidate's
// policy did to propose new guidance. The LLM planner and the offline
// grammar planner implement it.
type GuidedPlanner interface {
	Planner
	// Guide returns the planner as guidance g makes it write: for the LLM
	// planner, its system message ending with g as a strategy-guidance
	// section; for the grammar planner, a search under the prior g
	// describes. The empty guidance is the seed candidate's. An error says
	// this planner cannot read g.
	Guide(g string) (Planner, error)
	// Reflect proposes new guidance from a candidate's guidance, the
	// policy it made the planner write and that policy's scores: one
	// planner call. An answer without guidance is a Reflection with
	// Problem set, not an error.
	Reflect(ctx context.Context, req ReflectRequest) (*Reflection, error)
}

// ReflectRequest is what a reflection reads. At the sparse feedback level
// (the paper's GEPA: docs/decisions.md) only the reward per seed is shown; dense
// adds the social metrics per seed; critic adds the critic's reflections
// on the policy's episodes, and Diagnostics for planners that act on
// numbers.
type ReflectRequest struct {
	Task
	// Guidance is the parent candidate's.
	Guidance string
	// Policy is the policy the parent made the planner write, with its
	// evaluation; Policy.Policy.ID is empty when it wrote none, and
	// Problem says why.
	Policy  Scored
	Problem string
	// Seeds are the parent's per-seed results, in the order of the run's
	// evaluation seeds.
	Seeds       []SeedScore
	Reflections []critic.Reflection
	Diagnostics *critic.Diagnostics
}

// SeedScore is one seed of a candidate's evaluation: its GEPA score (the
// mean per-agent return; 0 for a failed seed), its metrics, and why it
// failed.
type SeedScore struct {
	Seed    uint64
	Score   float64
	Metrics store.Metrics
	Failed  string
}

// Reflection is a reflection's answer.
type Reflection struct {
	// Guidance is the new guidance; empty when the answer held none
	// (Problem says so).
	Guidance string
	Problem  error
	// Notes is the reflection's reasoning.
	Notes string
	// Call is the LLM call that reflected ("llm-call:N"), if any.
	Call  string
	Usage Usage
	// Stopped says the reflection was not made: the run's budget did not
	// admit its call (nothing was sent).
	Stopped error
}

// ErrNoGuidance: a reflection's answer held no guidance.
var ErrNoGuidance = errors.New("no guidance in the answer")

// ExtractGuidance finds the guidance in a reflection's answer: the last
// fenced block (GEPA asks for it in one), else the whole answer. notes is
// the prose before the block.
func ExtractGuidance(answer string) (guidance, notes string, err error) {
	lines := strings.Split(strings.ReplaceAll(answer, "\r\n", "\n"), "\n")
	guidance = strings.TrimSpace(answer)
	if blocks := fencedBlocks(lines); len(blocks) > 0 {
		b := blocks[len(blocks)-1]
		guidance = strings.TrimSpace(strings.Join(b.body, "\n"))
		notes = strings.TrimSpace(strings.Join(lines[:b.start], "\n"))
	}
	if guidance == "" {
		return "", notes, ErrNoGuidance
	}
	return guidance, notes, nil
}
