package render

import (
	"fmt"
	"image/color"

	"policyevolve/envs/ssd"
)

// LegendEntry is one colour of a drawing and what it stands for.
type LegendEntry struct {
	Label  string
	Colour color.RGBA
}

// Hex is the colour as CSS and SVG write it: "#00c800".
func (e LegendEntry) Hex() string {
	return fmt.Sprintf("#%02x%02x%02x", e.Colour.R, e.Colour.G, e.Colour.B)
}

// Legend is the key to the colours of a game's drawings, in the palette
// Renderer draws with: the terrain, the beams, a tagged-out agent, and
// the first agents' colours in self-play (agent i's colour is its own;
// with one policy they run from blue through purple and red to orange).
func Legend(game ssd.Game) []LegendEntry {
	out := []LegendEntry{
		{"wall", baseColours[idxWall]},
		{"apple", baseColours[idxApple]},
	}
	if game == ssd.Cleanup {
		out = append(out,
			LegendEntry{"river", baseColours[idxRiver]},
			LegendEntry{"waste", baseColours[idxWaste]},
			LegendEntry{"stream", baseColours[idxStream]},
			LegendEntry{"cleaning beam", baseColours[idxCleanBeam]})
	}
	out = append(out,
		LegendEntry{"tagging or penalty beam", baseColours[idxBeam]},
		LegendEntry{"agent tagged out", baseColours[idxTagged]})
	agents := agentColours(4, nil)
	out = append(out, LegendEntry{"agent 0", agents[0]}, LegendEntry{"agent 1", agents[1]},
		LegendEntry{"agents 2, 3, … (a colour each, towards orange)", agents[2]})
	return out
}
