//go:build unix

package store

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// processAlive reports whether process pid runs on this host (a zombie,
// dead but not yet reaped, does not) and, when start is known (not 0)
// and this system tells start times, is the process that started then,
// not a later one given the same pid.
func processAlive(pid int, start uint64) bool {
	if pid <= 0 {
		return false
	}
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false // ESRCH: no such process
	}
	state, now := procStat(pid)
	if state == 'Z' || state == 'X' {
		return false // a zombie: dead, not yet reaped by its parent
	}
	return start == 0 || now == 0 || now == start
}

// processStart is process pid's start time in clock ticks since boot
// (field 22 of /proc/PID/stat); 0 where there is no /proc (not Linux) or
// the process is gone.
func processStart(pid int) uint64 {
	_, start := procStat(pid)
	return start
}

// procStat reads process pid's state (field 3 of /proc/PID/stat: R, S,
// Z…) and start time (field 22); 0 and 0 where there is no /proc.
func procStat(pid int) (state byte, start uint64) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0
	}
	// The command name (field 2) is in parentheses and may hold spaces:
	// count the fields after its closing one.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, 0
	}
	f := strings.Fields(s[i+1:]) // field 3 onwards
	if len(f) < 20 || len(f[0]) != 1 {
		return 0, 0
	}
	v, err := strconv.ParseUint(f[19], 10, 64)
	if err != nil {
		return f[0][0], 0
	}
	return f[0][0], v
}
