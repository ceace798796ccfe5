package grammar

import (
	"math/rand"
	"strings"
	"testing"

	"policyevolve/envs"
	"policyevolve/envs/ssd"
)

// randomView is the first state of a one-agent Gathering episode on a
// random small map: walls and apples scattered, the agent somewhere.
func randomView(t *testing.T, rng *rand.Rand, h, w int) *ssd.View {
	t.Helper()
	rows := make([]string, h)
	for r := range rows {
		var b strings.Builder
		for c := 0; c < w; c++ {
			switch x := rng.Float64(); {
			case r == 0 || c == 0 || r == h-1 || c == w-1 || x < 0.12:
				b.WriteByte('@')
			case x < 0.5:
				b.WriteByte('A')
			default:
				b.WriteByte(' ')
			}
		}
		rows[r] = b.String()
	}
	pr, pc := 1+rng.Intn(h-2), 1+rng.Intn(w-2)
	rows[pr] = rows[pr][:pc] + "P" + rows[pr][pc+1:]
	m, err := envs.ParseMap(ssd.Gathering, "random", strings.Join(rows, "\n")+"\n")
	if err != nil {
		t.Fatal(err)
	}
	return firstView(t, m, 1)
}

// fourWays are the four moves' row and column steps.
var fourWays = [4][2]int{{-1, 0}, {1, 0}, {0, -1}, {0, 1}}

// mostApples counts, by trying every shortest path from cell c (at
// distance d from the agent) to t, the most alive apples one passes
// (c and t included).
func mostApples(v *ssd.View, from []int, c, t int) int {
	w := v.Width()
	n := 0
	if v.AppleAt(c/w, c%w) {
		n = 1
	}
	if c == t {
		return n
	}
	best := -1
	for _, dd := range fourWays {
		r, cc := c/w+dd[0], c%w+dd[1]
		if !v.InBounds(r, cc) || from[r*w+cc] != from[c]+1 {
			continue
		}
		// only cells from which t is still reached in time
		if k := mostApples(v, from, r*w+cc, t); k >= 0 && (best < 0 || k > best) {
			best = k
		}
	}
	if best < 0 {
		return -1 // a dead end: t is not reached from here along shortest paths
	}
	return n + best
}

// stepTo is the cell a move action leads to from me (-1 for another
// action).
func stepTo(v *ssd.View, me ssd.Pos, a int) int {
	for _, dd := range fourWays {
		if ssd.DirectionToAction(dd[0], dd[1], v.Orientation(0)) == a {
			return (me.R+dd[0])*v.Width() + me.C + dd[1]
		}
	}
	return -1
}

// TestRichPathIsTheBestShortestPath: on random small maps with walls,
// the step richStep takes toward any apple starts a shortest path (its
// first cell is one step nearer) passing the most apples of all shortest
// paths, as counted by trying them all.
func TestRichPathIsTheBestShortestPath(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	checked := 0
	for trial := 0; trial < 200; trial++ {
		v := randomView(t, rng, 7+rng.Intn(3), 7+rng.Intn(4))
		w := v.Width()
		me := v.AgentPos(0)
		from := v.DistanceField(me)
		for _, a := range v.Apples() {
			tc := a.R*w + a.C
			if d := from[tc]; d == ssd.Unreachable || d == 0 {
				continue
			}
			// the brute force's best over every first step
			want := -1
			for _, dd := range fourWays {
				r, c := me.R+dd[0], me.C+dd[1]
				if v.InBounds(r, c) && from[r*w+c] == 1 {
					if k := mostApples(v, from, r*w+c, tc); k > want {
						want = k
					}
				}
			}
			k := newKit()
			act, ok := k.richStep(v, 0, []ssd.Pos{a})
			if !ok {
				t.Fatalf("trial %d, apple %v: no step toward it", trial, a)
			}
			n, first := k.richPath(v, tc) // what the step was chosen by
			if got := stepTo(v, me, act); got != first {
				t.Fatalf("trial %d, apple %v: the step leads to cell %d, the best path starts at %d", trial, a, got, first)
			}
			if n != want {
				t.Fatalf("trial %d, apple %v: richPath counts %d apples, the best shortest path passes %d", trial, a, n, want)
			}
			if from[first] != 1 || mostApples(v, from, first, tc) != want {
				t.Fatalf("trial %d, apple %v: first cell %d is not on a best shortest path", trial, a, first)
			}
			checked++
		}
	}
	if checked < 500 {
		t.Fatalf("only %d paths checked", checked)
	}
}

// TestRichStepHeadsForTheNearest: richStep heads for a nearest target —
// its step brings the agent one step nearer to one of them — and
// declines with no reachable target or standing on one.
func TestRichStepHeadsForTheNearest(t *testing.T) {
	rng := rand.New(rand.NewSource(4))
	for trial := 0; trial < 100; trial++ {
		v := randomView(t, rng, 8, 9)
		me := v.AgentPos(0)
		apples := v.Apples()
		near := v.Distance(me, apples)
		a, ok := newKit().richStep(v, 0, apples)
		if near == ssd.Unreachable || near == 0 {
			if ok {
				t.Fatalf("trial %d: a step (%d) with no apple to head for", trial, a)
			}
			continue
		}
		if !ok {
			t.Fatalf("trial %d: no step toward apples %d steps away", trial, near)
		}
		c := stepTo(v, me, a)
		if c < 0 {
			t.Fatalf("trial %d: action %d is not a move", trial, a)
		}
		next := ssd.Pos{R: c / v.Width(), C: c % v.Width()}
		if got := v.Distance(next, apples); got != near-1 {
			t.Fatalf("trial %d: the step leads %d steps from the nearest apple, want %d", trial, got, near-1)
		}
	}
	if _, ok := newKit().richStep(randomView(t, rng, 8, 9), 0, nil); ok {
		t.Fatal("a step with no targets")
	}
}

// TestPathsKeepTheStepDeadline: zones walked by the richest paths — every
// harvester weighing each of its nearest apples' shortest paths every
// step, the zones cut again whenever a beam tags one out — keep within
// the sandbox's default step deadline on the interpreter, on the larger
// default map (Gathering's). The deadline counts CPU time, so a busy
// machine does not make it fail.
func TestPathsKeepTheStepDeadline(t *testing.T) {
	if raceEnabled {
		t.Skip("the interpreter's worker is not built under the race detector")
	}
	g := Genome{Game: ssd.Gathering,
		Harvest:    Harvest{Kind: Zones, Zones: ZonesParams{Refine: maxRefine, Match: true, Share: true, Paths: true}},
		Aggression: Aggression{Kind: Opportunistic, Opportunistic: OpportunisticParams{Reach: maxReach, Turn: true}},
		Cleaning:   Cleaning{Kind: NoCleaning}}
	if res := playOnYaegi(t, g, 300); res.Metrics.Efficiency <= 0 {
		t.Fatalf("nothing collected (efficiency %v)", res.Metrics.Efficiency)
	}
}
