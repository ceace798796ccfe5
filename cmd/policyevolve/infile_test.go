//go:build unix

package main

import (
	"context"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestUserFilesNotRegular: every flag or argument that names a file to
// read refuses a device (/dev/zero, endless) and a named pipe (which would
// block for ever) with a usage error naming the path, before it reads or
// opens anything. Each case would hang or run out of memory if it were
// read; the test's own timeout would then fail it.
func TestUserFilesNotRegular(t *testing.T) {
	dir := t.TempDir()
	// Named FILE.go, so that --policy takes it for a source file.
	fifo := filepath.Join(dir, "fifo.go")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "s.db")
	for _, path := range []string{"/dev/zero", fifo} {
		cases := [][]string{
			{"evolve", "--store", db, "--config", path},
			{"play", "--game", "gathering", "--policy", "bfs", "--map", path},
			{"validate", "--game", "gathering", path},
			{"pool", "import", "--store", db, "--game", "gathering", path},
			{"play", "--game", "gathering", "--policy", "qlearn:" + path},
			{"evolve", "--store", db, "--llm", "replay:" + path},
			{"evolve", "--store", db, "--llm", "exec:true", "--prices", path},
		}
		if path == fifo {
			cases = append(cases, []string{"play", "--game", "gathering", "--policy", path})
		}
		for _, args := range cases {
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				code, _, errOut := runCLI(t, context.Background(), args...)
				if code == 0 || !strings.Contains(errOut, path+": not a regular file") {
					t.Errorf("exit %d, %s", code, errOut)
				}
			})
		}
	}
}

// TestPromptsNotADirectory: --prompts naming a named pipe is refused, not
// opened (which would block).
func TestPromptsNotADirectory(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runCLI(t, context.Background(), "evolve", "--store", filepath.Join(dir, "s.db"), "--llm", "exec:true", "--prompts", fifo)
	if code == 0 || !strings.Contains(errOut, fifo+" is not a directory") {
		t.Errorf("exit %d, %s", code, errOut)
	}
}
