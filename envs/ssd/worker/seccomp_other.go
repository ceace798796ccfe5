//go:build linux && !amd64 && !arm64

package worker

// No system-call table for this architecture: the seccomp layer reports
// itself unavailable.
const (
	auditArch = 0
	x32Check  = false
)

var syscallNumbers = map[string]uint32{}
