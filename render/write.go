package render

import (
	"fmt"
	"image"
	"image/gif"
	"image/png"
	"io"

	"policyevolve/envs"
)

// WritePNG writes frame t of tr as a paletted PNG.
func WritePNG(w io.Writer, tr *envs.Trajectory, t int, o Options) error {
	r, err := New(tr.Layout, o)
	if err != nil {
		return err
	}
	f, err := FrameAt(tr, t)
	if err != nil {
		return err
	}
	img, err := r.Image(f)
	if err != nil {
		return err
	}
	return png.Encode(w, img)
}

// DefaultDelay is the time a GIF shows each frame, in hundredths of a
// second: ten steps a second.
const DefaultDelay = 10

// Animation selects the frames of a GIF and its speed. The zero value
// animates every frame at DefaultDelay.
type Animation struct {
	From, To int // first and last frame, inclusive; To 0 means the last frame
	// Delay is the time each frame shows, in hundredths of a second, 2 to
	// 65535 (browsers show shorter delays as 10); 0 means DefaultDelay.
	Delay int
}

// WriteGIF writes frames a.From to a.To of tr as an animated GIF that
// loops forever. Every frame after the first holds only the rectangle
// that changed, with the unchanged pixels in it transparent, over the
// previous frame (disposal "none"): most of a map stays still, so most of
// each frame costs nothing.
func WriteGIF(w io.Writer, tr *envs.Trajectory, o Options, a Animation) error {
	r, err := New(tr.Layout, o)
	if err != nil {
		return err
	}
	last := Frames(tr) - 1
	if a.To == 0 {
		a.To = last
	}
	if a.From < 0 || a.To > last || a.From > a.To {
		return fmt.Errorf("render: frames %d-%d out of range (frames 0-%d)", a.From, a.To, last)
	}
	if a.Delay == 0 {
		a.Delay = DefaultDelay
	}
	if a.Delay < 2 || a.Delay > 65535 {
		return fmt.Errorf("render: delay %d out of range 2-65535 hundredths of a second", a.Delay)
	}
	n := a.To - a.From + 1
	g := &gif.GIF{
		Image:    make([]*image.Paletted, 0, n),
		Delay:    make([]int, n),
		Disposal: make([]byte, n),
		Config:   image.Config{ColorModel: r.Palette(), Width: r.Bounds().Dx(), Height: r.Bounds().Dy()},
	}
	prev := image.NewPaletted(r.Bounds(), r.Palette())
	cur := image.NewPaletted(r.Bounds(), r.Palette())
	for t := a.From; t <= a.To; t++ {
		f, err := FrameAt(tr, t)
		if err != nil {
			return err
		}
		if err := r.Draw(cur, f); err != nil {
			return err
		}
		k := t - a.From
		g.Delay[k], g.Disposal[k] = a.Delay, gif.DisposalNone
		if k == 0 {
			first := image.NewPaletted(r.Bounds(), r.Palette())
			copy(first.Pix, cur.Pix)
			g.Image = append(g.Image, first)
		} else {
			g.Image = append(g.Image, delta(prev, cur))
		}
		prev, cur = cur, prev
	}
	if err := gif.EncodeAll(w, g); err != nil {
		return fmt.Errorf("render: %w", err)
	}
	return nil
}

// delta returns the smallest rectangle of cur that differs from prev, with
// the pixels that did not change transparent. When nothing changed it is
// a single transparent pixel: a GIF frame cannot be empty.
func delta(prev, cur *image.Paletted) *image.Paletted {
	b := image.Rectangle{}
	w, h := cur.Rect.Dx(), cur.Rect.Dy()
	for y := range h {
		p, c := prev.Pix[y*prev.Stride:][:w], cur.Pix[y*cur.Stride:][:w]
		for x := range w {
			if p[x] != c[x] {
				b = b.Union(image.Rect(x, y, x+1, y+1))
			}
		}
	}
	if b.Empty() {
		b = image.Rect(0, 0, 1, 1)
	}
	d := image.NewPaletted(b, cur.Palette) // all idxTransparent
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if c := cur.Pix[y*cur.Stride+x]; c != prev.Pix[y*prev.Stride+x] {
				d.Pix[d.PixOffset(x, y)] = c
			}
		}
	}
	return d
}
