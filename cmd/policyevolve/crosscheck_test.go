package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlayCrossCheck: play on the yaegi backend compares each episode
// with the native backend's (a toolchain is present in the tests) and
// says nothing when they agree; --no-cross-check turns it off and says
// what that risks.
func TestPlayCrossCheck(t *testing.T) {
	if raceEnabled {
		t.Skip("the yaegi worker cannot run under the race detector")
	}
	example := filepath.Join("..", "..", "examples", "policies", "bfs.go")
	args := []string{"play", "--backend", "yaegi", "--map", "small", "--agents", "2", "--steps", "40", "--seeds", "0-1", "--policy", example}
	code, out, errOut := runCLI(t, context.Background(), args...)
	if code != 0 || strings.Contains(errOut, "not compared") || !strings.Contains(out, "mean") {
		t.Fatalf("exit %d, out %q, err %q", code, out, errOut)
	}
	code, _, errOut = runCLI(t, context.Background(), append(args, "--no-cross-check")...)
	if code != 0 || strings.Count(errOut, "results are not compared with the native backend's (the cross-check is off)") != 1 ||
		!strings.Contains(errOut, "scored silently wrong") {
		t.Fatalf("--no-cross-check: exit %d, err %q", code, errOut)
	}
}
