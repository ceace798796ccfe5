//go:build !linux

package sandbox

import (
	"context"
	"fmt"
	"os"
	"os/exec"
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
