package store

import (
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// setTxid writes txid into meta page i of the store at path, with a valid
// checksum: a crafted meta page.
func setTxid(t *testing.T, path string, i int, txid uint64) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	off := int64(i)*4096 + pageHeaderSize
	d := make([]byte, metaSize)
	if _, err := f.ReadAt(d, off); err != nil {
		t.Fatal(err)
	}
	ne.PutUint64(d[48:], txid)
	h := fnv.New64a()
	h.Write(d[:metaSumOffset])
	ne.PutUint64(d[metaSumOffset:], h.Sum64())
	if _, err := f.WriteAt(d, off); err != nil {
		t.Fatal(err)
	}
}

// TestTxidThatCannotAdvance: a meta page whose transaction id cannot grow
// would win over every later commit, losing it without an error. Every
// write refuses such a store, naming the damage and the way out; store
// check lists it; reads go on; store compact mends it.
func TestTxidThatCannotAdvance(t *testing.T) {
	for _, txid := range []uint64{^uint64(0), ^uint64(0) - 1, maxTxid} {
		path := filepath.Join(t.TempDir(), "s.db")
		s, err := Open(path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		p := &Policy{Source: "package p"}
		if err := s.Update(func(tx *Tx) error { _, err := tx.PutPolicy(p); return err }); err != nil {
			t.Fatal(err)
		}
		// The meta page bbolt reads now (the higher id) gets the id, so
		// that the store reads as before.
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		cur := 0
		if readMeta(f, 4096).txid > readMeta(f, 0).txid {
			cur = 1
		}
		f.Close()
		setTxid(t, path, cur, txid)

		err = s.Update(func(tx *Tx) error { _, err := tx.PutPolicy(&Policy{Source: "package q"}); return err })
		if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "writes would be lost") || !strings.Contains(err.Error(), "store compact") {
			t.Fatalf("txid %d: a write: %v, want it refused", txid, err)
		}
		problems, err := CheckFile(path, Options{})
		if err != nil || len(problems) != 1 || !strings.Contains(problems[0], fmt.Sprintf("meta page %d gives transaction id %d", cur, txid)) {
			t.Fatalf("txid %d: check: %q, %v", txid, problems, err)
		}
		ro, err := Open(path, Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		if err := ro.View(func(tx *Tx) error { _, err := tx.Policy(p.ID); return err }); err != nil {
			t.Fatalf("txid %d: a read: %v", txid, err)
		}
		if _, _, err := s.Compact(); err != nil {
			t.Fatalf("txid %d: compact: %v", txid, err)
		}
		q := &Policy{Source: "package q"}
		if err := s.Update(func(tx *Tx) error { _, err := tx.PutPolicy(q); return err }); err != nil {
			t.Fatalf("txid %d: a write after compact: %v", txid, err)
		}
		s2, err := Open(path, Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		if err := s2.View(func(tx *Tx) error {
			if _, err := tx.Policy(p.ID); err != nil {
				return err
			}
			_, err := tx.Policy(q.ID)
			return err
		}); err != nil {
			t.Fatalf("txid %d: after compact, the policies: %v", txid, err)
		}
		if problems, err := CheckFile(path, Options{}); err != nil || len(problems) != 0 {
			t.Fatalf("txid %d: check after compact: %q, %v", txid, problems, err)
		}
	}
}
