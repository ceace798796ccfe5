package main

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestMain keeps the native workers this test run compiles out of the
// user's cache (XDG_CACHE_HOME points at a temporary folder), while the Go
// build cache stays where it is, so that builds stay fast.
func TestMain(m *testing.M) {
	// Hints name the command as a user who installed it types it.
	os.Setenv(envSelf, "policyevolve")
	if path := os.Getenv("POLICYEVOLVE_TEST_WRITER"); path != "" {
		os.Exit(writerJob(path))
	}
	if os.Getenv(envTestMain) != "" {
		os.Exit(runMain(os.Args[1:])) // this test binary as policyevolve
	}
	out, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		fmt.Fprintln(os.Stderr, "go env GOCACHE:", err)
		os.Exit(1)
	}
	os.Setenv("GOCACHE", strings.TrimSpace(string(out)))
	dir, err := os.MkdirTemp("", "policyevolve-cmd-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("XDG_CACHE_HOME", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
