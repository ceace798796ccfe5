//go:build !linux

package sandbox

import (
	"os"
	"syscall"
)

func procAttr(nsLevel) *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

func killGroup(p *os.Process) error {
	if p == nil {
		return nil
	}
	return p.Kill()
}
