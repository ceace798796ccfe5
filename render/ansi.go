package render

import (
	"bufio"
	"fmt"
	"image/color"
	"io"
)

// WriteANSI writes f as coloured text for a terminal: one line per map
// row, each cell cellWidth characters wide (1 or 2; 2 keeps cells about
// square in most fonts). Colours are the image's, as the nearest of the
// xterm 256-colour palette (SGR 38;5 and 48;5). An agent is an arrow
// (^ > v <) on its colour, followed in wide cells by its id (0-9, a-z, then
// +); an apple is a green cell. Every line ends with a colour reset and a
// newline; WriteANSI moves no cursor.
func (r *Renderer) WriteANSI(w io.Writer, f Frame, cellWidth int) error {
	if cellWidth != 1 && cellWidth != 2 {
		return fmt.Errorf("render: cell width %d (want 1 or 2)", cellWidth)
	}
	cells, err := r.cells(f)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	fg, bg := -1, -1
	for i, c := range cells {
		text := "  "[:cellWidth]
		cbg, cfg := xterm256(r.palette[c.ground].(color.RGBA)), fg
		if c.apple {
			cbg = xterm256(baseColours[idxApple])
		}
		if c.agent != 0 {
			col := r.palette[c.agent].(color.RGBA)
			cbg, cfg = xterm256(col), 16 // black on light colours
			if luma(col) < 110 {
				cfg = 231 // white on dark ones
			}
			text = string("^>v<"[c.orient])
			if cellWidth == 2 {
				text += agentLabel(c.id)
			}
		}
		if cbg != bg || (c.agent != 0 && cfg != fg) {
			bg, fg = cbg, cfg
			if fg >= 0 {
				fmt.Fprintf(bw, "\x1b[38;5;%d;48;5;%dm", fg, bg)
			} else {
				fmt.Fprintf(bw, "\x1b[48;5;%dm", bg)
			}
		}
		bw.WriteString(text)
		if (i+1)%r.lay.Width == 0 {
			bw.WriteString("\x1b[0m\n")
			fg, bg = -1, -1
		}
	}
	return bw.Flush()
}

// agentLabel is the one-character id of agent i.
func agentLabel(i int) string {
	const digits = "0123456789abcdefghijklmnopqrstuvwxyz"
	if i < len(digits) {
		return digits[i : i+1]
	}
	return "+"
}

// luma is a colour's perceived brightness, 0-255.
func luma(c color.RGBA) int {
	return (299*int(c.R) + 587*int(c.G) + 114*int(c.B)) / 1000
}

// xterm256 returns the xterm 256-colour index nearest to c among the
// 6x6x6 colour cube (16-231) and the grey ramp (232-255).
func xterm256(c color.RGBA) int {
	levels := [6]int{0, 95, 135, 175, 215, 255}
	nearest := func(v uint8) int {
		best := 0
		for k, l := range levels {
			if absInt(int(v)-l) < absInt(int(v)-levels[best]) {
				best = k
			}
		}
		return best
	}
	r, g, b := nearest(c.R), nearest(c.G), nearest(c.B)
	best := 16 + 36*r + 6*g + b
	bestD := dist2(c, levels[r], levels[g], levels[b])
	for k := range 24 {
		v := 8 + 10*k
		if d := dist2(c, v, v, v); d < bestD {
			best, bestD = 232+k, d
		}
	}
	return best
}

func dist2(c color.RGBA, r, g, b int) int {
	dr, dg, db := int(c.R)-r, int(c.G)-g, int(c.B)-b
	return dr*dr + dg*dg + db*db
}

func absInt(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
