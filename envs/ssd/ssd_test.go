package ssd_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"policyevolve/envs"
	"policyevolve/envs/ssd"
)

// newView builds an environment on a built-in map, resets it with seed and
// returns a View of its state.
func newView(t testing.TB, game ssd.Game, mapName string, agents int, seed uint64) (*envs.Env, *ssd.View, *ssd.State) {
	t.Helper()
	m, err := envs.BuiltinMap(game, mapName)
	if err != nil {
		t.Fatal(err)
	}
	env, err := envs.New(envs.Config{Map: m, Agents: agents})
	if err != nil {
		t.Fatal(err)
	}
	env.Reset(seed)
	st := &ssd.State{}
	env.Snapshot(st)
	v, err := ssd.NewView(st)
	if err != nil {
		t.Fatal(err)
	}
	return env, v, st
}

func TestDirectionToAction(t *testing.T) {
	for _, c := range []struct {
		dr, dc, orient, want int
	}{
		{0, 0, ssd.North, ssd.Stand},
		{-1, 0, ssd.North, ssd.Forward},
		{1, 0, ssd.North, ssd.Backward},
		{0, -1, ssd.North, ssd.StepLeft},
		{0, 1, ssd.North, ssd.StepRight},
		{0, 1, ssd.East, ssd.Forward},
		{1, 0, ssd.East, ssd.StepRight},
		{-1, 0, ssd.East, ssd.StepLeft},
		{1, 0, ssd.South, ssd.Forward},
		{0, 1, ssd.South, ssd.StepLeft},
		{0, -1, ssd.West, ssd.Forward},
		{-1, 0, ssd.West, ssd.StepRight},
		{2, 2, ssd.North, ssd.Forward}, // not a unit step: the reference's fallback
	} {
		if got := ssd.DirectionToAction(c.dr, c.dc, c.orient); got != c.want {
			t.Errorf("DirectionToAction(%d, %d, %d) = %s, want %s", c.dr, c.dc, c.orient,
				ssd.ActionName(got), ssd.ActionName(c.want))
		}
	}
}

func TestRotations(t *testing.T) {
	for _, c := range []struct{ cur, target, dist, act int }{
		{0, 0, 0, ssd.Stand},
		{0, 1, 1, ssd.RotateRight},
		{0, 3, 1, ssd.RotateLeft},
		{0, 2, 2, ssd.RotateRight},
		{3, 0, 1, ssd.RotateRight},
		{1, 0, 1, ssd.RotateLeft},
		{2, 0, 2, ssd.RotateRight},
	} {
		if got := ssd.RotationDistance(c.cur, c.target); got != c.dist {
			t.Errorf("RotationDistance(%d, %d) = %d, want %d", c.cur, c.target, got, c.dist)
		}
		if got := ssd.RotateToward(c.cur, c.target); got != c.act {
			t.Errorf("RotateToward(%d, %d) = %s, want %s", c.cur, c.target, ssd.ActionName(got), ssd.ActionName(c.act))
		}
	}
	// Rotating right then moving forward follows the headings clockwise.
	for o := 0; o < 4; o++ {
		dr, dc := ssd.Heading(o)
		ndr, ndc := ssd.Heading((o + 1) % 4)
		if ndr != dc || ndc != -dr {
			t.Errorf("heading %d (%d,%d) then %d (%d,%d) is not a clockwise turn", o, dr, dc, o+1, ndr, ndc)
		}
	}
}

// bruteDist is an obviously correct BFS distance over open cells.
func bruteDist(v *ssd.View, src ssd.Pos) map[ssd.Pos]int {
	d := map[ssd.Pos]int{}
	if v.Wall(src.R, src.C) {
		return d
	}
	d[src] = 0
	q := []ssd.Pos{src}
	for len(q) > 0 {
		p := q[0]
		q = q[1:]
		for _, s := range [][2]int{{-1, 0}, {1, 0}, {0, -1}, {0, 1}} {
			n := ssd.Pos{R: p.R + s[0], C: p.C + s[1]}
			if _, ok := d[n]; !ok && !v.Wall(n.R, n.C) {
				d[n] = d[p] + 1
				q = append(q, n)
			}
		}
	}
	return d
}

func TestDistanceFieldAndVoronoi(t *testing.T) {
	for seed := uint64(0); seed < 5; seed++ {
		env, v, st := newView(t, ssd.Gathering, "large", 10, seed)
		// Tag two agents out so that Voronoi must ignore them.
		st.Timeout[3], st.Timeout[7] = 5, 1
		if err := v.Update(st); err != nil {
			t.Fatal(err)
		}
		w := v.Width()
		fields := make([]map[ssd.Pos]int, v.NumAgents())
		for i := range fields {
			fields[i] = bruteDist(v, v.AgentPos(i))
			got := v.DistanceField(v.AgentPos(i))
			for r := 0; r < v.Height(); r++ {
				for c := 0; c < w; c++ {
					want, ok := fields[i][ssd.Pos{R: r, C: c}]
					if !ok {
						want = ssd.Unreachable
					}
					if got[r*w+c] != want {
						t.Fatalf("seed %d agent %d: distance to (%d,%d) = %d, want %d", seed, i, r, c, got[r*w+c], want)
					}
				}
			}
		}
		owner, dist := v.Voronoi()
		for r := 0; r < v.Height(); r++ {
			for c := 0; c < w; c++ {
				wantOwner, wantDist := -1, ssd.Unreachable
				for i := range fields {
					if !v.Active(i) {
						continue
					}
					if d, ok := fields[i][ssd.Pos{R: r, C: c}]; ok && (wantOwner < 0 || d < wantDist) {
						wantOwner, wantDist = i, d
					}
				}
				if owner[r*w+c] != wantOwner || dist[r*w+c] != wantDist {
					t.Fatalf("seed %d: (%d,%d) owned by %d at %d, want %d at %d",
						seed, r, c, owner[r*w+c], dist[r*w+c], wantOwner, wantDist)
				}
			}
		}
		_ = env
	}
}

func TestCleanBeamCountAndBeamHits(t *testing.T) {
	env, v, st := newView(t, ssd.Cleanup, "default", 10, 3)
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 200; trial++ {
		i := rng.IntN(v.NumAgents())
		o := rng.IntN(4)
		p := v.AgentPos(i)
		// Brute force over the beam's rectangle.
		a, b, c, d := ssd.Rotation(o)
		prm := v.Params()
		want := 0
		for f := 1; f <= prm.BeamLength; f++ {
			for off := -prm.BeamWidth / 2; off <= prm.BeamWidth/2; off++ {
				if v.WasteAt(p.R+a*f+b*off, p.C+c*f+d*off) {
					want++
				}
			}
		}
		if got := v.CleanBeamCount(p.R, p.C, o); got != want {
			t.Fatalf("CleanBeamCount(%v, %d) = %d, want %d", p, o, got, want)
		}
		// Step the env with random moves to vary the state.
		acts := make([]int, v.NumAgents())
		for k := range acts {
			acts[k] = rng.IntN(4)
		}
		if _, err := env.Step(acts); err != nil {
			t.Fatal(err)
		}
		env.Snapshot(st)
		v.Update(st)
	}
	// BeamHitsFrom predicts exactly whom the environment's beam hits.
	for trial := 0; trial < 300 && !env.Done(); trial++ {
		shooter := rng.IntN(v.NumAgents())
		predicted := v.BeamHitsFrom(shooter)
		before := slices.Clone(st.Hits)
		beforeT := slices.Clone(st.Timeout)
		acts := make([]int, v.NumAgents())
		for k := range acts {
			acts[k] = ssd.Stand
		}
		acts[shooter] = ssd.Beam
		if _, err := env.Step(acts); err != nil {
			t.Fatal(err)
		}
		env.Snapshot(st)
		v.Update(st)
		var hit []int
		for j := range st.Hits {
			if st.Hits[j] != before[j] || (st.Timeout[j] > 0 && beforeT[j] <= 1) {
				hit = append(hit, j)
			}
		}
		if beforeT[shooter] > 1 { // the shooter was tagged out: no shot
			continue
		}
		if fmt.Sprint(hit) != fmt.Sprint(predicted) && !(len(hit) == 0 && len(predicted) == 0) {
			t.Fatalf("trial %d: beam from %d hit %v, BeamHitsFrom said %v", trial, shooter, hit, predicted)
		}
		// Random moves between shots.
		for k := range acts {
			acts[k] = rng.IntN(6)
		}
		if !env.Done() {
			env.Step(acts)
			env.Snapshot(st)
			v.Update(st)
		}
	}
}

// TestViewReturnsCopies: every slice a View hands out is fresh; writing to
// it changes neither the View nor the State.
func TestViewReturnsCopies(t *testing.T) {
	_, v, st := newView(t, ssd.Cleanup, "default", 10, 1)
	want := &ssd.State{}
	want.CopyFrom(st)

	walls := v.Walls()
	for r := range walls {
		for c := range walls[r] {
			walls[r][c] = !walls[r][c]
		}
	}
	for _, s := range [][]ssd.Pos{v.Apples(), v.AppleSpawns(), v.RiverCells(), v.StreamCells(), v.WasteCells()} {
		for i := range s {
			s[i] = ssd.Pos{R: -7, C: -7}
		}
	}
	ag := v.Agents()
	for i := range ag {
		ag[i].Pos, ag[i].Timeout = ssd.Pos{}, 99
	}
	opp := v.Opponents(0)
	for i := range opp {
		opp[i].Pos = ssd.Pos{}
	}
	for _, f := range [][]int{v.DistanceField(v.AgentPos(0)), v.AgentsAt(v.AgentPos(0).R, v.AgentPos(0).C)} {
		for i := range f {
			f[i] = -42
		}
	}
	o, d := v.Voronoi()
	clear(o)
	clear(d)
	if fmt.Sprint(st) != fmt.Sprint(want) {
		t.Fatal("the state changed through a slice a View returned")
	}
	if v.Wall(1, 1) || !v.Wall(0, 0) || v.ApplePos(0) != want.Layout.Apples[0] {
		t.Fatal("the view changed through a slice it returned")
	}
}

// vandal plays bfs but first scribbles over everything the View returns; it
// must play exactly like bfs.
func vandal(v *ssd.View, agent int) int {
	for _, s := range [][]ssd.Pos{v.Apples(), v.AppleSpawns(), v.RiverCells(), v.WasteCells()} {
		for i := range s {
			s[i].R++
		}
	}
	for _, row := range v.Walls() {
		clear(row)
	}
	for _, a := range v.Agents() {
		a.Pos.R = 0
	}
	f := v.DistanceField(v.AgentPos(agent))
	clear(f)
	return v.GreedyAction(agent)
}

func TestViewCannotChangeTheEpisode(t *testing.T) {
	m, _ := envs.BuiltinMap(ssd.Gathering, "large")
	env, _ := envs.New(envs.Config{Map: m, Agents: 10})
	all := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	play := func(p ssd.Policy) *envs.Result {
		res, err := envs.Run(context.Background(), env, []envs.Seat{{
			Actor:  &envs.PolicyActor{New: func(envs.EpisodeInfo) ssd.Policy { return p }},
			Agents: all,
		}}, envs.Options{Seed: 4})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	a, b := play((*ssd.View).GreedyAction), play(vandal)
	if !slices.Equal(a.Returns, b.Returns) || a.Metrics != b.Metrics {
		t.Fatalf("vandal changed the episode: %v vs %v", a.Returns, b.Returns)
	}
}

func TestBFSHelpers(t *testing.T) {
	// A corridor with a wall gap: 'A' at the far end.
	m, err := envs.ParseMap(ssd.Gathering, "t", "@@@@@@@\n@P...A@\n@.@@@.@\n@.....@\n@@@@@@@")
	if err != nil {
		t.Fatal(err)
	}
	env, _ := envs.New(envs.Config{Map: m, Agents: 1})
	env.Reset(0)
	st := &ssd.State{}
	env.Snapshot(st)
	v, _ := ssd.NewView(st)
	if p := v.AgentPos(0); p != (ssd.Pos{R: 1, C: 1}) {
		t.Fatalf("agent at %v", p)
	}
	if dr, dc, ok := v.BFSNearestApple(0); !ok || dr != 0 || dc != 1 {
		t.Errorf("BFSNearestApple = %d,%d,%v, want 0,1,true", dr, dc, ok)
	}
	if dr, dc, ok := v.BFSToward(0, 3, 1); !ok || dr != 1 || dc != 0 {
		t.Errorf("BFSToward(3,1) = %d,%d,%v", dr, dc, ok)
	}
	if _, _, ok := v.BFSToward(0, 2, 2); ok {
		t.Error("BFSToward a wall succeeded")
	}
	if dr, dc, ok := v.BFSToward(0, 1, 1); !ok || dr != 0 || dc != 0 {
		t.Errorf("BFSToward own cell = %d,%d,%v", dr, dc, ok)
	}
	if _, _, ok := v.BFSToTargets(0, nil); ok {
		t.Error("BFSToTargets(nil) succeeded")
	}
	// Equal distance to (1,5)... prefer the first discovered: north/south
	// before west/east; here (3,3) via south is 4 away, (1,4) via east 3.
	if dr, dc, ok := v.BFSToTargets(0, []ssd.Pos{{3, 3}, {1, 4}, {-5, 99}}); !ok || dr != 0 || dc != 1 {
		t.Errorf("BFSToTargets = %d,%d,%v", dr, dc, ok)
	}
	if d := v.Distance(ssd.Pos{R: 1, C: 1}, []ssd.Pos{{3, 5}}); d != 6 {
		t.Errorf("Distance = %d, want 6", d)
	}
	if d := v.Distance(ssd.Pos{R: 1, C: 1}, []ssd.Pos{{2, 3}}); d != ssd.Unreachable {
		t.Errorf("Distance to a wall = %d", d)
	}
}

// TestWholeMapHelpersAreMemoisedPerStep: a step's agents share one
// Voronoi division and one distance field per source; each gets its own
// copy; the next state is computed afresh.
func TestWholeMapHelpersAreMemoisedPerStep(t *testing.T) {
	env, v, st := newView(t, ssd.Gathering, "large", 10, 1)
	owner, dist := v.Voronoi()
	field := v.DistanceField(v.AgentPos(2))
	want := [3][]int{slices.Clone(owner), slices.Clone(dist), slices.Clone(field)}
	// Scribbling on one agent's results changes nothing for the next.
	owner[0], dist[5], field[7] = 99, 99, 99
	o2, d2 := v.Voronoi()
	f2 := v.DistanceField(v.AgentPos(2))
	if !slices.Equal(o2, want[0]) || !slices.Equal(d2, want[1]) || !slices.Equal(f2, want[2]) {
		t.Fatal("a memoised result changed when a caller wrote to its copy")
	}
	// Step the environment: the next View answers for the new state.
	actions := make([]int, v.NumAgents())
	for i := range actions {
		actions[i] = v.GreedyAction(i)
	}
	if _, err := env.Step(actions); err != nil {
		t.Fatal(err)
	}
	env.Snapshot(st)
	if err := v.Update(st); err != nil {
		t.Fatal(err)
	}
	fresh, err := ssd.NewView(st)
	if err != nil {
		t.Fatal(err)
	}
	o3, d3 := v.Voronoi()
	fo, fd := fresh.Voronoi()
	if !slices.Equal(o3, fo) || !slices.Equal(d3, fd) || !slices.Equal(v.DistanceField(v.AgentPos(2)), fresh.DistanceField(v.AgentPos(2))) {
		t.Fatal("after Update the View answered for the old state")
	}
}

// BenchmarkHelpers measures what one call of each View helper costs on
// Gathering large with 10 agents (the figures in the package doc). The
// "again" variants are a second call in the same step: memoised.
func BenchmarkHelpers(b *testing.B) {
	m, _ := envs.BuiltinMap(ssd.Gathering, "large")
	env, _ := envs.New(envs.Config{Map: m, Agents: 10})
	env.Reset(3)
	st := &ssd.State{}
	env.Snapshot(st)
	v, _ := ssd.NewView(st)
	apples := v.AppleSpawns()
	me := v.AgentPos(0)
	fresh := func(f func()) func(*testing.B) {
		return func(b *testing.B) {
			for b.Loop() {
				v.Update(st)
				f()
			}
		}
	}
	again := func(f func()) func(*testing.B) {
		return func(b *testing.B) {
			v.Update(st)
			f()
			for b.Loop() {
				f()
			}
		}
	}
	b.Run("BFSNearestApple", fresh(func() { v.BFSNearestApple(0) }))
	b.Run("Distance", fresh(func() { v.Distance(me, apples[len(apples)-1:]) }))
	b.Run("DistanceField", fresh(func() { v.DistanceField(me) }))
	b.Run("DistanceField/again", again(func() { v.DistanceField(me) }))
	b.Run("Voronoi", fresh(func() { v.Voronoi() }))
	b.Run("Voronoi/again", again(func() { v.Voronoi() }))
	b.Run("GreedyAction", fresh(func() { v.GreedyAction(0) }))
	b.Run("ExploitAction", fresh(func() { v.ExploitAction(0) }))
	b.Run("Apples", fresh(func() { v.Apples() }))
}

// BenchmarkVoronoiPerStep: all ten agents of a step ask for the Voronoi
// division, as a territory policy does; the first pays for the flood.
func BenchmarkVoronoiPerStep(b *testing.B) {
	m, _ := envs.BuiltinMap(ssd.Gathering, "large")
	env, _ := envs.New(envs.Config{Map: m, Agents: 10})
	st := &ssd.State{}
	env.Snapshot(st)
	v, _ := ssd.NewView(st)
	for b.Loop() {
		v.Update(st)
		for range 10 {
			v.Voronoi()
		}
	}
}
