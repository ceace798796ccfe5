package render

import (
	"fmt"
	"image"
	"image/color"

	"policyevolve/envs"
	"policyevolve/envs/ssd"
)

// DefaultScale is the side of a cell in pixels, as in the reference's
// renderer: large enough to show which way an agent faces, small enough
// that the paper's largest map (38x16 cells) is a 304x128 image.
const DefaultScale = 8

// MaxScale bounds Options.Scale (a 38-cell map is then 2432 pixels wide).
const MaxScale = 64

// Options control how frames are drawn. The zero value draws at
// DefaultScale with one colour per agent.
type Options struct {
	Scale int // pixels per cell side, 1 to MaxScale; 0 means DefaultScale
	// Sides gives each agent's policy (0, 1, …) when several policies
	// play, as elo.Sides does for a match: one hue per policy. nil means
	// one policy plays every agent.
	Sides []int
}

// Frame is what one picture shows: a state and the beams fired in the
// step that led to it (none for the state after Reset).
type Frame struct {
	State *ssd.State
	Shots []envs.Shot
}

// Frames is the number of frames of tr: its steps and the state after
// Reset.
func Frames(tr *envs.Trajectory) int { return len(tr.Steps) + 1 }

// FrameAt returns frame t of tr: the state after t steps and the beams
// fired in step t. The frame shares its state with tr.
func FrameAt(tr *envs.Trajectory, t int) (Frame, error) {
	if t < 0 || t >= Frames(tr) {
		return Frame{}, fmt.Errorf("render: frame %d out of range (frames 0-%d)", t, Frames(tr)-1)
	}
	if t == 0 {
		return Frame{State: &tr.Reset}, nil
	}
	before := &tr.Reset
	if t > 1 {
		before = &tr.Steps[t-2].State
	}
	rec := &tr.Steps[t-1]
	shots, err := envs.Shots(before, rec.Actions)
	if err != nil {
		return Frame{}, fmt.Errorf("render: frame %d: %w", t, err)
	}
	return Frame{State: &rec.State, Shots: shots}, nil
}

// Renderer draws frames of one layout. It is safe for concurrent use.
type Renderer struct {
	lay     *ssd.Layout
	scale   int
	palette color.Palette
	agents  []color.RGBA // per agent
	terrain []uint8      // per cell: floor, wall, river or stream (before waste)
	river   []int32      // per cell: river index or -1
	apple   []int32      // per cell: apple index or -1
	disc    []bool       // scale*scale: the apple's pixels
	arrow   [4][]bool    // per orientation, scale*scale: an agent's pixels
}

// New returns a Renderer for frames of lay.
func New(lay *ssd.Layout, o Options) (*Renderer, error) {
	if err := lay.Check(); err != nil {
		return nil, fmt.Errorf("render: %w", err)
	}
	if o.Scale == 0 {
		o.Scale = DefaultScale
	}
	if o.Scale < 1 || o.Scale > MaxScale {
		return nil, fmt.Errorf("render: scale %d out of range 1-%d", o.Scale, MaxScale)
	}
	if o.Sides != nil {
		if len(o.Sides) != lay.NumAgents {
			return nil, fmt.Errorf("render: %d sides for %d agents", len(o.Sides), lay.NumAgents)
		}
		for i, s := range o.Sides {
			if s < 0 || s >= maxAgentColours {
				return nil, fmt.Errorf("render: agent %d has side %d (want 0-%d)", i, s, maxAgentColours-1)
			}
		}
	}
	r := &Renderer{lay: lay, scale: o.Scale, agents: agentColours(lay.NumAgents, o.Sides)}
	for _, c := range baseColours {
		r.palette = append(r.palette, c)
	}
	for i := 0; i < min(lay.NumAgents, maxAgentColours); i++ {
		r.palette = append(r.palette, r.agents[i])
	}
	n := lay.Height * lay.Width
	r.terrain = make([]uint8, n)
	r.river = make([]int32, n)
	r.apple = make([]int32, n)
	for i := range n {
		r.terrain[i], r.river[i], r.apple[i] = idxFloor, -1, -1
		if lay.Walls[i] {
			r.terrain[i] = idxWall
		}
	}
	for k, p := range lay.River {
		r.terrain[p.R*lay.Width+p.C] = idxRiver
		r.river[p.R*lay.Width+p.C] = int32(k)
	}
	for _, p := range lay.Stream {
		r.terrain[p.R*lay.Width+p.C] = idxStream
	}
	for k, p := range lay.Apples {
		r.apple[p.R*lay.Width+p.C] = int32(k)
	}
	r.disc, r.arrow = shapes(o.Scale)
	return r, nil
}

// shapes returns the pixel masks of an apple (a disc) and of an agent
// facing each way (a triangle whose tip touches the cell's front edge),
// tested at pixel centres. Below 4 pixels a cell is too small for shapes:
// both fill it.
func shapes(scale int) (disc []bool, arrow [4][]bool) {
	disc = make([]bool, scale*scale)
	for o := range arrow {
		arrow[o] = make([]bool, scale*scale)
	}
	for y := range scale {
		for x := range scale {
			i := y*scale + x
			if scale < 4 {
				disc[i] = true
				for o := range arrow {
					arrow[o][i] = true
				}
				continue
			}
			dx := (float64(x)+0.5)/float64(scale) - 0.5 // east
			dy := (float64(y)+0.5)/float64(scale) - 0.5 // south
			disc[i] = dx*dx+dy*dy <= 0.36*0.36
			for o := range arrow {
				a, b, c, d := ssd.Rotation(o)
				// Inverse of the rotation: forward and right components.
				fwd := float64(b)*dx - float64(d)*dy
				right := float64(c)*dy - float64(a)*dx
				arrow[o][i] = fwd <= 0.5 && abs(right) <= (0.5-fwd)/2
			}
		}
	}
	return disc, arrow
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// Bounds is the rectangle of every image the Renderer draws.
func (r *Renderer) Bounds() image.Rectangle {
	return image.Rect(0, 0, r.lay.Width*r.scale, r.lay.Height*r.scale)
}

// Palette is the palette of every image the Renderer draws. Index 0 is
// transparent and appears only in GIF frame deltas.
func (r *Renderer) Palette() color.Palette { return r.palette }

// AgentColour is the colour agent i is drawn in while active.
func (r *Renderer) AgentColour(i int) color.RGBA { return r.agents[i] }

// Image draws f on a new image.
func (r *Renderer) Image(f Frame) (*image.Paletted, error) {
	img := image.NewPaletted(r.Bounds(), r.palette)
	return img, r.Draw(img, f)
}

// Draw draws f over the whole of dst, which must have the Renderer's
// Bounds and Palette.
func (r *Renderer) Draw(dst *image.Paletted, f Frame) error {
	if dst.Rect != r.Bounds() || len(dst.Palette) != len(r.palette) {
		return fmt.Errorf("render: destination %v with %d colours; want %v with %d", dst.Rect, len(dst.Palette), r.Bounds(), len(r.palette))
	}
	cells, err := r.cells(f)
	if err != nil {
		return err
	}
	s := r.scale
	for cell, c := range cells {
		x0, y0 := (cell%r.lay.Width)*s, (cell/r.lay.Width)*s
		for y := range s {
			row := dst.Pix[(y0+y)*dst.Stride+x0:][:s]
			for x := range row {
				i := y*s + x
				switch {
				case c.agent != 0 && r.arrow[c.orient][i]:
					row[x] = c.agent
				case c.apple && r.disc[i]:
					row[x] = idxApple
				default:
					row[x] = c.ground
				}
			}
		}
	}
	return nil
}

// cell is what one map cell shows.
type cell struct {
	ground uint8 // terrain, waste or beam
	apple  bool
	agent  uint8 // palette index of the agent on top, or 0 for none
	orient int
	id     int // the agent's index, when agent != 0
}

// cells resolves f into what each cell shows: terrain, then waste, then
// beams (cleaning beams over the others, as the reference draws them),
// apples on top of the ground, and agents last, tagged-out ones under
// active ones, later agents over earlier ones.
func (r *Renderer) cells(f Frame) ([]cell, error) {
	st := f.State
	if st == nil {
		return nil, fmt.Errorf("render: frame without a state")
	}
	if st.Layout != r.lay {
		return nil, fmt.Errorf("render: the frame's layout is not the renderer's")
	}
	if err := st.Check(); err != nil {
		return nil, fmt.Errorf("render: %w", err)
	}
	w := r.lay.Width
	out := make([]cell, len(r.terrain))
	for i, t := range r.terrain {
		out[i] = cell{ground: t}
		if k := r.river[i]; k >= 0 && st.Waste[k] {
			out[i].ground = idxWaste
		}
		if k := r.apple[i]; k >= 0 && st.AppleAlive[k] {
			out[i].apple = true
		}
	}
	for _, clean := range []bool{false, true} {
		for _, sh := range f.Shots {
			if sh.Clean != clean {
				continue
			}
			idx := uint8(idxBeam)
			if clean {
				idx = idxCleanBeam
			}
			for _, p := range sh.Cells {
				if p.R < 0 || p.R >= r.lay.Height || p.C < 0 || p.C >= w {
					return nil, fmt.Errorf("render: beam cell %v outside the map", p)
				}
				out[p.R*w+p.C].ground = idx
			}
		}
	}
	for _, active := range []bool{false, true} {
		for i, p := range st.Pos {
			if (st.Timeout[i] == 0) != active {
				continue
			}
			c := &out[p.R*w+p.C]
			c.agent, c.orient, c.id = idxTagged, st.Orient[i], i
			if active {
				c.agent = uint8(idxAgents + i%maxAgentColours)
			}
		}
	}
	return out, nil
}
