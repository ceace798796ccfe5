package render

import (
	"bytes"
	"image/color"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

var sgr = regexp.MustCompile("\x1b\\[[0-9;]*m")

// TestGoldenANSI draws golden frames as terminal text and compares them
// with testdata/*.ansi (cat one to see it), then checks the shape of the
// text: one line per row, the right visible width, colours reset at the
// end of every line.
func TestGoldenANSI(t *testing.T) {
	for _, c := range []struct {
		frame int // index in goldenFrames
		width int
	}{{1, 1}, {1, 2}, {3, 2}} {
		r, f := goldenFrame(t, c.frame)
		var buf bytes.Buffer
		if err := r.WriteANSI(&buf, f, c.width); err != nil {
			t.Fatal(err)
		}
		name := goldenFrames[c.frame].name
		path := filepath.Join("testdata", name+"_w"+string(rune('0'+c.width))+".ansi")
		if *update {
			if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test ./render -update to create it)", err)
		}
		if !bytes.Equal(buf.Bytes(), want) {
			t.Errorf("%s differs; got:\n%s", path, buf.String())
		}
		lay := f.State.Layout
		lines := strings.SplitAfter(buf.String(), "\n")
		if lines[len(lines)-1] != "" || len(lines)-1 != lay.Height {
			t.Fatalf("%s: %d lines, want %d, each ending in a newline", path, len(lines)-1, lay.Height)
		}
		for i, l := range lines[:lay.Height] {
			if !strings.HasSuffix(l, "\x1b[0m\n") {
				t.Errorf("%s line %d does not end with a colour reset", path, i)
			}
			if n := utf8.RuneCountInString(sgr.ReplaceAllString(l, "")); n != lay.Width*c.width+1 {
				t.Errorf("%s line %d: %d characters, want %d", path, i, n-1, lay.Width*c.width)
			}
		}
		// Every agent shows its arrow; in wide cells, its id.
		plain := sgr.ReplaceAllString(buf.String(), "")
		for i, p := range f.State.Pos {
			row := []rune(strings.Split(plain, "\n")[p.R])
			cell := string(row[p.C*c.width : (p.C+1)*c.width])
			want := string("^>v<"[f.State.Orient[i]])
			if c.width == 2 {
				want += agentLabel(i)
			}
			if cell != want && !sharesCell(f, i) {
				t.Errorf("%s: agent %d at %v is drawn %q, want %q", path, i, p, cell, want)
			}
		}
	}
}

// sharesCell reports whether another agent stands on agent i's cell.
func sharesCell(f Frame, i int) bool {
	for j, p := range f.State.Pos {
		if j != i && p == f.State.Pos[i] {
			return true
		}
	}
	return false
}

func TestXterm256(t *testing.T) {
	for _, c := range []struct {
		rgb  [3]uint8
		want int
	}{
		{[3]uint8{0, 0, 0}, 16},
		{[3]uint8{255, 255, 255}, 231},
		{[3]uint8{127, 127, 127}, 244}, // the grey ramp is nearer than the cube's 102
		{[3]uint8{0, 200, 0}, 40},
		{[3]uint8{255, 255, 60}, 227},
	} {
		if got := xterm256(rgba(c.rgb)); got != c.want {
			t.Errorf("xterm256(%v) = %d, want %d", c.rgb, got, c.want)
		}
	}
}

func rgba(c [3]uint8) color.RGBA { return color.RGBA{R: c[0], G: c[1], B: c[2], A: 255} }
