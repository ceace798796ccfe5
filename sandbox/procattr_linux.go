package sandbox

import (
	"os"
	"syscall"
)

// procAttr puts a worker in its own process group (a Ctrl-C meant for the
// host does not reach it; the host stops it), has the kernel kill it if
// the host dies, even by SIGKILL, and starts it in the namespaces of
// level: a user namespace in which it is root but, on the host, an
// unprivileged user (see workerUID), and a network namespace with no
// interface up.
func procAttr(level nsLevel) *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if level.user {
		a.Cloneflags |= syscall.CLONE_NEWUSER
		a.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: workerUID(), Size: 1}}
		a.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: workerGID(), Size: 1}}
		a.GidMappingsEnableSetgroups = false
		a.Credential = &syscall.Credential{Uid: 0, Gid: 0, NoSetGroups: true}
	}
	if level.net {
		a.Cloneflags |= syscall.CLONE_NEWNET
	}
	return a
}

// killGroup kills a process and every process in its group.
func killGroup(p *os.Process) error {
	if p == nil {
		return nil
	}
	syscall.Kill(-p.Pid, syscall.SIGKILL)
	return p.Kill()
}
