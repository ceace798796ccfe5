//go:build amd64 || arm64

package worker

import (
	"encoding/binary"
	"syscall"
	"testing"
)

// TestSyscallNumbers checks the filter's table against the syscall
// package's numbers where it has them.
func TestSyscallNumbers(t *testing.T) {
	known := map[string]uintptr{
		"read": syscall.SYS_READ, "write": syscall.SYS_WRITE, "readv": syscall.SYS_READV, "writev": syscall.SYS_WRITEV,
		"close": syscall.SYS_CLOSE, "fcntl": syscall.SYS_FCNTL, "mmap": syscall.SYS_MMAP, "munmap": syscall.SYS_MUNMAP,
		"mprotect": syscall.SYS_MPROTECT, "madvise": syscall.SYS_MADVISE, "mremap": syscall.SYS_MREMAP, "brk": syscall.SYS_BRK,
		"rt_sigaction": syscall.SYS_RT_SIGACTION, "rt_sigprocmask": syscall.SYS_RT_SIGPROCMASK,
		"rt_sigreturn": syscall.SYS_RT_SIGRETURN, "sigaltstack": syscall.SYS_SIGALTSTACK, "futex": syscall.SYS_FUTEX,
		"nanosleep": syscall.SYS_NANOSLEEP, "clock_nanosleep": syscall.SYS_CLOCK_NANOSLEEP,
		"clock_gettime": syscall.SYS_CLOCK_GETTIME, "clock_getres": syscall.SYS_CLOCK_GETRES,
		"gettimeofday": syscall.SYS_GETTIMEOFDAY, "sched_yield": syscall.SYS_SCHED_YIELD,
		"sched_getaffinity": syscall.SYS_SCHED_GETAFFINITY, "getpid": syscall.SYS_GETPID, "gettid": syscall.SYS_GETTID,
		"getrlimit": syscall.SYS_GETRLIMIT, "exit": syscall.SYS_EXIT, "exit_group": syscall.SYS_EXIT_GROUP,
		"restart_syscall": syscall.SYS_RESTART_SYSCALL, "set_robust_list": syscall.SYS_SET_ROBUST_LIST,
		"epoll_create1": syscall.SYS_EPOLL_CREATE1, "epoll_ctl": syscall.SYS_EPOLL_CTL, "epoll_pwait": syscall.SYS_EPOLL_PWAIT,
		"eventfd2": syscall.SYS_EVENTFD2, "clone": syscall.SYS_CLONE, "kill": syscall.SYS_KILL, "tgkill": syscall.SYS_TGKILL,
		"prlimit64": syscall.SYS_PRLIMIT64,
	}
	for name, nr := range known {
		if got, ok := syscallNumbers[name]; !ok || uintptr(got) != nr {
			t.Errorf("%s: table says %d, syscall package %d", name, got, nr)
		}
	}
	for _, name := range allowedSyscalls {
		if _, ok := syscallNumbers[name]; !ok && name != "epoll_wait" {
			t.Errorf("%s is allowed but has no number", name)
		}
	}
}

// runFilter interprets the classic BPF subset the filter uses on one
// seccomp_data.
func runFilter(t *testing.T, prog []sockFilter, data []byte) uint32 {
	t.Helper()
	var acc uint32
	for pc := 0; pc < len(prog); pc++ {
		in := prog[pc]
		switch in.code {
		case bpfLdWAbs:
			acc = binary.LittleEndian.Uint32(data[in.k:])
		case bpfJeqK, bpfJgeK, bpfJsetK:
			var cond bool
			switch in.code {
			case bpfJeqK:
				cond = acc == in.k
			case bpfJgeK:
				cond = acc >= in.k
			case bpfJsetK:
				cond = acc&in.k != 0
			}
			if cond {
				pc += int(in.jt)
			} else {
				pc += int(in.jf)
			}
		case bpfRetK:
			return in.k
		default:
			t.Fatalf("instruction %d: unknown code %#x", pc, in.code)
		}
	}
	t.Fatal("the filter ran off its end")
	return 0
}

func seccompData(arch uint32, nr uint32, args ...uint64) []byte {
	b := make([]byte, 64)
	binary.LittleEndian.PutUint32(b[0:], nr)
	binary.LittleEndian.PutUint32(b[4:], arch)
	for i, a := range args {
		binary.LittleEndian.PutUint64(b[16+8*i:], a)
	}
	return b
}

// TestSeccompFilterVerdicts runs the filter on system calls it must allow,
// refuse, or kill for.
func TestSeccompFilterVerdicts(t *testing.T) {
	const pid = 4242
	prog, n, err := seccompFilter(pid)
	if err != nil {
		t.Fatal(err)
	}
	if n < 40 || len(prog) > 255 {
		t.Fatalf("%d calls allowed, %d instructions", n, len(prog))
	}
	nr := func(name string) uint32 { return syscallNumbers[name] }
	eperm, enosys := retErrno|uint32(syscall.EPERM), retErrno|uint32(syscall.ENOSYS)
	for _, c := range []struct {
		name string
		data []byte
		want uint32
	}{
		{"read", seccompData(auditArch, nr("read")), retAllow},
		{"futex", seccompData(auditArch, nr("futex")), retAllow},
		{"openat", seccompData(auditArch, openat), eperm},
		{"execve", seccompData(auditArch, execve), eperm},
		{"socket", seccompData(auditArch, socket), eperm},
		{"seccomp", seccompData(auditArch, nr("seccomp")), eperm},
		{"thread", seccompData(auditArch, nr("clone"), cloneThread|0x100), retAllow},
		{"fork by clone", seccompData(auditArch, nr("clone"), uint64(syscall.SIGCHLD)), eperm},
		{"clone3", seccompData(auditArch, nr("clone3")), enosys},
		{"tgkill self", seccompData(auditArch, nr("tgkill"), pid, 7, 23), retAllow},
		{"tgkill other", seccompData(auditArch, nr("tgkill"), pid+1, 7, 23), eperm},
		{"tgkill high bits", seccompData(auditArch, nr("tgkill"), 1<<32|pid, 7, 23), eperm},
		{"kill self", seccompData(auditArch, nr("kill"), pid, 9), retAllow},
		{"kill parent", seccompData(auditArch, nr("kill"), 1, 9), eperm},
		{"read limits", seccompData(auditArch, nr("prlimit64"), 0, 7, 0, 0xc000), retAllow},
		{"set limits", seccompData(auditArch, nr("prlimit64"), 0, 7, 0xc000, 0), eperm},
		{"another architecture", seccompData(auditArch^1, nr("read")), retKill},
	} {
		if got := runFilter(t, prog, c.data); got != c.want {
			t.Errorf("%s: %#x, want %#x", c.name, got, c.want)
		}
	}
	if x32Check {
		if got := runFilter(t, prog, seccompData(auditArch, nr("read")|x32SyscBit)); got != retKill {
			t.Errorf("x32 read: %#x, want kill", got)
		}
	}
}
