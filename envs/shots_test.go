package envs

import (
	"context"
	"math"
	"slices"
	"testing"

	"policyevolve/envs/ssd"
)

// TestShotsAgreeWithTheEnvironment replays recorded episodes full of beams
// and checks, step by step, that the shots Shots derives explain what the
// environment did: the hits and timeouts after the step follow from firing
// exactly those beams over exactly those cells in agent order, and in
// Cleanup every shooter paid the firing or cleaning cost and no other agent
// that chose to fire did.
func TestShotsAgreeWithTheEnvironment(t *testing.T) {
	for _, c := range []struct {
		game          ssd.Game
		mapName       string
		agents, steps int
		policy        string
		seeds         []uint64
	}{
		{ssd.Gathering, "small", 6, 300, "exploit", []uint64{0, 1, 2}},
		{ssd.Gathering, "small", 6, 300, "random", []uint64{3, 4}},
		{ssd.Cleanup, "default", 10, 300, "exploit", []uint64{0, 1, 2}},
		{ssd.Cleanup, "small", 5, 300, "random", []uint64{3, 4}},
	} {
		env := testEnv(t, c.game, c.mapName, c.agents, c.steps)
		all := make([]int, c.agents)
		for i := range all {
			all[i] = i
		}
		var fired, suppressed int
		for _, seed := range c.seeds {
			res, err := Run(context.Background(), env, []Seat{{Actor: builtinActor(t, c.policy), Agents: all}},
				Options{Seed: seed, Record: true})
			if err != nil {
				t.Fatal(err)
			}
			tr := res.Trajectory
			before := &tr.Reset
			for s, rec := range tr.Steps {
				shots, err := Shots(before, rec.Actions)
				if err != nil {
					t.Fatalf("%s seed %d step %d: %v", c.policy, seed, s, err)
				}
				f, sup := checkShots(t, before, &rec, shots)
				fired += f
				suppressed += sup
				if t.Failed() {
					t.Fatalf("%v %s %s seed %d step %d: shots %v", c.game, c.mapName, c.policy, seed, s, shots)
				}
				before = &rec.State
			}
		}
		t.Logf("%v %s %s: %d beams fired, %d beams chosen by agents tagged earlier in the step", c.game, c.mapName, c.policy, fired, suppressed)
		if fired == 0 {
			t.Errorf("%v %s %s: no beam fired; the test checks nothing", c.game, c.mapName, c.policy)
		}
		if c.policy == "exploit" && suppressed == 0 {
			t.Errorf("%v %s %s: no agent was tagged before its own shot; the test misses that case", c.game, c.mapName, c.policy)
		}
	}
}

// checkShots is an independent account of the action phase of one step,
// written from the rules the Env documents: timeouts drop first, agents
// act in index order, agents that moved earlier in the step are hit where
// they moved to. It returns how many beams fired and how many agents chose
// to fire but were tagged by an earlier agent of the step.
func checkShots(t *testing.T, before *ssd.State, rec *StepRecord, shots []Shot) (fired, suppressed int) {
	t.Helper()
	lay := before.Layout
	p := lay.Params
	n := lay.NumAgents
	timeout := slices.Clone(before.Timeout)
	hits := slices.Clone(before.Hits)
	for i := range timeout {
		timeout[i] = max(timeout[i]-1, 0)
	}
	next := 0
	for i, a := range rec.Actions {
		if a != ssd.Beam && a != ssd.Clean {
			continue
		}
		if timeout[i] > 0 {
			if before.Timeout[i] <= 1 {
				suppressed++
			}
			if next < len(shots) && shots[next].Agent == i {
				t.Errorf("agent %d is out at its turn but is said to fire", i)
			}
			continue
		}
		if next >= len(shots) || shots[next].Agent != i {
			t.Errorf("agent %d fired (%s) but has no shot", i, ssd.ActionName(a))
			continue
		}
		s := shots[next]
		next++
		fired++
		if s.Clean != (a == ssd.Clean) {
			t.Errorf("agent %d: shot.Clean %v for action %s", i, s.Clean, ssd.ActionName(a))
		}
		if want := BeamCells(lay, before.Pos[i], before.Orient[i]); !slices.Equal(s.Cells, want) {
			t.Errorf("agent %d: cells %v, want %v", i, s.Cells, want)
		}
		if s.Clean {
			continue
		}
		for j := range n {
			if j == i || timeout[j] > 0 {
				continue
			}
			at := before.Pos[j]
			if j < i {
				at = rec.State.Pos[j]
			}
			if slices.Contains(s.Cells, at) {
				hits[j]++
				if hits[j] >= p.HitsToTag {
					timeout[j] = p.TimeoutSteps
					hits[j] = 0
				}
			}
		}
	}
	if next != len(shots) {
		t.Errorf("%d shots, %d accounted for", len(shots), next)
	}
	if !slices.Equal(timeout, rec.State.Timeout) || !slices.Equal(hits, rec.State.Hits) {
		t.Errorf("after the shots: timeouts %v hits %v; the environment has %v and %v",
			timeout, hits, rec.State.Timeout, rec.State.Hits)
	}
	if lay.Game == ssd.Cleanup {
		checkFiringCosts(t, before, rec, shots)
	}
	return fired, suppressed
}

// checkFiringCosts: in Cleanup a shooter's reward is its apple, less the
// cost of its beam, less FirePenalty per hit taken. Off the apple spawns
// there is no apple, so the cost is the reward modulo FirePenalty.
func checkFiringCosts(t *testing.T, before *ssd.State, rec *StepRecord, shots []Shot) {
	t.Helper()
	lay := before.Layout
	for i, a := range rec.Actions {
		if (a != ssd.Beam && a != ssd.Clean) || slices.Contains(lay.Apples, before.Pos[i]) {
			continue
		}
		paid := math.Mod(-rec.Rewards[i], lay.Params.FirePenalty)
		shot := slices.ContainsFunc(shots, func(s Shot) bool { return s.Agent == i })
		if want := map[bool]float64{true: 1, false: 0}[shot]; paid != want {
			t.Errorf("agent %d (%s, reward %v): paid %v for firing, want %v", i, ssd.ActionName(a), rec.Rewards[i], paid, want)
		}
	}
}

// cells makes a list of cells from row, column pairs.
func cells(rc ...int) []ssd.Pos {
	var out []ssd.Pos
	for k := 0; k < len(rc); k += 2 {
		out = append(out, ssd.Pos{R: rc[k], C: rc[k+1]})
	}
	return out
}

func TestBeamCells(t *testing.T) {
	lay := &ssd.Layout{Game: ssd.Cleanup, Height: 5, Width: 6, Walls: make([]bool, 30),
		Params: ssd.Params{BeamLength: 3, BeamWidth: 3}}
	lay.Walls[1*6+3] = true // a wall at row 1, column 3
	for _, c := range []struct {
		p      ssd.Pos
		orient int
		want   []ssd.Pos
	}{
		// Facing east from (1,1): rows 0-2, columns 2-4, row by row away from
		// the shooter, left to right as the shooter sees it; the wall is skipped.
		{ssd.Pos{R: 1, C: 1}, ssd.East, cells(0, 2, 1, 2, 2, 2, 0, 3, 2, 3, 0, 4, 1, 4, 2, 4)},
		// Facing north from the top row: everything is outside the grid.
		{ssd.Pos{R: 0, C: 2}, ssd.North, nil},
		// Facing west from (4,1): one column, right to left (south is the
		// shooter's left), clipped at the bottom.
		{ssd.Pos{R: 4, C: 1}, ssd.West, cells(4, 0, 3, 0)},
	} {
		if got := BeamCells(lay, c.p, c.orient); !slices.Equal(got, c.want) {
			t.Errorf("BeamCells(%v, %d) = %v, want %v", c.p, c.orient, got, c.want)
		}
	}
}

func TestShotsRejectsBadInput(t *testing.T) {
	env := testEnv(t, ssd.Gathering, "small", 2, 10)
	var st ssd.State
	env.Snapshot(&st)
	if _, err := Shots(&st, []int{ssd.Beam}); err == nil {
		t.Error("one action for two agents: no error")
	}
	st.Orient[0] = 7
	if _, err := Shots(&st, []int{ssd.Beam, ssd.Beam}); err == nil {
		t.Error("bad orientation: no error")
	}
}
