package worker

import (
	"os"
	"strconv"
	"syscall"
)

// reexec replaces the process with a fresh start of the same program.
func reexec(env []string) error {
	return syscall.Exec("/proc/self/exe", append([]string{"policy-worker"}, osArgs()[1:]...), env)
}

func setrlimits(l Limits) error {
	set := func(res int, cur, max uint64) error {
		return syscall.Setrlimit(res, &syscall.Rlimit{Cur: cur, Max: max})
	}
	// No core files: a worker killed by its CPU limit must not leave one.
	if err := set(syscall.RLIMIT_CORE, 0, 0); err != nil {
		return err
	}
	// No files written (policies cannot open any; belt and braces).
	if err := set(syscall.RLIMIT_FSIZE, 0, 0); err != nil {
		return err
	}
	if l.AddressSpace > 0 {
		// Threads created through cgo (a binary that links net, like
		// policyevolve for its yaegi worker) reserve RLIMIT_STACK bytes of
		// address space each, 8 MiB by default: a handful of them would
		// eat the address-space budget. Goroutines have their own stacks;
		// 1 MiB is 64 times what a non-cgo Go thread gets.
		if err := set(syscall.RLIMIT_STACK, 1<<20, 1<<20); err != nil {
			return err
		}
		if err := set(syscall.RLIMIT_AS, uint64(l.AddressSpace), uint64(l.AddressSpace)); err != nil {
			return err
		}
	}
	if l.CPUSeconds > 0 {
		// Soft and hard limit alike: the Go runtime ignores SIGXCPU, so the
		// budget is enforced by the kernel's SIGKILL at the hard limit.
		if err := set(syscall.RLIMIT_CPU, uint64(l.CPUSeconds), uint64(l.CPUSeconds)); err != nil {
			return err
		}
	}
	return nil
}

// closeFrom closes every file descriptor from fd up.
func closeFrom(fd int) error {
	const sysCloseRange = 436 // the same number on every architecture
	if _, _, e := syscall.RawSyscall(sysCloseRange, uintptr(fd), ^uintptr(0), 0); e == 0 {
		return nil
	}
	// Kernels before 5.9.
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return err
	}
	for _, e := range ents {
		if n, err := strconv.Atoi(e.Name()); err == nil && n >= fd {
			syscall.Close(n)
		}
	}
	return nil
}
