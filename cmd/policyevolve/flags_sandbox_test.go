package main

import (
	"context"
	"strings"
	"testing"
)

func TestParseBytes(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
		bad  bool
	}{
		{"", 0, false},
		{"off", -1, false},
		{"OFF", -1, false},
		{"1048576", 1 << 20, false},
		{"300MiB", 300 << 20, false},
		{"300 MiB", 300 << 20, false},
		{"2G", 2 << 30, false},
		{"2gib", 2 << 30, false},
		{"64k", 64 << 10, false},
		{"512b", 512, false},
		{"0", 0, true},
		{"-5MiB", 0, true},
		{"lots", 0, true},
		{"1.5GiB", 0, true},
		{"MiB", 0, true},
		{"9999999999999GiB", 0, true},
	} {
		got, err := parseBytes(c.in)
		if (err != nil) != c.bad || got != c.want {
			t.Errorf("parseBytes(%q) = %d, %v; want %d, error %v", c.in, got, err, c.want, c.bad)
		}
	}
}

// A wrong bound on the worker cache stops a command before it runs
// anything, naming the variable.
func TestWorkerCacheMaxRefused(t *testing.T) {
	t.Setenv(envWorkerCacheMax, "lots")
	code, _, stderr := runCLI(t, context.Background(), "validate", "../../examples/policies/voronoi.go")
	if code != 1 || !strings.Contains(stderr, `$POLICYEVOLVE_WORKER_CACHE_MAX="lots": want a positive size`) {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
}
