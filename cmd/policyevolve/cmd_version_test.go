package main

import (
	"context"
	"runtime/debug"
	"strings"
	"testing"
)

func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}} {
		code, out, errOut := runCLI(t, context.Background(), args...)
		if code != exitOK || !strings.HasPrefix(out, "policyevolve ") || !strings.Contains(out, "built with go") {
			t.Errorf("%v: exit %d, %q %q", args, code, out, errOut)
		}
	}
	info := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "policyevolve", Version: "v1.2.3"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc123"}, {Key: "vcs.time", Value: "2026-11-28T15:00:00Z"}, {Key: "vcs.modified", Value: "true"}}}
	want := "policyevolve v1.2.3\nrevision abc123 (2026-11-28T15:00:00Z), with uncommitted changes\nbuilt with go1.26.8\n"
	if got := versionText(info); got != want {
		t.Errorf("versionText = %q, want %q", got, want)
	}
	if got := versionText(&debug.BuildInfo{GoVersion: "go1.26.8"}); !strings.HasPrefix(got, "policyevolve (devel)\nrevision unknown") {
		t.Errorf("without a version: %q", got)
	}
}

// TestHelpWithoutFlags: a command without flags ends its help without an
// empty "Flags:" heading.
func TestHelpWithoutFlags(t *testing.T) {
	for _, cmd := range []string{"completion", "version"} {
		_, out, _ := runCLI(t, context.Background(), cmd, "--help")
		if strings.Contains(out, "Flags:") {
			t.Errorf("%s --help: %q", cmd, out)
		}
	}
	if _, out, _ := runCLI(t, context.Background(), "runs", "ls", "--help"); !strings.Contains(out, "Flags:\n") {
		t.Errorf("runs ls --help lists no flags: %q", out)
	}
}
