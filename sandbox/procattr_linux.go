package sandbox

import "syscall"

// procAttr puts a worker in its own process group (a Ctrl-C meant for the
// host does not reach it; the host stops it) and has the kernel kill it if
// the host dies, even by SIGKILL.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
