package sandbox

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
)

// toolCommand is the command that runs the go command with args in dir,
// under lim: through this program as launcher (see envTool).
func toolCommand(ctx context.Context, lim toolLimits, goCmd string, env []string, args ...string) *exec.Cmd {
	if lim == (toolLimits{}) {
		cmd := exec.CommandContext(ctx, goCmd, args...)
		cmd.Env = env
		return cmd
	}
	// /proc/self/exe, opened by the child after the fork, is this program.
	cmd := exec.CommandContext(ctx, "/proc/self/exe", append([]string{goCmd}, args...)...)
	cmd.Args[0] = "policyevolve-build-limits"
	cmd.Env = append(env, envTool+"="+lim.String())
	return cmd
}

// runTool is the launcher: it sets the limits spec describes and
// executes its arguments without envTool in the environment. It returns
// only on failure, with an exit status.
func runTool(spec string) int {
	lim, err := parseToolLimits(spec)
	if err == nil && len(os.Args) < 2 {
		err = fmt.Errorf("no command")
	}
	set := func(res int, v uint64) {
		if err == nil {
			err = syscall.Setrlimit(res, &syscall.Rlimit{Cur: v, Max: v})
		}
	}
	set(syscall.RLIMIT_CORE, 0)
	if lim.data > 0 {
		set(syscall.RLIMIT_DATA, uint64(lim.data))
	}
	if lim.cpu > 0 {
		set(syscall.RLIMIT_CPU, uint64(lim.cpu))
	}
	if err == nil {
		var env []string
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, envTool+"=") {
				env = append(env, kv)
			}
		}
		err = syscall.Exec(os.Args[1], os.Args[1:], env)
	}
	fmt.Fprintf(os.Stderr, "policyevolve: cannot run %q under limits %s: %v\n", os.Args[1:], spec, err)
	return 125
}
