//go:build !linux

package worker

import "errors"

func limitAndReexec(l Limits, env []string) error {
	if l.AddressSpace > 0 || l.CPUSeconds > 0 {
		return errors.New("resource limits are implemented only on Linux")
	}
	return errors.New("cannot restart the worker on this system")
}

func closeFrom(int) error { return nil }
