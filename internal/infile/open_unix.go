//go:build unix

package infile

import (
	"os"
	"syscall"
)

// openNonBlocking opens path for reading without waiting for a writer if
// it became a named pipe since it was checked. O_NONBLOCK does nothing to
// the reads of a regular file.
func openNonBlocking(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
}
