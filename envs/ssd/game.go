package ssd

import "fmt"

// Game names one of the two Sequential Social Dilemmas.
//
//ssd:game both
type Game uint8

const (
	Gathering Game = iota // apples on a fixed respawn timer; a beam tags rivals out
	Cleanup               // apples regrow only while the river is clean; cleaning costs
)

// String returns the game's lower-case name, as used on the command line.
func (g Game) String() string {
	switch g {
	case Gathering:
		return "gathering"
	case Cleanup:
		return "cleanup"
	}
	return fmt.Sprintf("Game(%d)", uint8(g))
}

// ParseGame is the inverse of Game.String.
func ParseGame(s string) (Game, error) {
	switch s {
	case "gathering":
		return Gathering, nil
	case "cleanup":
		return Cleanup, nil
	}
	return 0, fmt.Errorf("unknown game %q (want gathering or cleanup)", s)
}

// NumActions is the size of the game's action set: 8 in Gathering, 9 in
// Cleanup (which adds Clean).
func (g Game) NumActions() int {
	if g == Cleanup {
		return 9
	}
	return 8
}

// Actions. Movement is relative to the agent's orientation; an agent may
// share a cell with others.
const (
	Forward     = 0
	Backward    = 1
	StepLeft    = 2
	StepRight   = 3
	RotateLeft  = 4 // counter-clockwise: orientation - 1
	RotateRight = 5 // clockwise: orientation + 1
	Beam        = 6 // the tagging beam (Gathering) or penalty beam (Cleanup)
	Stand       = 7
	Clean       = 8 // Cleanup only: removes waste in the beam's rectangle
)

// ActionName returns a short name for an action ("forward", "beam" …).
func ActionName(a int) string {
	names := [...]string{"forward", "backward", "step_left", "step_right",
		"rotate_left", "rotate_right", "beam", "stand", "clean"}
	if a >= 0 && a < len(names) {
		return names[a]
	}
	return fmt.Sprintf("action(%d)", a)
}

// Orientations: where an agent faces. Rows grow southwards.
const (
	North = 0 // -row
	East  = 1 // +col
	South = 2 // +row
	West  = 3 // -col
)

// Rotation returns the frame of an orientation: a world offset is
// dr = a*fwd + b*right, dc = c*fwd + d*right for an offset of fwd cells
// ahead and right cells to the right. Forward is (a, c), right is (b, d).
func Rotation(orient int) (a, b, c, d int) {
	switch orient & 3 {
	case North:
		return -1, 0, 0, 1
	case East:
		return 0, 1, 1, 0
	case South:
		return 1, 0, 0, -1
	default: // West
		return 0, -1, -1, 0
	}
}

// Heading returns the world step (dr, dc) of moving forward when facing
// orient.
func Heading(orient int) (dr, dc int) {
	a, _, c, _ := Rotation(orient)
	return a, c
}

// Params are a game's rules. DefaultParams gives the reference values.
type Params struct {
	BeamLength   int // cells the beam reaches ahead
	BeamWidth    int // beam width; the beam covers BeamWidth/2 cells each side
	HitsToTag    int // beam hits that tag an agent out
	TimeoutSteps int // steps a tagged agent is removed

	// Gathering.
	AppleRespawnTime int // steps until a collected apple reappears

	// Cleanup.
	FireCost             float64 // reward cost of firing the penalty beam
	FirePenalty          float64 // reward lost by each agent the penalty beam hits
	CleanCost            float64 // reward cost of firing the clean beam
	ThresholdDepletion   float64 // waste density at or above which nothing spawns
	ThresholdRestoration float64 // waste density at or below which apples regrow fastest
	WasteSpawnProb       float64 // per-step chance of one new waste cell
	AppleRespawnProb     float64 // per-cell per-step regrowth chance on a clean river
}

// DefaultParams returns the reference environments' parameters: Leibo et
// al.'s Gathering (beam 20x1, two hits tag for 25 steps, apples respawn
// after 25 steps) and Hughes et al.'s Cleanup (beams 5x3, one hit tags for
// 25 steps, fire costs 1 and hits cost 50, cleaning costs 1, depletion at
// 0.4 waste density, waste spawns with probability 0.5, apples regrow with
// probability 0.05 on a clean river).
func DefaultParams(g Game) Params {
	if g == Cleanup {
		return Params{
			BeamLength: 5, BeamWidth: 3, HitsToTag: 1, TimeoutSteps: 25,
			FireCost: 1, FirePenalty: 50, CleanCost: 1,
			ThresholdDepletion: 0.4, ThresholdRestoration: 0,
			WasteSpawnProb: 0.5, AppleRespawnProb: 0.05,
		}
	}
	return Params{BeamLength: 20, BeamWidth: 1, HitsToTag: 2, TimeoutSteps: 25, AppleRespawnTime: 25}
}

// Validate reports parameters the games cannot run with.
func (p Params) Validate() error {
	switch {
	case p.BeamLength < 0:
		return fmt.Errorf("beam length %d is negative", p.BeamLength)
	case p.BeamWidth < 1:
		return fmt.Errorf("beam width %d is below 1", p.BeamWidth)
	case p.HitsToTag < 1:
		return fmt.Errorf("hits to tag %d is below 1", p.HitsToTag)
	case p.TimeoutSteps < 0:
		return fmt.Errorf("timeout steps %d is negative", p.TimeoutSteps)
	case p.AppleRespawnTime < 0:
		return fmt.Errorf("apple respawn time %d is negative", p.AppleRespawnTime)
	case p.ThresholdDepletion < p.ThresholdRestoration:
		return fmt.Errorf("depletion threshold %v is below restoration threshold %v",
			p.ThresholdDepletion, p.ThresholdRestoration)
	}
	return nil
}
