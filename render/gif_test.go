package render

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/gif"
	"testing"

	"policyevolve/envs"
	"policyevolve/envs/ssd"
)

// TestGIFDecodesToEveryFrame writes a GIF of a range of frames, decodes it
// with image/gif, checks the frame count, delays and disposal, and plays
// it back as a viewer does (each frame's opaque pixels over the canvas)
// to compare every composed frame pixel by pixel with the frame drawn on
// its own.
func TestGIFDecodesToEveryFrame(t *testing.T) {
	for _, c := range []struct {
		ep       episode
		from, to int
		delay    int
	}{
		{episode{ssd.Gathering, "small", 4, 40, "exploit", "", 1}, 0, 0, 0},
		{episode{ssd.Cleanup, "default", 10, 40, "exploit", "random", 2}, 5, 31, 7},
	} {
		tr, o := c.ep.record(t)
		var buf bytes.Buffer
		if err := WriteGIF(&buf, tr, o, Animation{From: c.from, To: c.to, Delay: c.delay}); err != nil {
			t.Fatal(err)
		}
		g, err := gif.DecodeAll(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		to, delay := c.to, c.delay
		if to == 0 {
			to = c.ep.steps
		}
		if delay == 0 {
			delay = DefaultDelay
		}
		if n := to - c.from + 1; len(g.Image) != n || len(g.Delay) != n {
			t.Fatalf("%d images and %d delays, want %d", len(g.Image), len(g.Delay), n)
		}
		r, err := New(tr.Layout, o)
		if err != nil {
			t.Fatal(err)
		}
		if g.Config.Width != r.Bounds().Dx() || g.Config.Height != r.Bounds().Dy() || g.LoopCount != 0 {
			t.Errorf("config %dx%d, loop count %d; want %v, 0 (forever)", g.Config.Width, g.Config.Height, g.LoopCount, r.Bounds())
		}
		canvas := image.NewRGBA(r.Bounds())
		smaller := 0
		for k, frame := range g.Image {
			if g.Delay[k] != delay || g.Disposal[k] != gif.DisposalNone {
				t.Errorf("frame %d: delay %d, disposal %d; want %d, %d", k, g.Delay[k], g.Disposal[k], delay, gif.DisposalNone)
			}
			if frame.Bounds().Dx()*frame.Bounds().Dy() < r.Bounds().Dx()*r.Bounds().Dy() {
				smaller++
			}
			b := frame.Bounds()
			for y := b.Min.Y; y < b.Max.Y; y++ {
				for x := b.Min.X; x < b.Max.X; x++ {
					if _, _, _, a := frame.At(x, y).RGBA(); a != 0 {
						canvas.Set(x, y, frame.At(x, y))
					}
				}
			}
			f, err := FrameAt(tr, c.from+k)
			if err != nil {
				t.Fatal(err)
			}
			want, err := r.Image(f)
			if err != nil {
				t.Fatal(err)
			}
			if diff := comparePixels(canvas, want); diff != "" {
				t.Fatalf("frame %d (step %d) as a viewer shows it: %s", k, c.from+k, diff)
			}
		}
		if smaller < len(g.Image)/2 {
			t.Errorf("only %d of %d frames are smaller than the map: frame deltas do not work", smaller, len(g.Image))
		}
	}
}

// standStill is an actor whose agents all stand.
type standStill struct{ agents []int }

func (s *standStill) Begin(_ context.Context, info envs.EpisodeInfo) error {
	s.agents = info.Agents
	return nil
}

func (s *standStill) Act(_ context.Context, _ *ssd.State, actions []int) error {
	for _, a := range s.agents {
		actions[a] = ssd.Stand
	}
	return nil
}

func (s *standStill) End() error { return nil }

// TestGIFStillFramesCostAPixel: frames in which nothing changes are one
// transparent pixel.
func TestGIFStillFramesCostAPixel(t *testing.T) {
	m, _ := envs.BuiltinMap(ssd.Gathering, "small")
	env, err := envs.New(envs.Config{Map: m, Agents: 2, MaxSteps: 6})
	if err != nil {
		t.Fatal(err)
	}
	res, err := envs.Run(context.Background(), env, []envs.Seat{{Actor: &standStill{}, Agents: []int{0, 1}}},
		envs.Options{Seed: 0, Record: true})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteGIF(&buf, res.Trajectory, Options{}, Animation{}); err != nil {
		t.Fatal(err)
	}
	g, err := gif.DecodeAll(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Image) != 7 {
		t.Fatalf("%d frames, want 7", len(g.Image))
	}
	for k, frame := range g.Image[1:] {
		if frame.Bounds() != image.Rect(0, 0, 1, 1) || frame.Palette[frame.ColorIndexAt(0, 0)] != (color.RGBA{}) {
			t.Errorf("still frame %d: bounds %v, pixel %v; want one transparent pixel", k+1, frame.Bounds(), frame.At(0, 0))
		}
	}
}
