package main

import (
	"bytes"
	"context"
	"image/gif"
	"image/png"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// decodeGIF reads and decodes the GIF at path.
func decodeGIF(t *testing.T, path string) *gif.GIF {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	g, err := gif.DecodeAll(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return g
}

func TestRenderGIF(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "episode.gif")
	code, stdout, stderr := runCLI(t, context.Background(), "render", "--game", "cleanup", "--agents", "4",
		"--policy", "exploit", "--vs", "random", "--seed", "3", "--frames", "5-24", "--fps", "20", "--scale", "4", "-o", out)
	if code != 0 || stderr != "" || !strings.Contains(stdout, "wrote "+out) {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	wantUserMode(t, out)
	g := decodeGIF(t, out)
	if len(g.Image) != 20 {
		t.Errorf("%d frames, want 20 (frames 5-24)", len(g.Image))
	}
	for k, d := range g.Delay {
		if d != 5 {
			t.Fatalf("frame %d: delay %d, want 5 (20 fps)", k, d)
		}
	}
	// Cleanup's default map is 18x25 cells.
	if g.Config.Width != 18*4 || g.Config.Height != 25*4 {
		t.Errorf("size %dx%d, want 72x100", g.Config.Width, g.Config.Height)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("files left in the output folder: %v", entries)
	}
}

func TestRenderPNGFrames(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "shot.png")
	code, stdout, stderr := runCLI(t, context.Background(), "render", "--game", "gathering", "--map", "small",
		"--agents", "2", "--length", "100", "--frame", "7", "--frame", "0", "-o", out)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	for _, name := range []string{"shot-007.png", "shot-000.png"} {
		raw, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("%v; stdout %q", err, stdout)
		}
		img, err := png.Decode(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		// Gathering's small map is 18x10 cells at 8 pixels.
		if b := img.Bounds(); b.Dx() != 144 || b.Dy() != 80 {
			t.Errorf("%s: %v", name, b)
		}
	}

	// One frame: -o is the file; "-" is standard output.
	code, stdout, stderr = runCLI(t, context.Background(), "render", "--map", "small", "--agents", "2",
		"--frame", "3", "-o", "-")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if _, err := png.Decode(strings.NewReader(stdout)); err != nil {
		t.Fatalf("-o - did not write a PNG: %v", err)
	}
}

// TestRenderFailingPolicy: a policy that panics at step 30 is a result;
// the GIF holds the frames before it and the command exits 1 saying so.
func TestRenderFailingPolicy(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "boom.go")
	os.WriteFile(src, []byte(`package policy

import "ssd"

func Policy(v *ssd.View, agent int) int {
	if v.Step() == 30 {
		var a []int
		return a[agent+5]
	}
	return ssd.RotateRight
}
`), 0o644)
	out := filepath.Join(dir, "boom.gif")
	code, _, stderr := runCLI(t, context.Background(), "render", "--map", "small", "--agents", "2",
		"--policy", src, "--vs", "bfs", "--backend", "yaegi", "--steps", "10-100", "-o", out)
	if code != 1 || !strings.Contains(stderr, "panic at step 30") || !strings.Contains(stderr, "holds frames 10-30") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	g := decodeGIF(t, out)
	if len(g.Image) != 21 {
		t.Errorf("%d frames, want 21 (frames 10-30)", len(g.Image))
	}

	code, _, stderr = runCLI(t, context.Background(), "render", "--map", "small", "--agents", "2",
		"--policy", src, "--backend", "yaegi", "--frame", "40", "-o", filepath.Join(dir, "late.png"))
	if code != 1 || !strings.Contains(stderr, "frame 40 was never reached") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "late.png")); !os.IsNotExist(err) {
		t.Errorf("late.png exists after a failed render: %v", err)
	}
}

// TestRenderBadInput: wrong flags are one line on stderr with exit 2;
// an output that cannot be written exits 1; an existing file survives a
// failed render.
func TestRenderBadInput(t *testing.T) {
	dir := t.TempDir()
	keep := filepath.Join(dir, "keep.gif")
	os.WriteFile(keep, []byte("precious"), 0o644)
	gifOut, pngOut := filepath.Join(dir, "x.gif"), filepath.Join(dir, "x.png")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{}, 2, "-o is required"},
		{[]string{"-o", pngOut}, 2, "pass --frame T for a PNG"},
		{[]string{"-o", gifOut, "--frame", "3"}, 2, "--frame writes PNGs"},
		{[]string{"-o", gifOut, "--frames", "9-3"}, 2, `--frames: range "9-3" runs backwards`},
		{[]string{"-o", gifOut, "--frames", "0-1001"}, 2, "beyond the episode (frames 0-1000 for --length 1000)"},
		{[]string{"-o", gifOut, "--steps", "a-b"}, 2, "not a frame range"}, // the old name, still taken
		{[]string{"-o", filepath.Join(dir, "ep.mp4")}, 2, "-o " + filepath.Join(dir, "ep.mp4") + ": render writes an animated GIF"},
		{[]string{"-o", filepath.Join(dir, "f.jpg"), "--frame", "3"}, 2, "--frame writes PNGs"},
		{[]string{"-o", pngOut, "--frame", "51", "--length", "50"}, 2, "--frame 51 is beyond the episode"},
		{[]string{"-o", pngOut, "--frame", "-2"}, 2, "not a frame number"},
		{[]string{"-o", pngOut, "--frame", "2", "--frame", "2"}, 2, "--frame 2 appears twice"},
		{[]string{"-o", pngOut, "--frame", "2", "--frames", "0-3"}, 2, "with --frame, name each frame"},
		{[]string{"-o", "-", "--frame", "2", "--frame", "3"}, 2, "-o - takes one --frame"},
		{[]string{"-o", gifOut, "--scale", "0"}, 2, "--scale 0: out of range; want an integer from 1 to 64"},
		{[]string{"-o", gifOut, "--fps", "60"}, 2, "--fps 60: out of range; want a number above 0 and at most 50"},
		{[]string{"-o", gifOut, "--vs", "bfs", "--agents", "1"}, 2, "--vs needs at least 2 agents"},
		{[]string{"-o", gifOut, "--vs", "nobody"}, 2, `--vs: unknown policy "nobody"`},
		{[]string{"-o", gifOut, "--game", "chess"}, 2, `--game: unknown game "chess"`},
		{[]string{"-o", gifOut, "--length", "0"}, 2, "--length 0: out of range; want an integer from 1 to 100000"},
		{[]string{"-o", filepath.Join(dir, "no", "such", "dir.gif")}, 1, "no such file or directory"},
		{[]string{"-o", keep, "--policy", "nobody"}, 2, `--policy: unknown policy "nobody"`},
	} {
		code, stdout, stderr := runCLI(t, context.Background(), append([]string{"render"}, c.args...)...)
		if code != c.code || !strings.Contains(stderr, c.want) || strings.Count(stderr, "\n") != 1 || stdout != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit %d and %q", c.args, code, stdout, stderr, c.code, c.want)
		}
	}
	if raw, _ := os.ReadFile(keep); string(raw) != "precious" {
		t.Errorf("a failed render changed an existing file: %q", raw)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("files left behind: %v", entries)
	}
}

// wantUserMode checks that a file the user asked for has the mode any
// program gives its files: 0666 less the umask (0644 under umask 022).
func wantUserMode(t *testing.T, path string) {
	t.Helper()
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Logf("no /proc/self/status: the mode of %s is not checked", path)
		return
	}
	var umask fs.FileMode = 0o022
	for _, l := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(l, "Umask:"); ok {
			u, err := strconv.ParseUint(strings.TrimSpace(v), 8, 32)
			if err != nil {
				t.Fatal(err)
			}
			umask = fs.FileMode(u)
		}
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := 0o666 &^ umask; st.Mode().Perm() != want {
		t.Errorf("%s: mode %v, want %v (0666 less the umask %03o)", path, st.Mode().Perm(), want, umask)
	}
}
