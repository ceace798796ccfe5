package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal of the given size: the test reads what
// the command writes to tty from master. It skips the test where the
// system has no pseudo-terminals.
func openPTY(t *testing.T, cols, rows int) (master, tty *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { master.Close() })
	if err := unix.IoctlSetPointerInt(int(master.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Skipf("unlock pseudo-terminal: %v", err)
	}
	n, err := unix.IoctlGetInt(int(master.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Skipf("pseudo-terminal number: %v", err)
	}
	tty, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("open pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { tty.Close() })
	if err := unix.IoctlSetWinsize(int(tty.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Col: uint16(cols), Row: uint16(rows)}); err != nil {
		t.Fatal(err)
	}
	return master, tty
}

// screen collects what a pseudo-terminal's master reads.
type screen struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	done chan struct{}
}

func readScreen(master io.Reader) *screen {
	s := &screen{done: make(chan struct{})}
	go func() {
		defer close(s.done)
		b := make([]byte, 4096)
		for {
			n, err := master.Read(b)
			s.mu.Lock()
			s.buf.Write(b[:n])
			s.mu.Unlock()
			if err != nil {
				return // EIO once every copy of the terminal is closed
			}
		}
	}()
	return s
}

func (s *screen) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

// TestPlayWatchOnATerminal runs play --watch in-process with stdout on a
// pseudo-terminal: the terminal is detected, every step is drawn, wide
// cells fit a 100-column terminal, and the table follows.
func TestPlayWatchOnATerminal(t *testing.T) {
	master, tty := openPTY(t, 100, 40)
	scr := readScreen(master)
	var stderr bytes.Buffer
	code := dispatch(context.Background(), []string{"play", "--watch", "--fps", "1000", "--map", "small", "--agents", "2",
		"--seeds", "0-1", "--steps", "15"}, tty, &stderr)
	tty.Close()
	<-scr.done
	out := scr.String()
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if !strings.HasPrefix(out, hideCursor+clearScreen) {
		t.Errorf("the screen is not cleared with the cursor hidden first: %q", out[:min(len(out), 40)])
	}
	for _, seed := range []string{"seed 0", "seed 1"} {
		if n := strings.Count(out, "policy bfs, "+seed+"  step "); n != 16 {
			t.Errorf("%s: %d frames drawn, want 16", seed, n)
		}
	}
	if !strings.Contains(out, "v0") && !strings.Contains(out, "^0") && !strings.Contains(out, ">0") && !strings.Contains(out, "<0") {
		t.Error("agent 0 is not drawn with its id (wide cells)")
	}
	if !strings.Contains(out, "gathering on small, 2 agents, policy bfs, 15 steps, 2 seeds") ||
		!strings.HasSuffix(strings.TrimRight(out, "\r\n"), resetColours+showCursor) {
		t.Errorf("no table, or the terminal is not restored at the end:\n%q", out[max(0, len(out)-300):])
	}
}

// TestBinaryWatchCtrlC runs the real binary on a pseudo-terminal and
// sends SIGINT while it draws: it must exit 130 and leave the terminal
// with its colours reset and its cursor shown.
func TestBinaryWatchCtrlC(t *testing.T) {
	bin := buildBinary(t)
	master, tty := openPTY(t, 100, 40)
	scr := readScreen(master)
	cmd := exec.Command(bin, "play", "--watch", "--fps", "20", "--seeds", "0")
	cmd.Stdout = tty
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close() // the child holds its own copy
	// Wait for a few frames; the deadline is generous, not a measurement.
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(scr.String(), "step 3/1000") {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("no frames after 60 s:\n%q", scr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatal("SIGINT did not stop play --watch")
	}
	<-scr.done
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 || !strings.Contains(stderr.String(), "interrupted") {
		t.Fatalf("after SIGINT: %v, stderr %q", err, stderr.String())
	}
	out := scr.String()
	if strings.Contains(out, "step 1000/1000") {
		t.Fatal("the episode ran to its end: SIGINT was not seen during the frames")
	}
	if !strings.HasSuffix(out, resetColours+showCursor) {
		t.Errorf("terminal not restored after Ctrl-C: ends with %q", out[max(0, len(out)-60):])
	}
}
