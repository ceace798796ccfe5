//go:build !unix

package llm

import "os/exec"

// ownGroup does nothing here: without Unix process groups, only the
// command itself is killed.
func ownGroup(*exec.Cmd) {}

func killGroup(*exec.Cmd) {}
