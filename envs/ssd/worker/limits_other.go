//go:build !linux

package worker

import "errors"

func setrlimits(l Limits) error {
	if l.AddressSpace > 0 || l.CPUSeconds > 0 {
		return errors.New("resource limits are implemented only on Linux")
	}
	return nil
}

func reexec(env []string) error { return errors.New("cannot restart the worker on this system") }

func closeFrom(int) error { return nil }
