package worker

import (
	"errors"
	"fmt"
	"syscall"
	"unsafe"
)

// The Landlock ABI, from linux/landlock.h.
const (
	landlockCreateRulesetVersion = 1

	// File-system access rights by the ABI version that introduced them.
	landlockFSv1      = 1<<13 - 1 // execute, write, read, read dir, remove, make …
	landlockFSRefer   = 1 << 13   // ABI 2
	landlockFSTrunc   = 1 << 14   // ABI 3
	landlockFSIoctl   = 1 << 15   // ABI 5
	landlockNetBind   = 1 << 0    // ABI 4
	landlockNetConn   = 1 << 1    // ABI 4
	landlockScopeUnix = 1 << 0    // ABI 6: abstract unix sockets
	landlockScopeSig  = 1 << 1    // ABI 6: signals
)

type landlockRulesetAttr struct {
	handledFS  uint64
	handledNet uint64
	scoped     uint64
}

// landlock restricts every thread to a Landlock domain that handles every
// access right the kernel knows and grants none — so no file can be
// opened, written or executed, no TCP port bound or connected (ABI 4), and
// no signal sent outside the domain (ABI 6) — except listing the
// directories readDirs (what allThreads itself may need to find the
// threads). It returns the ABI version in force.
func landlock(allThreads AllThreadsFunc, readDirs []string) (int, error) {
	v, _, e := syscall.RawSyscall(sysLandlockCreate, 0, 0, landlockCreateRulesetVersion)
	if e != 0 {
		switch e {
		case syscall.ENOSYS:
			return 0, errors.New("the kernel has no Landlock")
		case syscall.EOPNOTSUPP:
			//lint:ignore ST1005 Landlock is a proper noun
			return 0, errors.New("Landlock is disabled in this kernel")
		}
		return 0, fmt.Errorf("landlock_create_ruleset: %w", e)
	}
	abi := int(v)
	attr := landlockRulesetAttr{handledFS: landlockFSv1}
	size := unsafe.Sizeof(attr.handledFS)
	if abi >= 2 {
		attr.handledFS |= landlockFSRefer
	}
	if abi >= 3 {
		attr.handledFS |= landlockFSTrunc
	}
	if abi >= 4 {
		attr.handledNet = landlockNetBind | landlockNetConn
		size += unsafe.Sizeof(attr.handledNet)
	}
	if abi >= 5 {
		attr.handledFS |= landlockFSIoctl
	}
	if abi >= 6 {
		attr.scoped = landlockScopeUnix | landlockScopeSig
		size += unsafe.Sizeof(attr.scoped)
	}
	fd, _, e := syscall.RawSyscall(sysLandlockCreate, uintptr(unsafe.Pointer(&attr)), size, 0)
	if e != 0 {
		return abi, fmt.Errorf("landlock_create_ruleset: %w", e)
	}
	defer syscall.Close(int(fd))
	for _, dir := range readDirs {
		if err := landlockAllowReadDir(int(fd), dir); err != nil {
			return abi, err
		}
	}
	if _, _, e := allThreads(sysLandlockRestrct, fd, 0, 0, 0, 0, 0); e != 0 {
		if e == syscall.ENOTSUP {
			return abi, errors.New("cannot reach every thread of this program (cgo)")
		}
		return abi, fmt.Errorf("landlock_restrict_self: %w", e)
	}
	return abi, nil
}

const (
	landlockRulePathBeneath = 1
	landlockFSReadDir       = 1 << 3
	oPath                   = 0x200000 // O_PATH
)

// landlockAllowReadDir adds a rule to the ruleset: dir may be listed.
func landlockAllowReadDir(ruleset int, dir string) error {
	fd, err := syscall.Open(dir, oPath|syscall.O_CLOEXEC|syscall.O_DIRECTORY, 0)
	if err != nil {
		return fmt.Errorf("landlock rule for %s: %w", dir, err)
	}
	defer syscall.Close(fd)
	// struct landlock_path_beneath_attr is packed: u64 allowed_access,
	// s32 parent_fd.
	var attr [12]byte
	*(*uint64)(unsafe.Pointer(&attr[0])) = landlockFSReadDir
	*(*int32)(unsafe.Pointer(&attr[8])) = int32(fd)
	if _, _, e := syscall.RawSyscall6(sysLandlockAddRule, uintptr(ruleset), landlockRulePathBeneath,
		uintptr(unsafe.Pointer(&attr[0])), 0, 0, 0); e != 0 {
		return fmt.Errorf("landlock rule for %s: %w", dir, e)
	}
	return nil
}
