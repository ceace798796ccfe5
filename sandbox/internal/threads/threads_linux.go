// Package threads says how an interpreting worker reaches every thread of
// policyevolve, for the confinement layers that bind threads one by one.
package threads

import (
	"fmt"
	"os"

	"kernel.org/pub/linux/libs/security/libcap/psx"

	"policyevolve/envs/ssd/worker"
)

// All reaches every thread of this program. policyevolve links cgo
// (through yaegi's standard library symbols, which include net), and
// syscall.AllThreadsSyscall refuses to run in a cgo program; psx reaches
// the C threads as well. Landlock needs it: a Landlock domain binds only
// the threads that ask for it. psx finds the threads by listing
// /proc/PID/task after the first one is restricted, so that directory
// stays listable (and nothing else: seccomp refuses open anyway).
func All() worker.AllThreads {
	return worker.AllThreads{Syscall: psx.Syscall6, ReadDirs: []string{fmt.Sprintf("/proc/%d/task", os.Getpid())}}
}
