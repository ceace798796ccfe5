package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// parseSpan parses "A-B" (or "A" for one frame) as frames within 0-length.
func parseSpan(s string, length int) (from, to int, err error) {
	lo, hi, isRange := strings.Cut(s, "-")
	if !isRange {
		hi = lo
	}
	from, err1 := strconv.Atoi(strings.TrimSpace(lo))
	to, err2 := strconv.Atoi(strings.TrimSpace(hi))
	switch {
	case err1 != nil || err2 != nil || from < 0:
		return 0, 0, fmt.Errorf("%q is not a frame range A-B (e.g. 0-200)", s)
	case to < from:
		return 0, 0, fmt.Errorf("range %q runs backwards", s)
	case to > length:
		return 0, 0, fmt.Errorf("range %q goes beyond the episode (frames 0-%d for --length %d)", s, length, length)
	}
	return from, to, nil
}

// outputs are the files render writes. Each is written to a temporary
// file beside its path, created before the episode runs so that an
// unwritable place fails at once, and renamed into place only when all
// are written: a failed run leaves an existing file as it was.
type outputs struct {
	w     []io.Writer
	files []*os.File
	paths []string // final paths, per file
}

func createOutputs(paths []string, stdout io.Writer) (*outputs, error) {
	o := &outputs{}
	for _, p := range paths {
		if p == "-" {
			o.w = append(o.w, stdout)
			continue
		}
		f, err := os.CreateTemp(filepath.Dir(p), "."+filepath.Base(p)+".*.tmp")
		if err != nil {
			o.discard()
			return nil, fmt.Errorf("-o %s: %w", p, err)
		}
		o.files = append(o.files, f)
		o.paths = append(o.paths, p)
		o.w = append(o.w, f)
	}
	return o, nil
}

func fileSize(path string) string {
	st, err := os.Stat(path)
	if err != nil {
		return "?"
	}
	if st.Size() < 10_000 {
		return fmt.Sprintf("%d bytes", st.Size())
	}
	return fmt.Sprintf("%.0f KB", float64(st.Size())/1000)
}

// commit closes the files and moves them into place.
func (o *outputs) commit() error {
	for _, f := range o.files {
		if err := f.Close(); err != nil {
			o.discard()
			return fmt.Errorf("-o: %w", err)
		}
	}
	for i, f := range o.files {
		if err := os.Rename(f.Name(), o.paths[i]); err != nil {
			o.discard()
			return fmt.Errorf("-o: %w", err)
		}
	}
	return nil
}

// discard closes and removes the temporary files.
func (o *outputs) discard() {
	for _, f := range o.files {
		f.Close()
		os.Remove(f.Name())
	}
}
