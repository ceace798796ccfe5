package worker

import (
	"os"
	"strconv"
	"syscall"
	"unsafe"
)

// limitAndReexec sets the limits and replaces the process with a fresh
// start of the same program, which the kernel then starts under them.
//
// Nothing may be allocated between the two: the running image reserved
// its address space before the limit existed, so under RLIMIT_AS a heap
// that needs one more span would fail ("runtime: out of memory"). So the
// arguments of execve are prepared first, and the limits and execve are
// system calls made from one function that allocates nothing.
func limitAndReexec(l Limits, env []string) error {
	path, err := syscall.BytePtrFromString("/proc/self/exe")
	if err != nil {
		return err
	}
	argv, err := syscall.SlicePtrFromStrings(append([]string{"policy-worker"}, osArgs()[1:]...))
	if err != nil {
		return err
	}
	envv, err := syscall.SlicePtrFromStrings(env)
	if err != nil {
		return err
	}
	var rl rlimits
	// No core files: a worker killed by its CPU limit must not leave one.
	rl.add(syscall.RLIMIT_CORE, 0)
	// No files written (policies cannot open any; belt and braces).
	rl.add(syscall.RLIMIT_FSIZE, 0)
	if l.AddressSpace > 0 {
		// Threads created through cgo (a binary that links net, like
		// policyevolve for its yaegi worker) reserve RLIMIT_STACK bytes of
		// address space each, 8 MiB by default: a handful of them would
		// eat the address-space budget. Goroutines have their own stacks;
		// 1 MiB is 64 times what a non-cgo Go thread gets.
		rl.add(syscall.RLIMIT_STACK, 1<<20)
		rl.add(syscall.RLIMIT_AS, uint64(l.AddressSpace))
	}
	if l.CPUSeconds > 0 {
		// Soft and hard limit alike: the Go runtime ignores SIGXCPU, so the
		// budget is enforced by the kernel's SIGKILL at the hard limit.
		rl.add(syscall.RLIMIT_CPU, uint64(l.CPUSeconds))
	}
	if e := setLimitsAndExec(&rl, path, &argv[0], &envv[0]); e != 0 {
		return e
	}
	return nil
}

// rlimits are limits to set, soft and hard alike.
type rlimits struct {
	n   int
	res [5]int
	val [5]syscall.Rlimit
}

func (r *rlimits) add(res int, v uint64) {
	r.res[r.n], r.val[r.n] = res, syscall.Rlimit{Cur: v, Max: v}
	r.n++
}

// setLimitsAndExec sets the limits and executes path; it returns only on
// failure. It allocates nothing and cannot grow its stack.
//
//go:nosplit
func setLimitsAndExec(r *rlimits, path *byte, argv, envv **byte) syscall.Errno {
	for i := 0; i < r.n; i++ {
		if _, _, e := syscall.RawSyscall(syscall.SYS_SETRLIMIT, uintptr(r.res[i]), uintptr(unsafe.Pointer(&r.val[i])), 0); e != 0 {
			return e
		}
	}
	_, _, e := syscall.RawSyscall(syscall.SYS_EXECVE, uintptr(unsafe.Pointer(path)),
		uintptr(unsafe.Pointer(argv)), uintptr(unsafe.Pointer(envv)))
	return e
}

// closeFrom makes every file descriptor from fd up close when the worker
// re-executes itself (close-on-exec), instead of closing it now: the Go
// runtime may already hold one of them (its netpoller's epoll descriptor,
// opened by an earlier package's init in a large binary), and closing it
// under the running runtime crashes it ("epollwait on fd 9 failed with
// 9") if its monitor polls before the execve — which a busy machine made
// happen. The exec that follows closes them all.
func closeFrom(fd int) error {
	const (
		sysCloseRange     = 436    // the same number on every architecture
		closeRangeCloexec = 1 << 2 // CLOSE_RANGE_CLOEXEC, Linux 5.11
	)
	if _, _, e := syscall.RawSyscall(sysCloseRange, uintptr(fd), ^uintptr(0), closeRangeCloexec); e == 0 {
		return nil
	}
	// Older kernels.
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return err
	}
	for _, e := range ents {
		if n, err := strconv.Atoi(e.Name()); err == nil && n >= fd {
			syscall.CloseOnExec(n)
		}
	}
	return nil
}
