//go:build unix

package outfile

import (
	"errors"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

// TestWhatIsThereKeepsItsKind: -o never turns a link, a named pipe or a
// device into a regular file: a link to a regular file has its target
// replaced, a pipe and a device are written through, a socket is refused.
func TestWhatIsThereKeepsItsKind(t *testing.T) {
	dir := t.TempDir()
	mode := func(p string) fs.FileMode {
		fi, err := os.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Mode().Type()
	}

	t.Run("a link to a regular file", func(t *testing.T) {
		target := filepath.Join(dir, "report.html")
		os.WriteFile(target, []byte("old"), 0o644)
		link := filepath.Join(dir, "latest.html")
		os.Symlink("report.html", link)
		if err := WriteFile(link, []byte("new")); err != nil {
			t.Fatal(err)
		}
		if mode(link) != fs.ModeSymlink {
			t.Errorf("the link became %v", mode(link))
		}
		if b, _ := os.ReadFile(target); string(b) != "new" {
			t.Errorf("the target holds %q", b)
		}
	})

	t.Run("a dangling link", func(t *testing.T) {
		link := filepath.Join(dir, "next.html")
		os.Symlink("next-target.html", link)
		if err := WriteFile(link, []byte("made")); err != nil {
			t.Fatal(err)
		}
		if mode(link) != fs.ModeSymlink {
			t.Errorf("the link became %v", mode(link))
		}
		if b, _ := os.ReadFile(filepath.Join(dir, "next-target.html")); string(b) != "made" {
			t.Errorf("the target holds %q", b)
		}
	})

	t.Run("a named pipe", func(t *testing.T) {
		fifo := filepath.Join(dir, "fifo")
		if err := syscall.Mkfifo(fifo, 0o644); err != nil {
			t.Fatal(err)
		}
		got := make(chan string, 1)
		go func() {
			f, err := os.Open(fifo)
			if err != nil {
				got <- err.Error()
				return
			}
			b, _ := io.ReadAll(f)
			f.Close()
			got <- string(b)
		}()
		if err := WriteFile(fifo, []byte("through the pipe")); err != nil {
			t.Fatal(err)
		}
		if s := <-got; s != "through the pipe" {
			t.Errorf("the reader got %q", s)
		}
		if mode(fifo) != fs.ModeNamedPipe {
			t.Errorf("the pipe became %v", mode(fifo))
		}
	})

	t.Run("a device and a link to it", func(t *testing.T) {
		link := filepath.Join(dir, "null")
		os.Symlink(os.DevNull, link)
		for _, p := range []string{os.DevNull, link} {
			if err := WriteFile(p, []byte("nothing")); err != nil {
				t.Fatalf("%s: %v", p, err)
			}
		}
		if m := mode(os.DevNull); m != fs.ModeDevice|fs.ModeCharDevice {
			t.Errorf("%s became %v", os.DevNull, m)
		}
		if mode(link) != fs.ModeSymlink {
			t.Errorf("the link became %v", mode(link))
		}
	})

	t.Run("a descriptor of the process", func(t *testing.T) {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		p := "/proc/self/fd/" + strconv.Itoa(int(w.Fd()))
		if _, err := os.Lstat(p); err != nil {
			t.Skipf("no %s here", p)
		}
		if err := WriteFile(p, []byte("to the pipe")); err != nil {
			t.Fatal(err)
		}
		w.Close()
		if b, _ := io.ReadAll(r); string(b) != "to the pipe" {
			t.Errorf("the pipe got %q", b)
		}
	})

	t.Run("a socket", func(t *testing.T) {
		sock := filepath.Join(dir, "s.sock")
		l, err := net.Listen("unix", sock)
		if err != nil {
			t.Skip(err)
		}
		defer l.Close()
		err = WriteFile(sock, []byte("x"))
		if !errors.Is(err, ErrNotWritable) || err.Error() != "create "+sock+": refusing to write: a socket is not a regular file, a named pipe or a character device" {
			t.Errorf("got %v", err)
		}
		if mode(sock) != fs.ModeSocket {
			t.Errorf("the socket became %v", mode(sock))
		}
	})
}
