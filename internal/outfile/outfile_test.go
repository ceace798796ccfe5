//go:build unix

package outfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestModeFollowsTheUmask: a file is 0666 less the umask, as any program's.
func TestModeFollowsTheUmask(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		umask int
		want  fs.FileMode
	}{{0o022, 0o644}, {0o077, 0o600}, {0o002, 0o664}} {
		old := syscall.Umask(c.umask)
		path := filepath.Join(dir, "r.html")
		err := WriteFile(path, []byte("<p>hello</p>"))
		syscall.Umask(old)
		if err != nil {
			t.Fatal(err)
		}
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != c.want {
			t.Errorf("umask %03o: mode %v, want %v", c.umask, st.Mode().Perm(), c.want)
		}
	}
}

// TestErrorsNameTheUsersPath: no temporary name in any error.
func TestErrorsNameTheUsersPath(t *testing.T) {
	path := "/nonexistent/dir/r.html"
	err := WriteFile(path, []byte("x"))
	if err == nil || err.Error() != "create /nonexistent/dir/r.html: no such file or directory" || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("got %v", err)
	}
	// A directory in the way of the rename.
	dir := t.TempDir()
	target := filepath.Join(dir, "taken")
	os.MkdirAll(filepath.Join(target, "sub"), 0o755)
	err = WriteFile(target, []byte("x"))
	if err == nil || !strings.HasPrefix(err.Error(), "write "+target+": ") || strings.Contains(err.Error(), ".tmp") {
		t.Errorf("got %v", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("left behind: %v", entries)
	}
}

// TestDiscardLeavesTheOldFile: a write that is abandoned changes nothing.
func TestDiscardLeavesTheOldFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "table.csv")
	os.WriteFile(path, []byte("old"), 0o644)
	f, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("new, half written"))
	f.Discard()
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Errorf("file holds %q", b)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("left behind: %v", entries)
	}
}
