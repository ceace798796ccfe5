package envs

import (
	"fmt"

	"policyevolve/envs/ssd"
)

// Shot is a beam fired during a step, for replays: who fired, which beam,
// and the cells it covered.
type Shot struct {
	Agent int
	Clean bool      // the cleaning beam (Cleanup); otherwise the tagging or penalty beam
	Cells []ssd.Pos // BeamCells of the shooter
}

// Shots returns the beams fired in the step that started from before with
// the given actions, in firing order (agent order). Trajectories do not
// record beams; Shots derives them with the environment's own Step: an
// agent that chose Beam or Clean fired unless it was tagged out after the
// timeouts were decremented, by an earlier step or by an agent acting
// before it in the same step. Each firing agent is checked by replaying
// the step on a scratch environment with it and every later agent
// standing. before must be a valid snapshot (State.Check) of an episode
// that had a step left, and actions the ones recorded for that step.
func Shots(before *ssd.State, actions []int) ([]Shot, error) {
	if err := before.Check(); err != nil {
		return nil, fmt.Errorf("shots: %w", err)
	}
	lay := before.Layout
	if len(actions) != lay.NumAgents {
		return nil, fmt.Errorf("shots: %d actions for %d agents", len(actions), lay.NumAgents)
	}
	var shots []Shot
	var scratch *Env
	probe := make([]int, len(actions))
	for i, a := range actions {
		if a != ssd.Beam && !(a == ssd.Clean && lay.Game == ssd.Cleanup) {
			continue
		}
		if before.Timeout[i] > 1 { // still out after the decrement
			continue
		}
		if i > 0 {
			if scratch == nil {
				var err error
				if scratch, err = scratchEnv(lay); err != nil {
					return nil, fmt.Errorf("shots: %w", err)
				}
			}
			scratch.load(before)
			copy(probe, actions[:i])
			for j := i; j < len(probe); j++ {
				probe[j] = ssd.Stand
			}
			if _, err := scratch.Step(probe); err != nil {
				return nil, fmt.Errorf("shots: %w", err)
			}
			if scratch.timeout[i] > 0 { // tagged by an earlier agent of this step
				continue
			}
		}
		shots = append(shots, Shot{Agent: i, Clean: a == ssd.Clean,
			Cells: BeamCells(lay, before.Pos[i], before.Orient[i])})
	}
	return shots, nil
}

// BeamCells returns the cells a beam fired from p facing orient covers,
// row by row away from the shooter: the rectangle BeamLength cells ahead
// and BeamWidth/2 to each side, less the cells outside the grid and the
// walls (the beam skips walls but goes on past them). These are the cells
// in which the environment's tagging and penalty beams hit an agent and
// its cleaning beam clears waste.
func BeamCells(lay *ssd.Layout, p ssd.Pos, orient int) []ssd.Pos {
	a, b, c, d := ssd.Rotation(orient)
	halfW := lay.Params.BeamWidth / 2
	var out []ssd.Pos
	for f := 1; f <= lay.Params.BeamLength; f++ {
		for off := -halfW; off <= halfW; off++ {
			r, cc := p.R+a*f+b*off, p.C+c*f+d*off
			if r < 0 || r >= lay.Height || cc < 0 || cc >= lay.Width || lay.Walls[r*lay.Width+cc] {
				continue
			}
			out = append(out, ssd.Pos{R: r, C: cc})
		}
	}
	return out
}

// scratchEnv builds an environment over lay's map, for replaying single
// steps from loaded snapshots.
func scratchEnv(lay *ssd.Layout) (*Env, error) {
	m := &Map{Name: "replay", Game: lay.Game, Height: lay.Height, Width: lay.Width, Walls: lay.Walls,
		Apples: lay.Apples, River: lay.River, Dirty: make([]bool, len(lay.River)), Stream: lay.Stream}
	return New(Config{Map: m, Agents: lay.NumAgents, MaxSteps: lay.MaxSteps, Params: &lay.Params})
}

// load sets the environment to the snapshot st. What a snapshot lacks (the
// random generator, Gathering's apple timers) keeps whatever value it had:
// good enough for the action phase of a step, which uses neither.
func (e *Env) load(st *ssd.State) {
	e.step = st.Step
	e.pos = append(e.pos[:0], st.Pos...)
	e.orient = append(e.orient[:0], st.Orient...)
	e.timeout = append(e.timeout[:0], st.Timeout...)
	e.hits = append(e.hits[:0], st.Hits...)
	e.alive = append(e.alive[:0], st.AppleAlive...)
	e.waste = append(e.waste[:0], st.Waste...)
	e.nWaste = 0
	for _, w := range e.waste {
		if w {
			e.nWaste++
		}
	}
}
