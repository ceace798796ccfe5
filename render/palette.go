package render

import (
	"image/color"
	"math"
)

// Palette indices. The terrain colours are the reference renderer's.
const (
	idxTransparent = iota // only in GIF frame deltas: "unchanged"
	idxFloor
	idxWall
	idxApple
	idxRiver
	idxWaste
	idxStream
	idxBeam
	idxCleanBeam
	idxTagged
	idxAgents // the first agent colour
)

// maxAgentColours bounds the palette; agents beyond it reuse colours.
const maxAgentColours = 64

var baseColours = [idxAgents]color.RGBA{
	idxTransparent: {0, 0, 0, 0},
	idxFloor:       {0, 0, 0, 255},
	idxWall:        {127, 127, 127, 255},
	idxApple:       {0, 200, 0, 255},
	idxRiver:       {100, 180, 255, 255},
	idxWaste:       {139, 90, 43, 255},
	idxStream:      {0, 180, 200, 255},
	idxBeam:        {255, 255, 60, 255},
	idxCleanBeam:   {100, 255, 255, 255},
	idxTagged:      {150, 150, 150, 255},
}

// sideHues are the hues of the policies of a mixed game, in order: blue
// and red as the reference draws "self" and "other", then purple and
// orange.
var sideHues = []float64{225, 0, 275, 30}

// agentColours returns one colour per agent. With one side, the hues run
// from blue through purple and red to orange, alternating deep and light
// (never green or yellow, the colours of apples and beams). With several,
// agent i takes its side's hue, in shades from deep to light by its rank
// among the side's agents.
func agentColours(n int, sides []int) []color.RGBA {
	out := make([]color.RGBA, n)
	nSides := 0
	for _, s := range sides {
		nSides = max(nSides, s+1)
	}
	if nSides <= 1 {
		for i := range out {
			sat := 0.85
			if i%2 == 1 {
				sat = 0.5
			}
			out[i] = hsv(200+190*float64(i)/float64(max(n, 2)), sat, 1)
		}
		return out
	}
	count := make([]int, nSides)
	for _, s := range sides {
		count[s]++
	}
	rank := make([]int, nSides)
	for i, s := range sides {
		light := 0.0
		if count[s] > 1 {
			light = float64(rank[s]) / float64(count[s]-1)
		}
		rank[s]++
		out[i] = hsv(sideHues[s%len(sideHues)]+float64(s/len(sideHues))*15, 0.9-0.55*light, 1)
	}
	return out
}

// hsv converts a hue in degrees, a saturation and a value in [0, 1].
func hsv(h, s, v float64) color.RGBA {
	h = math.Mod(h, 360)
	if h < 0 {
		h += 360
	}
	c := v * s
	x := c * (1 - math.Abs(math.Mod(h/60, 2)-1))
	m := v - c
	var r, g, b float64
	switch {
	case h < 60:
		r, g = c, x
	case h < 120:
		r, g = x, c
	case h < 180:
		g, b = c, x
	case h < 240:
		g, b = x, c
	case h < 300:
		r, b = x, c
	default:
		r, b = c, x
	}
	u8 := func(f float64) uint8 { return uint8(math.Round((f + m) * 255)) }
	return color.RGBA{u8(r), u8(g), u8(b), 255}
}
