package worker

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// AllThreadsFunc makes a system call on every thread of the process, as
// syscall.AllThreadsSyscall6 does in a program without cgo.
type AllThreadsFunc func(trap, a1, a2, a3, a4, a5, a6 uintptr) (r1, r2 uintptr, err syscall.Errno)

// AllThreads says how to reach every thread of the program: a program
// that links cgo (policyevolve itself, the interpreting worker), where
// syscall.AllThreadsSyscall refuses to run, passes one that reaches the C
// threads too, with the directories it lists to find them.
type AllThreads struct {
	Syscall  AllThreadsFunc // nil: syscall.AllThreadsSyscall6
	ReadDirs []string       // directories Syscall lists, kept listable by Landlock
}

// Confine applies the layers l.Confine asks for to this process and
// reports each one: active, or why not (a kernel that lacks it). A layer
// the kernel lacks does not stop the worker; a layer that fails for
// another reason is reported the same way, with the error. Nothing here
// opens a file once the first layer is in force.
func Confine(l Limits, at AllThreads) Confinement {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	allThreads := at.Syscall
	if allThreads == nil {
		allThreads = syscall.AllThreadsSyscall6
	}
	want := l.Confine & WorkerLayers
	var c Confinement
	status := func(layer Layer, err error, detail string) {
		if err != nil {
			c = append(c, LayerStatus{Layer: layer, Detail: err.Error()})
		} else {
			c = append(c, LayerStatus{Layer: layer, Active: true, Detail: detail})
		}
	}
	// Read while files can still be opened.
	root := runsAsRoot()

	if want&(NoNewPrivs|Seccomp|Landlock) != 0 {
		// Landlock and seccomp need it on every thread they restrict.
		err := noNewPrivs(allThreads)
		if want&NoNewPrivs != 0 {
			status(NoNewPrivs, err, "")
		}
	}
	if want&Landlock != 0 {
		// Before NoFile: the ruleset takes a file descriptor.
		abi, err := landlock(allThreads, at.ReadDirs)
		status(Landlock, err, fmt.Sprintf("ABI %d", abi))
	}
	if want&NoFile != 0 {
		status(NoFile, setrlimit(syscall.RLIMIT_NOFILE, l.NoFile), strconv.FormatInt(l.NoFile, 10))
	}
	if want&NProc != 0 {
		err := setrlimit(rlimitNproc, l.NProc)
		if err == nil && root {
			err = fmt.Errorf("set to %d, but the kernel does not enforce it for root", l.NProc)
		}
		status(NProc, err, strconv.FormatInt(l.NProc, 10))
	}
	if want&Seccomp != 0 {
		n, err := seccomp()
		status(Seccomp, err, fmt.Sprintf("%d system calls allowed", n))
	}
	slices.SortFunc(c, func(a, b LayerStatus) int { return int(a.Layer) - int(b.Layer) })
	return c
}

const (
	rlimitNproc        = 6 // RLIMIT_NPROC on Linux (the syscall package omits it)
	prSetNoNewPrivs    = 38
	seccompModeFilter  = 1
	seccompFlagTsync   = 1
	sysLandlockCreate  = 444 // the same numbers on every architecture
	sysLandlockAddRule = 445
	sysLandlockRestrct = 446
)

func setrlimit(res int, n int64) error {
	if n <= 0 {
		return fmt.Errorf("no limit given")
	}
	if err := syscall.Setrlimit(res, &syscall.Rlimit{Cur: uint64(n), Max: uint64(n)}); err != nil {
		return fmt.Errorf("setrlimit: %w", err)
	}
	return nil
}

// noNewPrivs sets PR_SET_NO_NEW_PRIVS on every thread; where that cannot be
// done (cgo without a way to reach every thread), on this one, which
// seccomp's thread synchronisation then extends to the others.
func noNewPrivs(allThreads AllThreadsFunc) error {
	_, _, e := allThreads(syscall.SYS_PRCTL, prSetNoNewPrivs, 1, 0, 0, 0, 0)
	if e == syscall.ENOTSUP {
		_, _, e = syscall.RawSyscall6(syscall.SYS_PRCTL, prSetNoNewPrivs, 1, 0, 0, 0, 0)
	}
	if e != 0 {
		return fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %w", e)
	}
	return nil
}

// runsAsRoot reports whether this process is root on the host: uid 0
// mapped to the host's uid 0. The kernel does not apply RLIMIT_NPROC to
// root.
func runsAsRoot() bool {
	uid := syscall.Getuid()
	b, err := os.ReadFile("/proc/self/uid_map")
	if err != nil {
		return uid == 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 {
			continue
		}
		inside, _ := strconv.Atoi(f[0])
		outside, _ := strconv.Atoi(f[1])
		n, _ := strconv.Atoi(f[2])
		if uid >= inside && uid-inside < n {
			return outside+(uid-inside) == 0
		}
	}
	return false
}
