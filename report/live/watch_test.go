package live

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestWatcher: a change of the file's time, size or identity is a new
// version, nothing else is; and a write that leaves size and time as
// they were (a file system with coarse times, two commits in one tick)
// still counts once the time is older than the granularity allowed for.
func TestWatcher(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	write := func(s string, mtime time.Time) {
		t.Helper()
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-time.Hour)
	write("aaaa", old)
	w := newWatcher(path, time.Hour)
	w.coarse = 200 * time.Millisecond
	step := func(what string, want uint64) {
		t.Helper()
		w.check()
		if v, _ := w.current(); v != want {
			t.Errorf("%s: version %d, want %d", what, v, want)
		}
	}
	step("nothing changed", 1)
	write("aaaa", old.Add(time.Second))
	step("a new time", 2)
	write("aaaaa", old.Add(time.Second))
	step("a new size", 3)
	os.Rename(path, path+".old")
	write("aaaaa", old.Add(time.Second))
	step("a new file", 4)
	step("nothing changed", 4)

	fresh := time.Now()
	write("bbbbb", fresh)
	step("a fresh write", 5)
	write("ccccc", fresh) // same size, same time: invisible now
	step("a write hidden by a coarse time", 5)
	time.Sleep(300 * time.Millisecond)
	step("the time is older than the granularity: one more look", 6)
	step("nothing changed since", 6)
}
