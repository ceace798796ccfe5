package critic

import (
	"fmt"
	"math"

	"policyevolve/envs"
	"policyevolve/envs/ssd"
)

// Events are what happened during one step that the states before and
// after it do not show directly: the beams fired, whom they hit, the
// waste each clean beam removed, the apples collected and the apples that
// grew back.
type Events struct {
	// Active[i]: agent i was in the game when its turn came, so its action
	// took effect (it was not tagged out, before or earlier in the step).
	Active []bool `json:"active"`
	// Beams are the tagging (Gathering) or penalty (Cleanup) beams fired,
	// in the order the environment fired them (agent id order).
	Beams []Shot `json:"beams,omitempty"`
	// Cleans are the clean beams fired (Cleanup), in firing order.
	Cleans []Clean `json:"cleans,omitempty"`
	// Collected[i] is the apple agent i collected, or -1.
	Collected []int `json:"collected"`
	// Regrown are the apples that reappeared during the step (respawned
	// in Gathering, regrew in Cleanup), including one collected again in
	// the same step.
	Regrown []int `json:"regrown,omitempty"`
}

// Shot is one tagging or penalty beam.
type Shot struct {
	Agent  int   `json:"agent"`
	Hit    []int `json:"hit,omitempty"`    // agents the beam hit, by id
	Tagged []int `json:"tagged,omitempty"` // those of Hit it tagged out
}

// Clean is one clean beam and the waste cells it removed.
type Clean struct {
	Agent   int       `json:"agent"`
	Removed []ssd.Pos `json:"removed,omitempty"`
}

// Derive reconstructs the events of every step of a trajectory: see
// deriver.step for how, and for the checks that make a trajectory that
// does not follow the rules an error.
func Derive(tr *envs.Trajectory) ([]Events, error) {
	d, err := newDeriver(tr.Layout)
	if err != nil {
		return nil, err
	}
	out := make([]Events, len(tr.Steps))
	prev := &tr.Reset
	for t := range tr.Steps {
		s := &tr.Steps[t]
		ev, err := d.step(prev, &s.State, s.Actions, s.Rewards)
		if err != nil {
			return nil, err
		}
		out[t] = *ev
		prev = &s.State
	}
	return out, nil
}

// deriver holds what deriving the steps of one layout shares.
type deriver struct {
	lay     *ssd.Layout
	riverAt []int32 // cell -> river index, or -1
	mid     ssd.State
	view    *ssd.View
}

func newDeriver(lay *ssd.Layout) (*deriver, error) {
	if lay == nil {
		return nil, fmt.Errorf("derive: no layout")
	}
	if err := lay.Check(); err != nil {
		return nil, fmt.Errorf("derive: %w", err)
	}
	d := &deriver{lay: lay, riverAt: make([]int32, lay.Height*lay.Width)}
	for i := range d.riverAt {
		d.riverAt[i] = -1
	}
	for k, q := range lay.River {
		d.riverAt[q.R*lay.Width+q.C] = int32(k)
	}
	return d, nil
}

// step reconstructs the events of one step from the state before it, the
// actions chosen and the state and rewards after it.
//
// The environment acts agent by agent in id order, so when agent i acts,
// agents below i stand where the step leaves them and agents above i where
// it found them; a tag made earlier in the step stops the later actions of
// the tagged agent. Derive replays that order with the beam geometry of
// ssd (View.BeamHitsFrom) and checks the result against the recorded
// state: the hit counters and timeouts must come out exactly, the waste
// may differ only by the one cell Cleanup's waste spawn can add, and every
// reward must be its costs plus at most one apple. A mismatch means the
// trajectory was not played by these rules (or was edited) and is an error.
func (d *deriver) step(prev, next *ssd.State, actions []int, rewards []float64) (*Events, error) {
	lay := d.lay
	if prev.Layout != lay || next.Layout != lay {
		return nil, fmt.Errorf("derive: step %d: a state of another layout", next.Step)
	}
	n := lay.NumAgents
	if len(actions) != n || len(rewards) != n || len(prev.Pos) != n || len(next.Pos) != n {
		return nil, fmt.Errorf("derive: step %d: %d actions and %d rewards for %d agents", next.Step, len(actions), len(rewards), n)
	}
	p := lay.Params
	// mid is the state as the acting agent sees the world.
	mid := &d.mid
	mid.CopyFrom(prev)
	for i, t := range mid.Timeout {
		if t > 0 {
			mid.Timeout[i] = t - 1
		}
	}
	if d.view == nil {
		v, err := ssd.NewView(mid)
		if err != nil {
			return nil, fmt.Errorf("derive: step %d: %w", next.Step, err)
		}
		d.view = v
	} else if err := d.view.Update(mid); err != nil {
		return nil, fmt.Errorf("derive: step %d: %w", next.Step, err)
	}
	view := d.view
	ev := &Events{Active: make([]bool, n), Collected: make([]int, n)}
	cost := make([]float64, n) // reward lost to beams this step, per agent
	for i := range n {
		active := mid.Timeout[i] == 0
		// Agent i acts now: from here on it stands where the step leaves it.
		mid.Pos[i], mid.Orient[i] = next.Pos[i], next.Orient[i]
		if !active {
			continue
		}
		ev.Active[i] = true
		switch actions[i] {
		case ssd.Beam:
			shot := Shot{Agent: i, Hit: view.BeamHitsFrom(i)}
			if lay.Game == ssd.Cleanup {
				cost[i] += p.FireCost
			}
			for _, j := range shot.Hit {
				mid.Hits[j]++
				if lay.Game == ssd.Cleanup {
					cost[j] += p.FirePenalty
				}
				if mid.Hits[j] >= p.HitsToTag {
					mid.Timeout[j], mid.Hits[j] = p.TimeoutSteps, 0
					shot.Tagged = append(shot.Tagged, j)
				}
			}
			ev.Beams = append(ev.Beams, shot)
		case ssd.Clean:
			if lay.Game != ssd.Cleanup {
				break
			}
			cost[i] += p.CleanCost
			ev.Cleans = append(ev.Cleans, Clean{Agent: i, Removed: d.cleanBeam(mid, i)})
		}
	}
	if err := checkDerived(mid, next); err != nil {
		return nil, fmt.Errorf("derive: step %d: %w", next.Step, err)
	}
	// Apples: a reward is its costs plus the apple under the agent.
	taken := make([]bool, len(lay.Apples))
	for i := range n {
		apple := rewards[i] + cost[i]
		ev.Collected[i] = -1
		switch {
		case math.Abs(apple) < 1e-9:
		case math.Abs(apple-1) < 1e-9:
			k := view.AppleIndex(next.Pos[i].R, next.Pos[i].C)
			if k < 0 || next.AppleAlive[k] || taken[k] {
				return nil, fmt.Errorf("derive: step %d: agent %d earned an apple at %v where none was collected", next.Step, i, next.Pos[i])
			}
			taken[k] = true
			ev.Collected[i] = k
		default:
			return nil, fmt.Errorf("derive: step %d: agent %d's reward %v is not its beam costs (%v) plus at most one apple",
				next.Step, i, rewards[i], -cost[i])
		}
	}
	for k, was := range prev.AppleAlive {
		if !was && (next.AppleAlive[k] || taken[k]) {
			ev.Regrown = append(ev.Regrown, k)
		}
	}
	return ev, nil
}

// cleanBeam removes the waste in agent i's clean beam from st and returns
// the cells it cleared: the BeamLength x BeamWidth rectangle ahead of the
// agent, as the environment's clean beam covers it.
func (d *deriver) cleanBeam(st *ssd.State, i int) []ssd.Pos {
	lay := d.lay
	a, b, c, dd := ssd.Rotation(st.Orient[i])
	me := st.Pos[i]
	half := lay.Params.BeamWidth / 2
	var out []ssd.Pos
	for f := 1; f <= lay.Params.BeamLength; f++ {
		for off := -half; off <= half; off++ {
			q := ssd.Pos{R: me.R + a*f + b*off, C: me.C + c*f + dd*off}
			if q.R < 0 || q.R >= lay.Height || q.C < 0 || q.C >= lay.Width {
				continue
			}
			if k := d.riverAt[q.R*lay.Width+q.C]; k >= 0 && st.Waste[k] {
				st.Waste[k] = false
				out = append(out, q)
			}
		}
	}
	return out
}

// checkDerived compares the replayed hit counters, timeouts and waste with
// the recorded state after the step.
func checkDerived(mid, next *ssd.State) error {
	for j := range mid.Hits {
		if mid.Hits[j] != next.Hits[j] || mid.Timeout[j] != next.Timeout[j] {
			return fmt.Errorf("agent %d: derived hits %d and timeout %d, recorded %d and %d (the trajectory does not follow the rules)",
				j, mid.Hits[j], mid.Timeout[j], next.Hits[j], next.Timeout[j])
		}
	}
	added := 0
	for k, w := range mid.Waste {
		switch {
		case w && !next.Waste[k]:
			return fmt.Errorf("river cell %v: waste vanished without a clean beam", mid.Layout.River[k])
		case !w && next.Waste[k]:
			added++
		}
	}
	if added > 1 {
		return fmt.Errorf("%d waste cells appeared in one step (at most 1 can)", added)
	}
	return nil
}
