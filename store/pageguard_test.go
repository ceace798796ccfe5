package store

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// TestDamagedUnderAReader: a page damaged after a read-only Store was
// opened (serve runs for hours) is found before bbolt reads it — a page
// cycle would otherwise end the process with a stack overflow no recover
// catches — and every read after says the store is damaged. A writer's
// commits in between are read, not mistaken for damage.
func TestDamagedUnderAReader(t *testing.T) {
	s, _ := filledStore(t)
	r, err := Open(s.Path(), Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	count := func() (int, error) {
		var n int
		err := r.View(func(tx *Tx) error {
			ps, err := tx.Policies()
			n = len(ps)
			return err
		})
		return n, err
	}
	if n, err := count(); err != nil || n != 50 {
		t.Fatalf("before: %d policies, %v", n, err)
	}
	if err := s.Update(func(tx *Tx) error { _, err := tx.PutPolicy(&Policy{Source: "package p // new"}); return err }); err != nil {
		t.Fatal(err)
	}
	if n, err := count(); err != nil || n != 51 {
		t.Fatalf("after a commit: %d policies, %v", n, err)
	}
	var page uint64
	if err := r.view(func(tx *bolt.Tx) error { page = uint64(tx.Bucket(bPolicies).Root()); return nil }); err != nil {
		t.Fatal(err)
	}
	pointAtItself(t, s.Path(), page)
	for range 2 {
		if _, err := count(); !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "reached twice") {
			t.Fatalf("after the damage: %v, want the store damaged, a page reached twice", err)
		}
	}
}

// TestStoreNotARegularFile: a named pipe or a device named as the store is
// refused at once (a named pipe would block the open for ever), for
// reading and for writing.
func TestStoreNotARegularFile(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo.db")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, want string }{
		{fifo, "is a named pipe, not a regular file"},
		{os.DevNull, "is a character device, not a regular file"},
	} {
		for _, ro := range []bool{true, false} {
			_, err := Open(c.path, Options{ReadOnly: ro})
			if !errors.Is(err, ErrNotStore) || !strings.Contains(err.Error(), c.path+" "+c.want) {
				t.Errorf("%s, read-only %v: %v", c.path, ro, err)
			}
			if _, err := walkFile(c.path); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("walk %s: %v", c.path, err)
			}
		}
	}
}

// TestWalkOncePerChange: a read-only store walks its pages again only when
// the file changed (and at every read within two seconds of a change,
// since a file's times move in ticks: not asserted here, as a slow
// machine may take longer than that between two reads).
func TestWalkOncePerChange(t *testing.T) {
	s, _ := filledStore(t)
	r, err := Open(s.Path(), Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	walks := func() int {
		r.pages.mu.Lock()
		defer r.pages.mu.Unlock()
		return r.pages.walks
	}
	read := func() {
		t.Helper()
		if err := r.View(func(tx *Tx) error { _, err := tx.Runs(); return err }); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(settle + 100*time.Millisecond) // the file settles
	read()                                    // walks: the file was fresh at Open
	n := walks()
	for range 3 {
		read()
	}
	if walks() != n {
		t.Errorf("an unchanged file was walked %d more times", walks()-n)
	}
	if err := s.Update(func(tx *Tx) error { _, err := tx.PutPolicy(&Policy{Source: "package p // later"}); return err }); err != nil {
		t.Fatal(err)
	}
	read()
	if walks() != n+1 {
		t.Errorf("after a commit, %d walks for one read, want 1", walks()-n)
	}
}
