package worker

import (
	"errors"
	"fmt"
	"runtime"
	"syscall"
	"unsafe"
)

// The system calls a worker may make once confined: what the Go runtime
// (and, in the interpreting worker, the C library under cgo) calls while
// it serves episodes — memory, threads, signals to itself, futexes, timers,
// the netpoller, and reading and writing the descriptors it already holds.
// Found by tracing both kinds of worker through the conformance and
// red-team suites. Everything else fails with EPERM: opening files,
// sockets, execve, ptrace, fork, signals to other processes, prctl,
// mount, bpf, io_uring…
var allowedSyscalls = []string{
	"read", "write", "readv", "writev", "close", "fcntl",
	"mmap", "munmap", "mprotect", "madvise", "mremap", "brk",
	"rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "sigaltstack",
	"futex", "nanosleep", "clock_nanosleep", "clock_gettime", "clock_getres", "gettimeofday",
	"sched_yield", "sched_getaffinity", "getpid", "gettid", "getrlimit",
	"exit", "exit_group", "restart_syscall", "set_robust_list", "rseq", "getrandom",
	"epoll_create1", "epoll_ctl", "epoll_pwait", "epoll_pwait2", "epoll_wait", "eventfd2",
}

// Calls allowed only with some arguments: thread creation (clone with
// CLONE_THREAD), signals to this process (tgkill, kill), and reading
// resource limits (prlimit64 with no new limit). clone3 passes its flags in
// memory, which a filter cannot read: it fails with ENOSYS, on which the C
// library falls back to clone.
const (
	cloneThread = 0x10000 // CLONE_THREAD
)

// BPF instruction classes and the seccomp return values we use.
const (
	bpfLdWAbs  = 0x20 // BPF_LD | BPF_W | BPF_ABS
	bpfJeqK    = 0x15 // BPF_JMP | BPF_JEQ | BPF_K
	bpfJgeK    = 0x35 // BPF_JMP | BPF_JGE | BPF_K
	bpfJsetK   = 0x45 // BPF_JMP | BPF_JSET | BPF_K
	bpfRetK    = 0x06 // BPF_RET | BPF_K
	retKill    = 0x80000000
	retErrno   = 0x00050000
	retAllow   = 0x7fff0000
	offNr      = 0
	offArch    = 4
	offArgs    = 16 // args[i] at 16+8i, low word first (little endian)
	x32SyscBit = 0x40000000
)

type sockFilter struct {
	code   uint16
	jt, jf uint8
	k      uint32
}

type sockFprog struct {
	len    uint16
	filter *sockFilter
}

// asm assembles a classic BPF program whose jumps name labels.
type asm struct {
	insns  []sockFilter
	jumps  map[int][2]string // instruction → (true label, false label)
	labels map[string]int
}

func (a *asm) label(name string) { a.labels[name] = len(a.insns) }
func (a *asm) ld(off uint32)     { a.insns = append(a.insns, sockFilter{code: bpfLdWAbs, k: off}) }
func (a *asm) ret(v uint32)      { a.insns = append(a.insns, sockFilter{code: bpfRetK, k: v}) }
func (a *asm) jump(code uint16, k uint32, t, f string) {
	a.jumps[len(a.insns)] = [2]string{t, f}
	a.insns = append(a.insns, sockFilter{code: code, k: k})
}

// link resolves the labels; "" means the next instruction.
func (a *asm) link() ([]sockFilter, error) {
	for pc, j := range a.jumps {
		for side, name := range j {
			off := 0
			if name != "" {
				target, ok := a.labels[name]
				if !ok {
					return nil, fmt.Errorf("seccomp filter: no label %q", name)
				}
				off = target - pc - 1
			}
			if off < 0 || off > 255 {
				return nil, fmt.Errorf("seccomp filter: jump from %d to %q out of range", pc, name)
			}
			if side == 0 {
				a.insns[pc].jt = uint8(off)
			} else {
				a.insns[pc].jf = uint8(off)
			}
		}
	}
	return a.insns, nil
}

// seccompFilter builds the allow-list filter for a process with the given
// pid (the only target of the signals it may send).
func seccompFilter(pid int) ([]sockFilter, int, error) {
	if auditArch == 0 {
		return nil, 0, fmt.Errorf("no system-call table for %s", runtime.GOARCH)
	}
	a := &asm{jumps: map[int][2]string{}, labels: map[string]int{}}
	a.ld(offArch)
	a.jump(bpfJeqK, auditArch, "", "kill")
	a.ld(offNr)
	if x32Check {
		a.jump(bpfJgeK, x32SyscBit, "kill", "")
	}
	n := 0
	for _, name := range allowedSyscalls {
		nr, ok := syscallNumbers[name]
		if !ok {
			continue // not on this architecture (epoll_wait on arm64)
		}
		a.jump(bpfJeqK, nr, "allow", "")
		n++
	}
	a.jump(bpfJeqK, syscallNumbers["clone"], "clone", "")
	a.jump(bpfJeqK, syscallNumbers["clone3"], "enosys", "")
	a.jump(bpfJeqK, syscallNumbers["tgkill"], "self", "")
	a.jump(bpfJeqK, syscallNumbers["kill"], "self", "")
	a.jump(bpfJeqK, syscallNumbers["prlimit64"], "getlimit", "")
	a.ret(retErrno | uint32(syscall.EPERM))
	n += 4

	a.label("clone") // clone(flags, …): threads only
	a.ld(offArgs)
	a.jump(bpfJsetK, cloneThread, "allow", "eperm")
	a.label("self") // tgkill(tgid, …), kill(pid, …): this process only
	a.ld(offArgs)
	a.jump(bpfJeqK, uint32(pid), "", "eperm")
	a.ld(offArgs + 4)
	a.jump(bpfJeqK, 0, "allow", "eperm")
	a.label("getlimit") // prlimit64(pid, resource, new, old): new == NULL
	a.ld(offArgs + 16)
	a.jump(bpfJeqK, 0, "", "eperm")
	a.ld(offArgs + 20)
	a.jump(bpfJeqK, 0, "allow", "eperm")

	a.label("allow")
	a.ret(retAllow)
	a.label("eperm")
	a.ret(retErrno | uint32(syscall.EPERM))
	a.label("enosys")
	a.ret(retErrno | uint32(syscall.ENOSYS))
	a.label("kill") // another architecture's calling convention
	a.ret(retKill)
	prog, err := a.link()
	return prog, n, err
}

// seccomp installs the filter on every thread (SECCOMP_FILTER_FLAG_TSYNC,
// which also extends no_new_privs to them) and returns the number of
// system calls it allows.
func seccomp() (int, error) {
	prog, n, err := seccompFilter(syscall.Getpid())
	if err != nil {
		return 0, err
	}
	fp := sockFprog{len: uint16(len(prog)), filter: &prog[0]}
	r, _, e := syscall.RawSyscall(uintptr(syscallNumbers["seccomp"]), seccompModeFilter, seccompFlagTsync, uintptr(unsafe.Pointer(&fp)))
	runtime.KeepAlive(prog)
	switch {
	case e == syscall.EINVAL || e == syscall.ENOSYS:
		return 0, errors.New("the kernel has no seccomp filters")
	case e != 0:
		return 0, fmt.Errorf("seccomp: %w", e)
	case r != 0:
		return 0, fmt.Errorf("seccomp: thread %d could not be synchronised", r)
	}
	return n, nil
}
