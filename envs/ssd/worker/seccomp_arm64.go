//go:build linux

package worker

// AUDIT_ARCH_AARCH64.
const (
	auditArch = 0xc00000b7
	x32Check  = false
)

// syscallNumbers are the arm64 numbers of the calls the filter names (the
// generic table: no epoll_wait).
var syscallNumbers = map[string]uint32{
	"eventfd2": 19, "epoll_create1": 20, "epoll_ctl": 21, "epoll_pwait": 22, "fcntl": 25,
	"close": 57, "read": 63, "write": 64, "readv": 65, "writev": 66,
	"exit": 93, "exit_group": 94, "futex": 98, "set_robust_list": 99, "nanosleep": 101,
	"clock_gettime": 113, "clock_getres": 114, "clock_nanosleep": 115,
	"sched_getaffinity": 123, "sched_yield": 124, "restart_syscall": 128, "kill": 129,
	"tgkill": 131, "sigaltstack": 132, "rt_sigaction": 134, "rt_sigprocmask": 135,
	"rt_sigreturn": 139, "getrlimit": 163, "gettimeofday": 169, "getpid": 172, "gettid": 178,
	"brk": 214, "munmap": 215, "mremap": 216, "clone": 220, "mmap": 222, "mprotect": 226,
	"madvise": 233, "prlimit64": 261, "seccomp": 277, "getrandom": 278, "rseq": 293, "clone3": 435,
	"epoll_pwait2": 441,
}
