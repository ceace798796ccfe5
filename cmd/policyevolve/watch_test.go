package main

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"policyevolve/envs"
	"policyevolve/envs/ssd"
	"policyevolve/render"
)

func watchTrajectory(t *testing.T, steps int) *envs.Trajectory {
	t.Helper()
	m, err := envs.BuiltinMap(ssd.Gathering, "small")
	if err != nil {
		t.Fatal(err)
	}
	env, err := envs.New(envs.Config{Map: m, Agents: 3, MaxSteps: steps})
	if err != nil {
		t.Fatal(err)
	}
	bfs, _ := envs.Builtin("bfs")
	res, err := envs.Run(context.Background(), env, []envs.Seat{{Actor: &envs.PolicyActor{New: bfs}, Agents: []int{0, 1, 2}}},
		envs.Options{Seed: 4, Record: true})
	if err != nil {
		t.Fatal(err)
	}
	return res.Trajectory
}

// TestWatcherFrames: every frame is drawn from the top left corner under
// a title with the step, and the last one is what render draws for it.
func TestWatcherFrames(t *testing.T) {
	tr := watchTrajectory(t, 12)
	var out bytes.Buffer
	w := &watcher{out: &out, cellWidth: 2}
	w.start()
	if err := w.episode(context.Background(), tr, render.Options{}, "title"); err != nil {
		t.Fatal(err)
	}
	w.restore()
	s := out.String()
	if !strings.HasPrefix(s, hideCursor+clearScreen) || !strings.HasSuffix(s, resetColours+showCursor) {
		t.Errorf("output does not hide the cursor first and restore it last: %q ... %q", s[:20], s[len(s)-20:])
	}
	if n := strings.Count(s, cursorHome+"title  step "); n != 13 {
		t.Errorf("%d frames drawn, want 13", n)
	}
	r, err := render.New(tr.Layout, render.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f, _ := render.FrameAt(tr, 12)
	var last bytes.Buffer
	r.WriteANSI(&last, f, 2)
	if !strings.HasSuffix(s, "step 12/12  returns "+formatReturns(returnsOf(tr))+eraseLine+"\n"+last.String()+resetColours+showCursor) {
		t.Errorf("the last frame is not the final state with its returns:\n%s", s[strings.LastIndex(s, cursorHome):])
	}
}

func returnsOf(tr *envs.Trajectory) []float64 {
	out := make([]float64, tr.Layout.NumAgents)
	for _, st := range tr.Steps {
		for i, r := range st.Rewards {
			out[i] += r
		}
	}
	return out
}

// cancelAfter is a writer that cancels a context at its n-th write, as
// Ctrl-C would while frames are drawn.
type cancelAfter struct {
	buf    bytes.Buffer
	n      int
	cancel context.CancelFunc
}

func (c *cancelAfter) Write(p []byte) (int, error) {
	c.n--
	if c.n == 0 {
		c.cancel()
	}
	return c.buf.Write(p)
}

func TestWatcherStopsOnCancel(t *testing.T) {
	tr := watchTrajectory(t, 200)
	for _, c := range []struct {
		interval time.Duration
		writes   int // the write that cancels: 1 is start, 2 the first frame
		frames   int
	}{
		// Cancelled while waiting for the next frame, an hour away.
		{time.Hour, 2, 1},
		// Cancelled while drawing as fast as possible.
		{0, 4, 3},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		out := &cancelAfter{n: c.writes, cancel: cancel}
		w := &watcher{out: out, interval: c.interval, cellWidth: 1}
		w.start()
		err := w.episode(ctx, tr, render.Options{}, "t")
		w.restore()
		cancel()
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("interval %v: episode returned %v, want context.Canceled", c.interval, err)
		}
		if n := strings.Count(out.buf.String(), cursorHome+"t  step "); n != c.frames {
			t.Errorf("interval %v: %d frames drawn, want %d", c.interval, n, c.frames)
		}
		if !strings.HasSuffix(out.buf.String(), resetColours+showCursor) {
			t.Errorf("interval %v: the terminal is not restored after a cancel", c.interval)
		}
	}
}

func TestPlayWatchNeedsATerminal(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--watch"}, "stdout is not one"},
		{[]string{"--watch", "--json"}, "does not go with --json"},
		{[]string{"--watch", "--fps", "0"}, "--fps 0: out of range; want a number above 0 and at most 1000"},
	} {
		code, stdout, stderr := runCLI(t, context.Background(), append([]string{"play"}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) || stdout != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and %q", c.args, code, stdout, stderr, c.want)
		}
	}
}
