//go:build !unix

package infile

import "os"

// openNonBlocking opens path for reading (elsewhere than on Unix, a file
// checked regular a moment before is trusted to be one still).
func openNonBlocking(path string) (*os.File, error) {
	return os.Open(path)
}
