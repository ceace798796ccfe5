// Package infile reads the files a user names — a configuration, a
// policy's source, a map, a Q-table, a price table, a replay file — with
// two guards an ordinary os.ReadFile lacks: it refuses what is not a
// regular file (a named pipe, a device such as /dev/zero, a directory,
// a socket) before anything can block on it, and it refuses a file
// larger than a bound the caller chooses for what it reads. Both errors
// name the user's path and say what is wrong, so that a mistyped
// argument is reported at once instead of hanging the command or
// filling its memory.
//
// The check is made twice: os.Stat before the file is opened (opening a
// named pipe blocks until a writer comes), and on the open file, which
// is opened without blocking, so that a file swapped for a pipe or a
// device between the two is refused too. The bound holds even for a file
// whose size the system does not report (those of /proc say 0): at most
// limit+1 bytes are ever read.
package infile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Errors a Read can wrap, for callers that branch on them.
var (
	// ErrNotRegular: the path names a named pipe, a device, a directory,
	// a socket or anything else that is not a regular file.
	ErrNotRegular = errors.New("not a regular file")
	// ErrTooLarge: the file holds more than the caller's limit.
	ErrTooLarge = errors.New("file too large")
)

// Read returns the contents of the regular file at path (a symbolic link
// is followed), at most limit bytes. A failure is a *fs.PathError naming
// path, wrapping ErrNotRegular, ErrTooLarge or the system's error.
func Read(path string, limit int64) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, pathError(path, err)
	}
	if err := check(path, st, limit); err != nil {
		return nil, err
	}
	f, err := openNonBlocking(path)
	if err != nil {
		return nil, pathError(path, err)
	}
	defer f.Close()
	// The file open may not be the one stat saw.
	if st, err = f.Stat(); err != nil {
		return nil, pathError(path, err)
	}
	if err := check(path, st, limit); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, pathError(path, err)
	}
	if int64(len(data)) > limit {
		return nil, tooLarge(path, limit)
	}
	return data, nil
}

// check refuses what is not a regular file, or is larger than limit.
func check(path string, st fs.FileInfo, limit int64) error {
	if !st.Mode().IsRegular() {
		return &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("%w (%s)", ErrNotRegular, Kind(st.Mode()))}
	}
	if st.Size() > limit {
		return tooLarge(path, limit)
	}
	return nil
}

func tooLarge(path string, limit int64) error {
	return &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("%w: more than the %s this file may hold", ErrTooLarge, Size(limit))}
}

// Kind names what a file of mode m is, in words ("a named pipe").
func Kind(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "not a regular file"
}

// Size writes n bytes the way limits are stated: "1 MiB", "256 KiB",
// "300 bytes".
func Size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// pathError is err about path, whatever path the failing call named.
func pathError(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return &fs.PathError{Op: "read", Path: path, Err: err}
}
