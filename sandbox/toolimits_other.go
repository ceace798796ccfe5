//go:build !linux

package sandbox

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// toolCommand: no resource limits here; the build timeout alone bounds
// the toolchain.
func toolCommand(ctx context.Context, _ toolLimits, goCmd string, env []string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, goCmd, args...)
	cmd.Env = env
	return cmd
}

func runTool(spec string) int {
	fmt.Fprintln(os.Stderr, "policyevolve: tool limits are implemented only on Linux")
	return 125
}

func lockBuildDir(dir string) (func(), error) { return func() {}, nil }

// removeStaleBuilds removes the build directories in cache older than a
// day (without locks to tell a live build from a dead one here).
func removeStaleBuilds(cache string) int {
	ents, err := os.ReadDir(cache)
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range ents {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), "build-") {
			continue
		}
		dir := filepath.Join(cache, e.Name())
		if st, err := os.Stat(dir); err == nil && st.ModTime().Before(staleBefore()) && os.RemoveAll(dir) == nil {
			n++
		}
	}
	return n
}
