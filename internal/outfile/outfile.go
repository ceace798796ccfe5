// Package outfile writes the files a user asks for — reports, pictures,
// tables, exported sources — the way an ordinary program does: with mode
// 0666 less the umask (0644 under the usual umask 022), atomically (the
// data goes to a temporary file beside the target, renamed into place
// only once it is whole, so that a failure leaves an existing file as it
// was), and with errors that name the user's path, never the temporary
// one.
//
// What is at the path keeps its kind. A symbolic link to a regular file
// stays a link: the file it names is the one replaced. A named pipe or a
// character device (/dev/null, a terminal), or a link to one, is written
// through — opened for writing, as a shell's > does — never replaced by
// a regular file; so is a link under /dev or /proc (/dev/stdout,
// /proc/self/fd/1: the process's own descriptors, whatever they are), and
// a link whose target does not exist yet (the target is created). A
// block device, a socket or anything else is refused. Written through,
// a file is not atomic: what was written before a failure stays.
package outfile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// File is a file being written to Path. Write to it, then Commit (or
// Discard). Not safe for concurrent use.
type File struct {
	Path    string
	f       *os.File
	target  string // the file the temporary one replaces: Path, or the file its link names
	through bool   // f is the file at Path itself, written through (no rename)
}

// Create starts writing path: it creates the temporary file now (or opens
// what it writes through), so that a place that cannot be written fails
// at once. Opening a named pipe waits for a reader, as a shell's > does.
func Create(path string) (*File, error) {
	target := path
	if fi, err := os.Lstat(path); err == nil {
		if fi.Mode()&fs.ModeSymlink != 0 {
			real, err := filepath.EvalSymlinks(path)
			if err != nil || systemLink(path) {
				// Dangling (created through the link), or one of the
				// process's own descriptors (/proc/self/fd/1 names a pipe
				// as "pipe:[…]", which is no path).
				return writeThrough(path)
			}
			if fi, err = os.Stat(real); err != nil {
				return nil, userError("create", path, err)
			}
			target = real
		}
		switch m := fi.Mode(); {
		case m.IsRegular(), m.IsDir(): // a directory fails at the rename, naming path
		case m&fs.ModeNamedPipe != 0, m&fs.ModeCharDevice != 0:
			return writeThrough(path)
		default:
			return nil, &fs.PathError{Op: "create", Path: path, Err: fmt.Errorf("%w: %s is not a regular file, a named pipe or a character device", ErrNotWritable, kind(m))}
		}
	}
	f, err := createTemp(target)
	if err != nil {
		return nil, userError("create", path, err)
	}
	return &File{Path: path, f: f, target: target}, nil
}

// ErrNotWritable: what is at the path is a kind of file -o does not
// write (a block device, a socket).
var ErrNotWritable = errors.New("refusing to write")

// kind names what a file of mode m is.
func kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeDevice != 0 && m&fs.ModeCharDevice == 0:
		return "a block device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "a " + m.Type().String() + " file"
}

// systemLink reports whether path is a link among the system's names for
// a process's descriptors (/dev/stdout, /dev/fd/N, /proc/self/fd/N).
func systemLink(path string) bool {
	abs, err := filepath.Abs(path)
	if err != nil {
		return false
	}
	return strings.HasPrefix(abs, "/dev/") || strings.HasPrefix(abs, "/proc/")
}

// writeThrough opens path itself for writing: appending, so that a
// regular file behind a descriptor link (a shell's >> on standard
// output) keeps what it had.
func writeThrough(path string) (*File, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o666)
	if err != nil {
		return nil, userError("create", path, err)
	}
	return &File{Path: path, f: f, target: path, through: true}, nil
}

// createTemp creates the temporary file beside target.
func createTemp(target string) (*os.File, error) {
	dir, base := filepath.Split(target)
	if dir == "" {
		dir = "."
	}
	for range 100 {
		var b [6]byte
		rand.Read(b[:])
		tmp := filepath.Join(dir, "."+base+"."+hex.EncodeToString(b[:])+".tmp")
		// 0666: the kernel takes the umask off, as for any file a user makes.
		f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, err
	}
	return nil, errors.New("no free temporary name beside it")
}

// Write writes to the temporary file; errors name Path.
func (f *File) Write(p []byte) (int, error) {
	n, err := f.f.Write(p)
	if err != nil {
		err = userError("write", f.Path, err)
	}
	return n, err
}

// Commit closes the file and moves it into place. After an error nothing
// is left behind, and a file that was at Path is as it was.
func (f *File) Commit() error {
	if f.through {
		if err := f.f.Close(); err != nil {
			return userError("write", f.Path, err)
		}
		return nil
	}
	if err := f.f.Close(); err != nil {
		os.Remove(f.f.Name())
		return userError("write", f.Path, err)
	}
	if err := os.Rename(f.f.Name(), f.target); err != nil {
		os.Remove(f.f.Name())
		return userError("write", f.Path, err)
	}
	return nil
}

// Discard closes and removes the temporary file; Path is untouched
// (unless written through: what was written stays).
func (f *File) Discard() {
	f.f.Close()
	if !f.through {
		os.Remove(f.f.Name())
	}
}

// WriteFile writes data to path as Create, Write and Commit do.
func WriteFile(path string, data []byte) error {
	f, err := Create(path)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Discard()
		return err
	}
	return f.Commit()
}

// userError is err about the user's path: a *fs.PathError naming path,
// whatever file the failing call named.
func userError(op, path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		err = le.Err
	}
	return &fs.PathError{Op: op, Path: path, Err: err}
}
