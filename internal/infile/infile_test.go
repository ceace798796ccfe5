//go:build unix

package infile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestRead: what may be read is read whole; what may not is refused with
// an error naming the path and saying why, and nothing blocks.
func TestRead(t *testing.T) {
	dir := t.TempDir()
	regular := filepath.Join(dir, "config.toml")
	os.WriteFile(regular, []byte("seed = 1\n"), 0o644)
	link := filepath.Join(dir, "link.toml")
	os.Symlink(regular, link)
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	fifoLink := filepath.Join(dir, "fifo-link")
	os.Symlink(fifo, fifoLink)
	big := filepath.Join(dir, "big")
	os.WriteFile(big, make([]byte, 2048), 0o644)

	for _, c := range []struct {
		name, path string
		limit      int64
		want       string // the contents, or the error's text
		is         error
	}{
		{"regular", regular, 1 << 20, "seed = 1\n", nil},
		{"a link to a regular file", link, 1 << 20, "seed = 1\n", nil},
		{"exactly the limit", regular, 9, "seed = 1\n", nil},
		{"over the limit", big, 1024, "read " + big + ": file too large: more than the 1 KiB this file may hold", ErrTooLarge},
		{"a named pipe", fifo, 1 << 20, "read " + fifo + ": not a regular file (a named pipe)", ErrNotRegular},
		{"a link to a named pipe", fifoLink, 1 << 20, "read " + fifoLink + ": not a regular file (a named pipe)", ErrNotRegular},
		{"a device", "/dev/zero", 1 << 20, "read /dev/zero: not a regular file (a character device)", ErrNotRegular},
		{"a directory", dir, 1 << 20, "read " + dir + ": not a regular file (a directory)", ErrNotRegular},
		{"missing", filepath.Join(dir, "nope"), 1 << 20, "read " + filepath.Join(dir, "nope") + ": no such file or directory", fs.ErrNotExist},
	} {
		t.Run(c.name, func(t *testing.T) {
			data, err := Read(c.path, c.limit)
			if c.is == nil {
				if err != nil || string(data) != c.want {
					t.Fatalf("got %q, %v; want %q", data, err, c.want)
				}
				return
			}
			if err == nil || err.Error() != c.want || !errors.Is(err, c.is) {
				t.Fatalf("got %q, %v; want the error %q (%v)", data, err, c.want, c.is)
			}
		})
	}
}

// TestReadSizeUnreported: a file whose size the system reports as 0 (those
// of /proc) is still held to the limit.
func TestReadSizeUnreported(t *testing.T) {
	const path = "/proc/self/status"
	st, err := os.Stat(path)
	if err != nil || st.Size() != 0 {
		t.Skipf("%s: no file of unreported size here (%v)", path, err)
	}
	if _, err := Read(path, 16); !errors.Is(err, ErrTooLarge) {
		t.Errorf("got %v, want ErrTooLarge", err)
	}
	data, err := Read(path, 1<<20)
	if err != nil || !strings.Contains(string(data), "Pid:") {
		t.Errorf("got %q, %v", data, err)
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[int64]string{1 << 20: "1 MiB", 64 << 20: "64 MiB", 256 << 10: "256 KiB", 1500: "1500 bytes", 3<<20 + 1: "3145729 bytes"} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}
