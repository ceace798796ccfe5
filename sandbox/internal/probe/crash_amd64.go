package main

import "syscall"

// crash makes getpid through the x32 calling convention (bit 30 of the
// system call number), which the seccomp filter answers by killing the
// process.
func crash() { syscall.RawSyscall(syscall.SYS_GETPID|0x40000000, 0, 0, 0) }
