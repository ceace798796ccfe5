package sandbox

import (
	"os"
	"syscall"
)

// procAttr puts a worker in its own process group (a Ctrl-C meant for the
// host does not reach it; the host stops it) and has the kernel kill it if
// the host dies, even by SIGKILL.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// killGroup kills a process and every process in its group.
func killGroup(p *os.Process) error {
	if p == nil {
		return nil
	}
	syscall.Kill(-p.Pid, syscall.SIGKILL)
	return p.Kill()
}
