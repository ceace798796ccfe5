//go:build !linux

package worker

import "time"

var processStart = time.Now()

// cpuTime falls back to wall-clock time where the process CPU clock is not
// wired up.
func cpuTime() time.Duration { return time.Since(processStart) }
