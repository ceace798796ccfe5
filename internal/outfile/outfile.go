// Package outfile writes the files a user asks for — reports, pictures,
// tables, exported sources — the way an ordinary program does: with mode
// 0666 less the umask (0644 under the usual umask 022), atomically (the
// data goes to a temporary file beside the target, renamed into place
// only once it is whole, so that a failure leaves an existing file as it
// was), and with errors that name the user's path, never the temporary
// one.
package outfile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// File is a file being written to Path. Write to it, then Commit (or
// Discard). Not safe for concurrent use.
type File struct {
	Path string
	f    *os.File
}

// Create starts writing path: it creates the temporary file now, so that
// a place that cannot be written fails at once.
func Create(path string) (*File, error) {
	dir, base := filepath.Split(path)
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
		if err != nil {
			return nil, userError("create", path, err)
		}
		return &File{Path: path, f: f}, nil
	}
	return nil, fmt.Errorf("create %s: no free temporary name beside it", path)
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
	if err := f.f.Close(); err != nil {
		os.Remove(f.f.Name())
		return userError("write", f.Path, err)
	}
	if err := os.Rename(f.f.Name(), f.Path); err != nil {
		os.Remove(f.f.Name())
		return userError("write", f.Path, err)
	}
	return nil
}

// Discard closes and removes the temporary file; Path is untouched.
func (f *File) Discard() {
	f.f.Close()
	os.Remove(f.f.Name())
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
