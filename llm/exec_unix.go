//go:build unix

package llm

import (
	"os/exec"
	"syscall"
)

// ownGroup starts cmd in a process group of its own, and makes the
// context's cancellation kill the whole group rather than the shell
// alone (whose children would live on, orphaned).
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}

// killGroup kills what is left of cmd's process group, if anything.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
