package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// TestPageCycleRefusedByEveryOpen: a child page id that points back at
// its ancestor (one flipped bit can do it) makes bbolt recurse until its
// stack or the memory runs out — fatal errors no recover catches — so
// every open walks the pages first and refuses the store, read-only
// opens too.
func TestPageCycleRefusedByEveryOpen(t *testing.T) {
	s, root := filledStore(t)
	pointAtItself(t, s.Path(), root)
	for _, ro := range []bool{true, false} {
		_, err := Open(s.Path(), Options{ReadOnly: ro})
		if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "reached twice") {
			t.Errorf("read-only %v: %v, want the store damaged, a page reached twice", ro, err)
		}
	}
}

// pointAtItself makes the first child of the branch page root root
// itself.
func pointAtItself(t *testing.T, path string, root uint64) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	var hd [16]byte
	if _, err := f.ReadAt(hd[:], int64(root)*4096); err != nil {
		t.Fatal(err)
	}
	if binary.NativeEndian.Uint16(hd[8:]) != flagBranch {
		t.Fatalf("the policies bucket's root %d is not a branch page", root)
	}
	var b [8]byte
	binary.NativeEndian.PutUint64(b[:], root)
	if _, err := f.WriteAt(b[:], int64(root)*4096+16+8); err != nil { // its first child: itself
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestSequenceBehindRecords: a bucket's sequence that reads lower than its
// last record (a flipped bit in the bucket's header) would make the next
// append overwrite a record: the append refuses, and store check lists it.
func TestSequenceBehindRecords(t *testing.T) {
	s := uncheckedStore(t) // left damaged on purpose
	if err := s.Update(func(tx *Tx) error {
		for i := range 5 {
			if err := tx.AddLLMCall(&LLMCall{Run: "r", Key: fmt.Sprint(i), Cost: 1}); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := s.update(func(tx *bolt.Tx) error { return tx.Bucket(bLLMCalls).SetSequence(1) }); err != nil {
		t.Fatal(err)
	}
	err := s.Update(func(tx *Tx) error { return tx.AddLLMCall(&LLMCall{Run: "other", Key: "new", Cost: 9}) })
	if !errors.Is(err, ErrDamaged) {
		t.Fatalf("append over a record: %v, want the store damaged", err)
	}
	var calls []LLMCall
	if err := s.View(func(tx *Tx) (err error) { calls, err = tx.LLMCalls(""); return err }); err != nil || len(calls) != 5 || calls[1].Run != "r" {
		t.Fatalf("the calls after the refused append: %v %+v", err, calls)
	}
	problems, err := s.Check()
	if err != nil || len(problems) != 1 || !strings.Contains(problems[0], "sequence 1 is behind its last record 5") {
		t.Fatalf("check: %q %v", problems, err)
	}
}

// TestTinyTruncation: a store cut inside its meta pages is described, not
// a panic of the page check.
func TestTinyTruncation(t *testing.T) {
	s, _ := filledStore(t)
	for _, size := range []int64{100, 4096 + 100} {
		if err := os.Truncate(s.Path(), size); err != nil {
			t.Fatal(err)
		}
		problems, err := CheckFile(s.Path(), Options{})
		if err != nil || len(problems) == 0 || strings.Contains(strings.Join(problems, "\n"), "stopped") {
			t.Errorf("size %d: %q %v", size, problems, err)
		}
	}
}

// TestGoexitReleasesTheLock: a transaction's function that ends its
// goroutine (t.Fatal in a test) leaves the store usable.
func TestGoexitReleasesTheLock(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "g.db"), Options{Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	for _, write := range []bool{false, true} {
		done := make(chan struct{})
		go func() {
			defer close(done)
			if write {
				s.Update(func(*Tx) error { runtime.Goexit(); return nil })
			} else {
				s.View(func(*Tx) error { runtime.Goexit(); return nil })
			}
		}()
		<-done
		if err := s.Update(func(*Tx) error { return nil }); err != nil {
			t.Fatalf("after a Goexit in a transaction (write %v): %v", write, err)
		}
	}
}

// TestCheckNewerSchema: a store of a newer schema is not called damaged:
// check says it cannot judge it.
func TestCheckNewerSchema(t *testing.T) {
	s := uncheckedStore(t)
	if err := s.update(func(tx *bolt.Tx) error { return tx.Bucket(bMeta).Put(kSchema, u64(SchemaVersion+1)) }); err != nil {
		t.Fatal(err)
	}
	problems, err := CheckFile(s.Path(), Options{})
	if !errors.Is(err, ErrNewerSchema) || len(problems) != 0 {
		t.Fatalf("check: %q %v", problems, err)
	}
}

// uncheckedStore is a new store the test leaves damaged (newStore checks
// its store at the end).
func uncheckedStore(t *testing.T) *Store {
	s, err := Open(filepath.Join(t.TempDir(), "s.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}
