package worker

import (
	"syscall"
	"time"
	"unsafe"
)

const clockProcessCPUTime = 2 // CLOCK_PROCESS_CPUTIME_ID

// cpuTime is the CPU time this process has used, all threads together. A
// worker's step deadline and cost are measured in it, not in wall-clock
// time, so that a loaded machine, which slows a worker down without making
// it do more, does not change what a policy is judged to have done.
func cpuTime() time.Duration {
	var ts syscall.Timespec
	syscall.RawSyscall(syscall.SYS_CLOCK_GETTIME, clockProcessCPUTime, uintptr(unsafe.Pointer(&ts)), 0)
	return time.Duration(ts.Nano())
}
