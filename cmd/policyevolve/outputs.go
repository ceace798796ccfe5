package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"policyevolve/internal/outfile"
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

// outputs are the files render and report write (see internal/outfile:
// mode 0666 less the umask, atomic, errors naming the user's path). Each
// is created before anything is played, so that an unwritable place fails
// at once, and all are moved into place only when all are written: a
// failed run leaves existing files as they were. "-" is standard output.
type outputs struct {
	w     []io.Writer
	files []*outfile.File
}

func createOutputs(paths []string, stdout io.Writer) (*outputs, error) {
	o := &outputs{}
	for _, p := range paths {
		if p == "-" {
			o.w = append(o.w, stdout)
			continue
		}
		f, err := outfile.Create(p)
		if err != nil {
			o.discard()
			return nil, fmt.Errorf("-o: %w", err)
		}
		o.files = append(o.files, f)
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

// commit moves the files into place.
func (o *outputs) commit() error {
	for i, f := range o.files {
		if err := f.Commit(); err != nil {
			for _, rest := range o.files[i+1:] {
				rest.Discard()
			}
			return fmt.Errorf("-o: %w", err)
		}
	}
	return nil
}

// discard removes the temporary files.
func (o *outputs) discard() {
	for _, f := range o.files {
		f.Discard()
	}
}
