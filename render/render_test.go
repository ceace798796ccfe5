package render

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"policyevolve/envs"
	"policyevolve/envs/ssd"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// episode describes a short recorded episode: policy a alone, or a on the
// even agents and b on the odd ones as in a match.
type episode struct {
	game          ssd.Game
	mapName       string
	agents, steps int
	a, b          string
	seed          uint64
}

// record plays e and returns its trajectory and the render options that
// colour its sides.
func (e episode) record(t testing.TB) (*envs.Trajectory, Options) {
	t.Helper()
	m, err := envs.BuiltinMap(e.game, e.mapName)
	if err != nil {
		t.Fatal(err)
	}
	env, err := envs.New(envs.Config{Map: m, Agents: e.agents, MaxSteps: e.steps})
	if err != nil {
		t.Fatal(err)
	}
	actor := func(name string) envs.Actor {
		f, err := envs.Builtin(name)
		if err != nil {
			t.Fatal(err)
		}
		return &envs.PolicyActor{New: f}
	}
	var o Options
	var seats []envs.Seat
	if e.b == "" {
		all := make([]int, e.agents)
		for i := range all {
			all[i] = i
		}
		seats = []envs.Seat{{Actor: actor(e.a), Agents: all}}
	} else {
		var even, odd []int
		o.Sides = make([]int, e.agents)
		for i := range e.agents {
			o.Sides[i] = i % 2
			if i%2 == 0 {
				even = append(even, i)
			} else {
				odd = append(odd, i)
			}
		}
		seats = []envs.Seat{{Actor: actor(e.a), Agents: even}, {Actor: actor(e.b), Agents: odd}}
	}
	res, err := envs.Run(context.Background(), env, seats, envs.Options{Seed: e.seed, Record: true})
	if err != nil {
		t.Fatal(err)
	}
	return res.Trajectory, o
}

// goldenFrames are the frames the golden PNG and text tests draw; each
// states what it must show, and the test checks that it does, so that a
// change in the policies cannot quietly leave a golden file showing less.
var goldenFrames = []struct {
	name   string
	ep     episode
	frame  int
	scale  int
	beams  int // tagging or penalty beams fired in the step
	cleans int // cleaning beams
	tagged int // agents tagged out
}{
	{"gathering_large_start", episode{ssd.Gathering, "large", 10, 5, "bfs", "", 0}, 0, 0, 0, 0, 0},
	{"gathering_small_beam_tagged", episode{ssd.Gathering, "small", 4, 10, "exploit", "", 1}, 4, 0, 1, 0, 2},
	{"gathering_large_match", episode{ssd.Gathering, "large", 10, 35, "exploit", "bfs", 0}, 32, 0, 3, 0, 5},
	{"cleanup_default_match", episode{ssd.Cleanup, "default", 10, 30, "exploit", "random", 2}, 28, 0, 1, 1, 5},
	{"cleanup_small_scale3", episode{ssd.Cleanup, "small", 5, 30, "random", "", 3}, 26, 3, 1, 1, 1},
}

// goldenFrame returns frame i of goldenFrames with its renderer, after
// checking that it shows what it is meant to.
func goldenFrame(t *testing.T, i int) (*Renderer, Frame) {
	t.Helper()
	g := goldenFrames[i]
	tr, o := g.ep.record(t)
	o.Scale = g.scale
	r, err := New(tr.Layout, o)
	if err != nil {
		t.Fatal(err)
	}
	f, err := FrameAt(tr, g.frame)
	if err != nil {
		t.Fatal(err)
	}
	beams, cleans, tagged := 0, 0, 0
	for _, s := range f.Shots {
		if s.Clean {
			cleans++
		} else {
			beams++
		}
	}
	for _, to := range f.State.Timeout {
		if to > 0 {
			tagged++
		}
	}
	if beams != g.beams || cleans != g.cleans || tagged != g.tagged {
		t.Fatalf("%s: frame %d has %d beams, %d cleaning beams, %d agents tagged out; want %d, %d, %d (pick another frame)",
			g.name, g.frame, beams, cleans, tagged, g.beams, g.cleans, g.tagged)
	}
	return r, f
}

func TestGoldenPNG(t *testing.T) {
	for i, g := range goldenFrames {
		t.Run(g.name, func(t *testing.T) {
			r, f := goldenFrame(t, i)
			img, err := r.Image(f)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", g.name+".png")
			if *update {
				var buf bytes.Buffer
				if err := png.Encode(&buf, img); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./render -update to create it)", err)
			}
			want, err := png.Decode(bytes.NewReader(raw))
			if err != nil {
				t.Fatal(err)
			}
			if diff := comparePixels(img, want); diff != "" {
				got := filepath.Join(t.TempDir(), g.name+".png")
				var buf bytes.Buffer
				png.Encode(&buf, img)
				os.WriteFile(got, buf.Bytes(), 0o644)
				t.Errorf("%s: %s (drawn now: %s; run go test ./render -update if the change is meant)", path, diff, got)
			}
		})
	}
}

// comparePixels compares two images colour by colour and describes the
// first difference, or returns "".
func comparePixels(got, want image.Image) string {
	if got.Bounds() != want.Bounds() {
		return fmt.Sprintf("bounds %v, want %v", got.Bounds(), want.Bounds())
	}
	n, first := 0, ""
	b := got.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r1, g1, b1, a1 := got.At(x, y).RGBA()
			r2, g2, b2, a2 := want.At(x, y).RGBA()
			if r1 != r2 || g1 != g2 || b1 != b2 || a1 != a2 {
				if n == 0 {
					first = fmt.Sprintf("(%d,%d) is %v, want %v", x, y, got.At(x, y), want.At(x, y))
				}
				n++
			}
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%d pixels differ, first %s", n, first)
}

// TestDrawShowsTheState checks the picture against the state cell by cell,
// independently of the golden files: each cell's centre pixel has the
// colour of what stands there.
func TestDrawShowsTheState(t *testing.T) {
	for i, g := range goldenFrames {
		r, f := goldenFrame(t, i)
		img, err := r.Image(f)
		if err != nil {
			t.Fatal(err)
		}
		st, lay := f.State, f.State.Layout
		want := make([]uint8, lay.Height*lay.Width)
		for k := range want {
			want[k] = idxFloor
			if lay.Walls[k] {
				want[k] = idxWall
			}
		}
		for k, p := range lay.River {
			want[p.R*lay.Width+p.C] = map[bool]uint8{true: idxWaste, false: idxRiver}[st.Waste[k]]
		}
		for _, p := range lay.Stream {
			want[p.R*lay.Width+p.C] = idxStream
		}
		for _, clean := range []bool{false, true} {
			for _, s := range f.Shots {
				for _, p := range s.Cells {
					if s.Clean == clean {
						want[p.R*lay.Width+p.C] = map[bool]uint8{true: idxCleanBeam, false: idxBeam}[clean]
					}
				}
			}
		}
		for k, p := range lay.Apples {
			if st.AppleAlive[k] {
				want[p.R*lay.Width+p.C] = idxApple
			}
		}
		for _, active := range []bool{false, true} {
			for a, p := range st.Pos {
				if (st.Timeout[a] == 0) == active {
					want[p.R*lay.Width+p.C] = map[bool]uint8{true: uint8(idxAgents + a), false: idxTagged}[active]
				}
			}
		}
		s := r.scale
		for k, w := range want {
			x, y := (k%lay.Width)*s+s/2, (k/lay.Width)*s+s/2
			if got := img.ColorIndexAt(x, y); got != w {
				t.Errorf("%s: cell (%d,%d) shows colour %d, want %d", g.name, k/lay.Width, k%lay.Width, got, w)
			}
		}
	}
}

// TestAgentsPointWhereTheyFace: the tip of an agent's triangle is on the
// side of the cell it faces.
func TestAgentsPointWhereTheyFace(t *testing.T) {
	_, arrow := shapes(DefaultScale)
	s := DefaultScale
	for o := range 4 {
		dr, dc := ssd.Heading(o)
		// Count the agent's pixels in the front and the back half.
		front, back := 0, 0
		for y := range s {
			for x := range s {
				if !arrow[o][y*s+x] {
					continue
				}
				ahead := float64(dc)*(float64(x)+0.5-float64(s)/2) + float64(dr)*(float64(y)+0.5-float64(s)/2)
				if ahead > 0 {
					front++
				} else {
					back++
				}
			}
		}
		if front == 0 || back <= 2*front {
			t.Errorf("orientation %d: %d pixels in front, %d behind; want a triangle pointing ahead", o, front, back)
		}
	}
}

func TestAgentColours(t *testing.T) {
	// One policy: every agent its own colour.
	self := agentColours(10, nil)
	seen := map[[3]uint8]bool{}
	for i, c := range self {
		k := [3]uint8{c.R, c.G, c.B}
		if seen[k] {
			t.Errorf("self-play: agent %d shares colour %v", i, c)
		}
		seen[k] = true
	}
	// A match: side 0 blue, side 1 red, each agent still distinct.
	sides := []int{0, 1, 0, 1, 0, 1}
	match := agentColours(6, sides)
	seen = map[[3]uint8]bool{}
	for i, c := range match {
		if sides[i] == 0 && !(c.B > c.R && c.B > c.G) || sides[i] == 1 && !(c.R > c.B && c.R > c.G) {
			t.Errorf("agent %d of side %d has colour %v", i, sides[i], c)
		}
		k := [3]uint8{c.R, c.G, c.B}
		if seen[k] {
			t.Errorf("match: agent %d shares colour %v", i, c)
		}
		seen[k] = true
	}
}

func TestBadInput(t *testing.T) {
	tr, _ := episode{ssd.Gathering, "small", 2, 5, "bfs", "", 0}.record(t)
	for _, o := range []Options{{Scale: -1}, {Scale: MaxScale + 1}, {Sides: []int{0}}, {Sides: []int{0, -1}}} {
		if _, err := New(tr.Layout, o); err == nil {
			t.Errorf("New(%+v): no error", o)
		}
	}
	for _, f := range []int{-1, 6} {
		if _, err := FrameAt(tr, f); err == nil {
			t.Errorf("FrameAt(%d) of a 5-step episode: no error", f)
		}
	}
	r, _ := New(tr.Layout, Options{})
	f, _ := FrameAt(tr, 1)
	if err := r.Draw(image.NewPaletted(image.Rect(0, 0, 3, 3), r.Palette()), f); err == nil {
		t.Error("Draw on an image of the wrong size: no error")
	}
	other, _ := episode{ssd.Gathering, "small", 2, 5, "bfs", "", 0}.record(t)
	if _, err := r.Image(Frame{State: &other.Reset}); err == nil {
		t.Error("a frame of another layout: no error")
	}
	var buf bytes.Buffer
	for _, a := range []Animation{{From: 3, To: 2}, {To: 6}, {From: -1}, {Delay: 1}} {
		if err := WriteGIF(&buf, tr, Options{}, a); err == nil {
			t.Errorf("WriteGIF(%+v): no error", a)
		}
	}
}
