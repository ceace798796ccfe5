//go:build linux

package worker

// AUDIT_ARCH_X86_64; x32 system calls (bit 30 set) are refused.
const (
	auditArch = 0xc000003e
	x32Check  = true
)

// syscallNumbers are the x86-64 numbers of the calls the filter names.
var syscallNumbers = map[string]uint32{
	"read": 0, "write": 1, "close": 3, "mmap": 9, "mprotect": 10, "munmap": 11, "brk": 12,
	"rt_sigaction": 13, "rt_sigprocmask": 14, "rt_sigreturn": 15, "readv": 19, "writev": 20,
	"sched_yield": 24, "mremap": 25, "madvise": 28, "nanosleep": 35, "getpid": 39,
	"clone": 56, "exit": 60, "kill": 62, "fcntl": 72, "gettimeofday": 96, "getrlimit": 97,
	"sigaltstack": 131, "gettid": 186, "futex": 202, "sched_getaffinity": 204,
	"restart_syscall": 219, "clock_gettime": 228, "clock_getres": 229, "clock_nanosleep": 230,
	"exit_group": 231, "epoll_wait": 232, "epoll_ctl": 233, "tgkill": 234,
	"set_robust_list": 273, "epoll_pwait": 281, "eventfd2": 290, "epoll_create1": 291,
	"prlimit64": 302, "seccomp": 317, "getrandom": 318, "rseq": 334, "clone3": 435, "epoll_pwait2": 441,
}
