package main

import (
	"policyevolve/internal/infile"
	"policyevolve/sandbox"
)

// maxSourceFile bounds a policy source file read from the command line:
// four times what admission accepts (sandbox.MaxSourceSize), so that a
// source a little too long is read and refused by validation with its
// size and the limit, and a file far too long (or endless, such as
// /dev/zero, which is refused as a device anyway) is refused unread.
const maxSourceFile = 4 * sandbox.MaxSourceSize

// readSource reads a policy's source file: a regular file of at most
// maxSourceFile bytes.
func readSource(path string) ([]byte, error) {
	return infile.Read(path, maxSourceFile)
}
