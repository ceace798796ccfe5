package sandbox

import (
	"os"

	"golang.org/x/sys/unix"

	"policyevolve/envs/ssd/worker"
)

// newProgressPage makes the page a worker notes its step in (see the
// worker's progress.go): a memfd of worker.ProgressSize bytes, or nil
// when the kernel has none (then a death is placed at the last step the
// host received).
func newProgressPage() *os.File {
	fd, err := unix.MemfdCreate("policy-progress", unix.MFD_CLOEXEC)
	if err != nil {
		return nil
	}
	if err := unix.Ftruncate(fd, worker.ProgressSize); err != nil {
		unix.Close(fd)
		return nil
	}
	return os.NewFile(uintptr(fd), "policy-progress")
}
