//go:build !linux

package sandbox

import "os"

// newProgressPage: no progress page here (see progress_linux.go).
func newProgressPage() *os.File { return nil }
