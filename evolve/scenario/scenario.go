package scenario

import (
	"fmt"
	"slices"
)

// Mode says which side of a scenario is the minority.
type Mode string

const (
	// Resident: K background agents among the focal ones (N−K focal).
	// The background agents sit at agents 0…K−1, where invade seats its
	// invaders.
	Resident Mode = "resident"
	// Visitor: K focal agents (at agents 0…K−1) among N−K background
	// agents; the focal policy is the minority.
	Visitor Mode = "visitor"
)

// Modes are the valid modes, in the order a suite lists them.
var Modes = []Mode{Resident, Visitor}

// Scenario is one seating of a background population with the focal
// policy. K counts the minority: background agents in Resident mode,
// focal agents in Visitor mode; 1 ≤ K < the episode's agents.
type Scenario struct {
	// Name is what tables show; "" means the default, "BACKGROUND MODE k=K".
	Name string `json:"name" toml:"name"`
	// Background is a policy reference: a built-in name, a store id (or a
	// unique prefix), a Go source file or a Q-table reference, whatever the
	// caller's resolver accepts.
	Background string `json:"background" toml:"background"`
	Mode       Mode   `json:"mode" toml:"mode"`
	K          int    `json:"k" toml:"k"`
}

// Label is the scenario's name, or its default when unnamed.
func (s Scenario) Label() string {
	if s.Name != "" {
		return s.Name
	}
	return fmt.Sprintf("%s %s k=%d", s.Background, s.Mode, s.K)
}

// Seating returns the numbers of focal and background agents among n.
func (s Scenario) Seating(n int) (focal, background int) {
	if s.Mode == Visitor {
		return s.K, n - s.K
	}
	return n - s.K, s.K
}

// Validate checks the scenario on its own: a background, a known mode,
// K ≥ 1. Fits checks K against an episode's agents.
func (s Scenario) Validate() error {
	if s.Background == "" {
		return fmt.Errorf("no background policy")
	}
	if !slices.Contains(Modes, s.Mode) {
		return fmt.Errorf("mode %q: want %q or %q", s.Mode, Resident, Visitor)
	}
	if s.K < 1 {
		return fmt.Errorf("k = %d: want at least 1 (the minority's agents)", s.K)
	}
	return nil
}

// Fits checks that the scenario seats both sides among n agents.
func (s Scenario) Fits(n int) error {
	if s.K >= n {
		return fmt.Errorf("%s: k = %d, but the episode has %d agents (k must leave the other side at least one)", s.Label(), s.K, n)
	}
	return nil
}

// Suite is a named list of scenarios, played in order.
type Suite struct {
	Name      string     `json:"name" toml:"name"`
	Scenarios []Scenario `json:"scenarios" toml:"scenario"`
}

// Validate checks every scenario and that their labels are distinct (a
// table row or a JSON entry names one scenario).
func (s Suite) Validate() error {
	if len(s.Scenarios) == 0 {
		return fmt.Errorf("suite %q has no scenario", s.Name)
	}
	seen := map[string]int{}
	for i, sc := range s.Scenarios {
		if err := sc.Validate(); err != nil {
			return fmt.Errorf("scenario %d: %w", i+1, err)
		}
		l := sc.Label()
		if j, ok := seen[l]; ok {
			return fmt.Errorf("scenario %d: %q is also scenario %d's name", i+1, l, j)
		}
		seen[l] = i + 1
	}
	return nil
}

// Fits checks every scenario against an episode of n agents.
func (s Suite) Fits(n int) error {
	for _, sc := range s.Scenarios {
		if err := sc.Fits(n); err != nil {
			return err
		}
	}
	return nil
}

// DefaultBackgrounds are the default suite's backgrounds: the built-in
// baselines every pool starts with, the exploiter first.
var DefaultBackgrounds = []string{"exploit", "bfs", "random", "coop"}

// DefaultK are the default suite's minority sizes: one stranger, and
// three (of the paper's ten agents).
var DefaultK = []int{1, 3}

// Default is the default suite for an episode of n agents: each default
// background in resident mode with k = 1 and k = 3, and in visitor mode
// with k = 3 (three focal agents among seven strangers: a minority that is
// still a group). A scenario that does not fit n agents is left out, so
// with fewer than 4 agents only k = 1 remains. Both games play the same
// suite: every built-in plays both.
func Default(n int) Suite {
	s := Suite{Name: "default"}
	for _, bg := range DefaultBackgrounds {
		for _, k := range DefaultK {
			s.Scenarios = append(s.Scenarios, Scenario{Background: bg, Mode: Resident, K: k})
		}
		s.Scenarios = append(s.Scenarios, Scenario{Background: bg, Mode: Visitor, K: 3})
	}
	kept := s.Scenarios[:0]
	for _, sc := range s.Scenarios {
		if sc.Fits(n) == nil {
			kept = append(kept, sc)
		}
	}
	s.Scenarios = kept
	return s
}
