package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// buildBinary compiles the command once per test binary run.
func buildBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "policyevolve")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestBinaryExitCodes runs the real binary: usage errors exit 2, Ctrl-C
// (SIGINT) stops a long job with exit 130.
func TestBinaryExitCodes(t *testing.T) {
	bin := buildBinary(t)

	cmd := exec.Command(bin, "play", "--agents", "-1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 {
		t.Fatalf("bad flag: %v", err)
	}

	cmd = exec.Command(bin, "play", "--seeds", "0-99999", "--policy", filepath.Join("..", "..", "examples", "policies", "bfs.go"))
	stderr.Reset()
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Once it has started a policy worker it is playing, long past the
	// point where it catches signals.
	for start := time.Now(); !hasChild(cmd.Process.Pid); time.Sleep(10 * time.Millisecond) {
		if time.Since(start) > 5*time.Minute {
			cmd.Process.Kill()
			t.Fatal("play started no worker")
		}
	}
	cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(2 * time.Minute): // a hang, not a slow machine
		cmd.Process.Kill()
		t.Fatal("SIGINT did not stop play")
	}
	if !errors.As(err, &ee) || ee.ExitCode() != 130 || !strings.Contains(stderr.String(), "interrupted") {
		t.Fatalf("after SIGINT: %v, stderr %q", err, stderr.String())
	}
	_ = os.Remove(bin)
}

// hasChild reports whether process pid has a child process.
func hasChild(pid int) bool {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, p := range stats {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) > 1 && f[1] == strconv.Itoa(pid) {
			return true
		}
	}
	return false
}
