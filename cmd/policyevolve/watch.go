package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/term"

	"policyevolve/envs"
	"policyevolve/render"
)

// watchOptions are play's flags for drawing episodes in the terminal.
type watchOptions struct {
	watch bool
	fps   float64
}

func (o *watchOptions) register(fs *flagSet) {
	fs.BoolVar(&o.watch, "watch", false, "draw each episode in the terminal, a frame per step (stdout must be a terminal)")
	fs.Float64Var(&o.fps, "fps", 10, "frames per second with --watch")
}

// maxFPS bounds --fps: beyond it frames come faster than a terminal
// redraws a map.
const maxFPS = 1000

// newWatcher checks the flags and that stdout is a terminal, and returns
// the watcher for a map width cells wide.
func (o *watchOptions) newWatcher(stdout io.Writer, width int) (*watcher, error) {
	f, ok := stdout.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil, usagef("--watch draws in a terminal, and stdout is not one (policyevolve render writes a GIF)")
	}
	w := &watcher{out: stdout, interval: time.Duration(float64(time.Second) / o.fps), cellWidth: 2}
	if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols < 2*width {
		w.cellWidth = 1 // narrow terminal: one character per cell
	}
	return w, nil
}

// Terminal control sequences (ECMA-48 and the xterm cursor switch).
const (
	hideCursor   = "\x1b[?25l"
	showCursor   = "\x1b[?25h"
	clearScreen  = "\x1b[2J"
	cursorHome   = "\x1b[H"
	eraseLine    = "\x1b[K"
	resetColours = "\x1b[0m"
)

// watcher draws recorded episodes in a terminal: frames redrawn in place
// from the top left corner, one every interval.
type watcher struct {
	out       io.Writer
	interval  time.Duration // between two frames; 0 does not wait
	cellWidth int           // characters per cell: 1 or 2
}

// start clears the screen and hides the cursor. Call restore after it,
// whatever happens (deferred): it is what Ctrl-C relies on.
func (w *watcher) start() {
	io.WriteString(w.out, hideCursor+clearScreen+cursorHome)
}

// restore resets the colours and shows the cursor again.
func (w *watcher) restore() {
	io.WriteString(w.out, resetColours+showCursor)
}

// episode draws every frame of tr under a title line with the step and
// the returns so far, waiting interval between frames. It returns
// ctx.Err() as soon as ctx ends (Ctrl-C).
func (w *watcher) episode(ctx context.Context, tr *envs.Trajectory, o render.Options, title string) error {
	r, err := render.New(tr.Layout, o)
	if err != nil {
		return err
	}
	var tick <-chan time.Time
	if w.interval > 0 {
		ticker := time.NewTicker(w.interval)
		defer ticker.Stop()
		tick = ticker.C
	}
	returns := make([]float64, tr.Layout.NumAgents)
	var buf bytes.Buffer
	last := render.Frames(tr) - 1
	for t := 0; t <= last; t++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		if t > 0 {
			for i, x := range tr.Steps[t-1].Rewards {
				returns[i] += x
			}
		}
		f, err := render.FrameAt(tr, t)
		if err != nil {
			return err
		}
		buf.Reset()
		buf.WriteString(cursorHome)
		fmt.Fprintf(&buf, "%s  step %d/%d  returns %s%s\n", title, t, tr.Layout.MaxSteps, formatReturns(returns), eraseLine)
		if err := r.WriteANSI(&buf, f, w.cellWidth); err != nil {
			return err
		}
		if _, err := w.out.Write(buf.Bytes()); err != nil {
			return err
		}
		if t == last || tick == nil {
			continue
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick:
		}
	}
	return nil
}

func formatReturns(rs []float64) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = fmt.Sprintf("%g", r)
	}
	return strings.Join(parts, " ")
}
