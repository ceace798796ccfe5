package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// filledStore is a store with enough policies for the policies bucket to
// have pages of its own; it returns the store and the page of that
// bucket's root.
func filledStore(t *testing.T) (*Store, uint64) {
	t.Helper()
	s, err := Open(filepath.Join(t.TempDir(), "filled.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	err = s.Update(func(tx *Tx) error {
		for i := range 50 {
			if _, err := tx.PutPolicy(&Policy{Source: fmt.Sprintf("package p // %d\n%s", i, strings.Repeat("x", 3000))}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var root uint64
	s.view(func(tx *bolt.Tx) error {
		root = uint64(tx.Bucket(bPolicies).Root())
		return nil
	})
	if root == 0 {
		t.Fatal("the policies bucket is inline")
	}
	return s, root
}

// flipByte xors one byte of the file at path.
func flipByte(t *testing.T, path string, offset int64, mask byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var b [1]byte
	if _, err := f.ReadAt(b[:], offset); err != nil {
		t.Fatal(err)
	}
	b[0] ^= mask
	if _, err := f.WriteAt(b[:], offset); err != nil {
		t.Fatal(err)
	}
}

// TestEmptyFileIsNotAStore: a 0-byte file is damaged and not a store, for
// every open; it stays 0 bytes (neither bbolt nor Compact makes a store
// of it).
func TestEmptyFileIsNotAStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "empty.db")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, ro := range []bool{true, false} {
		_, err := Open(path, Options{ReadOnly: ro})
		if !errors.Is(err, ErrDamaged) || !errors.Is(err, ErrNotStore) || !strings.Contains(err.Error(), "the file is empty") ||
			!strings.Contains(err.Error(), "(store check for details)") {
			t.Errorf("read-only %v: %v", ro, err)
		}
	}
	s := &Store{path: path, opt: Options{Timeout: time.Second}}
	if _, _, err := s.Compact(); !errors.Is(err, ErrDamaged) {
		t.Errorf("compact: %v", err)
	}
	problems, err := CheckFile(path, Options{})
	if err != nil || len(problems) != 1 || !strings.Contains(problems[0], "the file is empty") {
		t.Errorf("check: %v, %v", problems, err)
	}
	if st, err := os.Stat(path); err != nil || st.Size() != 0 {
		t.Fatalf("the empty file became %v bytes (%v)", st.Size(), err)
	}
}

// TestDamagedPages: a page of the policies bucket whose header is garbled
// makes reads of that bucket fail with a DamageError naming the page
// (bbolt panics on it, or faults), refuses every writable open (no write
// lands in a damaged store), and Check lists it without panicking. Reads
// of other buckets go on.
func TestDamagedPages(t *testing.T) {
	for _, c := range []struct {
		name   string
		offset int64 // within the page
		mask   byte
		want   string
	}{
		{"type", 8, 0x40, "neither branch nor leaf"},
		{"count", 11, 0x80, "elements, room for"},
		{"id", 2, 0x01, "says it is page"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, page := filledStore(t)
			flipByte(t, s.Path(), int64(page)*4096+c.offset, c.mask)
			before := fileHash(t, s.Path())
			err := s.View(func(tx *Tx) error { _, err := tx.Policies(); return err })
			if c.name != "id" { // bbolt does not check a page's id: it reads it as the page it asked for
				if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), fmt.Sprintf("page %d", page)) {
					t.Errorf("reading the policies: %v", err)
				}
			}
			if err := s.View(func(tx *Tx) error { _, err := tx.Runs(); return err }); err != nil {
				t.Errorf("reading the runs: %v", err)
			}
			if _, err := Open(s.Path(), Options{}); !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("writable open: %v", err)
			}
			problems, err := s.Check()
			if err != nil || len(problems) == 0 || !strings.Contains(problems[0], c.want) {
				t.Errorf("check: %v, %v", problems, err)
			}
			if fileHash(t, s.Path()) != before {
				t.Error("the damaged store was written to")
			}
		})
	}
}

// TestTruncatedStore: a store cut short is refused at open, before bbolt
// maps pages that are not there (reading them would fault).
func TestTruncatedStore(t *testing.T) {
	s, _ := filledStore(t)
	f, err := os.Open(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	h, err := readHeader(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	used := int64(h.meta.hwm) * int64(h.pageSize)
	if err := os.Truncate(s.Path(), used-1); err != nil {
		t.Fatal(err)
	}
	for _, ro := range []bool{true, false} {
		if _, err := Open(s.Path(), Options{ReadOnly: ro}); !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "the file is truncated") {
			t.Errorf("read-only %v: %v", ro, err)
		}
	}
	err = s.View(func(tx *Tx) error { return nil })
	if !errors.Is(err, ErrDamaged) {
		t.Errorf("an open Store: %v", err)
	}
	problems, err := s.Check()
	if err != nil || len(problems) < 2 || !strings.Contains(strings.Join(problems, "\n"), "past the end of the file") {
		t.Errorf("check: %v, %v", problems, err)
	}
}

// TestBugIsNotDamage: a panic in a transaction over sound pages is a bug
// of the program, not damage: it goes on as a panic.
func TestBugIsNotDamage(t *testing.T) {
	s := newStore(t)
	defer func() {
		r := recover()
		if r == nil || !strings.Contains(fmt.Sprint(r), "a bug in fn") || !strings.Contains(fmt.Sprint(r), "a bug, not damage") {
			t.Fatalf("recovered %v", r)
		}
		if err := s.View(func(*Tx) error { return nil }); err != nil {
			t.Fatalf("the store after the panic: %v", err)
		}
	}()
	s.View(func(*Tx) error { panic("a bug in fn") })
}

// TestRecordThatDoesNotDecode: a record whose bytes are not its JSON is
// damage.
func TestRecordThatDoesNotDecode(t *testing.T) {
	s := newStore(t)
	s.update(func(tx *bolt.Tx) error { return tx.Bucket(bRuns).Put([]byte("run-9"), []byte("{garbage")) })
	_, err := func() (*Run, error) {
		var r *Run
		err := s.View(func(tx *Tx) (err error) { r, err = tx.Run("run-9"); return err })
		return r, err
	}()
	var d *DamageError
	if !errors.As(err, &d) || d.Path != s.Path() || !strings.Contains(err.Error(), `record "run-9" does not decode`) {
		t.Fatalf("got %v", err)
	}
	s.update(func(tx *bolt.Tx) error { return tx.Bucket(bRuns).Delete([]byte("run-9")) })
}

// TestCreationLeavesNoHalfStore: a store is created beside its path and
// renamed into place; a leftover of a creation that was killed is
// replaced.
func TestCreationLeavesNoHalfStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "new.db")
	if err := os.WriteFile(path+".new", []byte("left by a killed process"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	mustCheck(t, s)
	if _, err := os.Stat(path + ".new"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the temporary file is still there: %v", err)
	}
	var order = binary.NativeEndian
	data, _ := os.ReadFile(path)
	if len(data) < 4096 || order.Uint32(data[16:]) != boltMagic {
		t.Errorf("the new store is not a bbolt file")
	}
}

// TestMissingOnADamagedStore: on a store opened read-only, a record looked
// for and not found is the answer when the store is sound, and a
// DamageError naming the store's first problem (still wrapping the
// not-found) when it is damaged — an evaluation of a policy the store
// does not hold, here; a writable store is not checked.
func TestMissingOnADamagedStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "test.db")
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	lookup := func(s *Store) error {
		return s.View(func(tx *Tx) error { _, err := tx.Policy("feedface"); return err })
	}
	readOnly := func() *Store {
		t.Helper()
		r, err := Open(path, Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	if err := lookup(readOnly()); !errors.Is(err, ErrNotFound) || errors.Is(err, ErrDamaged) {
		t.Fatalf("a sound store: %v, want not found and no damage", err)
	}
	// An evaluation of a policy the store does not hold.
	if err := s.update(func(tx *bolt.Tx) error {
		return put(tx.Bucket(bEvaluations), []byte("feedface\x00x"), Evaluation{Policy: "feedface"})
	}); err != nil {
		t.Fatal(err)
	}
	if err := lookup(s); !errors.Is(err, ErrNotFound) || errors.Is(err, ErrDamaged) {
		t.Fatalf("the damaged store, writable: %v, want not found, unchecked", err)
	}
	err = lookup(readOnly())
	var d *DamageError
	if !errors.As(err, &d) || d.Path != path || !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "feedface") {
		t.Fatalf("the damaged store, read-only: %v, want a DamageError naming the problem and wrapping not found", err)
	}
}
