package store

import (
	"compress/gzip"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// schema1Store writes the schema 1 store of testdata (written by the code
// before schema 2, see testdata/README.md) to a file of dir and returns
// its path.
func schema1Store(t *testing.T, dir string) string {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "schema1.db.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "schema1.db")
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, z); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// contents lists a store's policies, pools, matches (through
// MatchesSince) and each policy's critiques.
type contents struct {
	policies  []string
	pools     []string
	matches   []string
	critiques map[string][]uint64
}

func readContents(t *testing.T, s *Store) contents {
	t.Helper()
	c := contents{critiques: map[string][]uint64{}}
	err := s.View(func(tx *Tx) error {
		ps, err := tx.Policies()
		if err != nil {
			return err
		}
		for _, p := range ps {
			c.policies = append(c.policies, p.ID)
			cs, err := tx.Critiques(p.ID)
			if err != nil {
				return err
			}
			for _, k := range cs {
				c.critiques[p.ID] = append(c.critiques[p.ID], k.ID)
			}
		}
		if c.pools, err = tx.Pools(); err != nil {
			return err
		}
		_, err = tx.MatchesSince(0, func(_ uint64, m *Match) error {
			c.matches = append(c.matches, string(matchKey(m.A, m.B, m.Env, m.Seed)))
			return nil
		})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestSchema1Store: a store written by the code of schema 1 opens and
// lists read-only as it is (untouched, its check clean); opened for
// writing it is migrated to schema 2 in one transaction — the match log
// holds every match once, the critique index every critique — and lists
// the same.
func TestSchema1Store(t *testing.T) {
	path := schema1Store(t, t.TempDir())
	before := fileHash(t, path)
	ro, err := Open(path, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	old := readContents(t, ro)
	if len(old.policies) != 14 || len(old.matches) != 16 || len(old.pools) != 4 || len(old.critiques) != 4 {
		t.Fatalf("the schema 1 store reads as %d policies, %d matches, %d pools, %d critiqued policies",
			len(old.policies), len(old.matches), len(old.pools), len(old.critiques))
	}
	mustCheck(t, ro)
	if fileHash(t, path) != before {
		t.Fatal("reading the schema 1 store wrote to it")
	}

	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	mustCheck(t, s)
	s.view(func(tx *bolt.Tx) error {
		if v := binary.BigEndian.Uint64(tx.Bucket(bMeta).Get(kSchema)); v != SchemaVersion {
			t.Errorf("schema %d after a writable open", v)
		}
		if n := tx.Bucket(bMatchLog).Stats().KeyN; n != 16 {
			t.Errorf("the match log has %d entries for 16 matches", n)
		}
		return nil
	})
	if migrated := readContents(t, s); !reflect.DeepEqual(migrated, old) {
		t.Fatalf("after the migration:\n%+v\nbefore:\n%+v", migrated, old)
	}
}

// TestMigrationIsOneTransaction: a migration that fails leaves the store
// as it was: schema 1, no log, no index.
func TestMigrationIsOneTransaction(t *testing.T) {
	path := schema1Store(t, t.TempDir())
	before := fileHash(t, path)
	real := migrations[1]
	defer func() { migrations[1] = real }()
	boom := errors.New("the disk is full")
	migrations[1] = func(tx *bolt.Tx) error {
		if err := real(tx); err != nil {
			return err
		}
		return boom
	}
	if _, err := Open(path, Options{}); !errors.Is(err, boom) {
		t.Fatalf("a failing migration: %v", err)
	}
	s, err := Open(path, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	s.view(func(tx *bolt.Tx) error {
		if v := binary.BigEndian.Uint64(tx.Bucket(bMeta).Get(kSchema)); v != 1 || tx.Bucket(bMatchLog) != nil || tx.Bucket(bCritiqueIndex) != nil {
			t.Errorf("after a failed migration: schema %d, log %v, index %v", v, tx.Bucket(bMatchLog) != nil, tx.Bucket(bCritiqueIndex) != nil)
		}
		return nil
	})
	mustCheck(t, s)
	if fileHash(t, path) != before {
		t.Error("the failed migration changed the file")
	}
}

// TestMatchesSince: the log gives the matches put after a sequence
// number, in the order they were put.
func TestMatchesSince(t *testing.T) {
	s := newStore(t)
	a, b, c := addPolicy(t, s, "package a"), addPolicy(t, s, "package b"), addPolicy(t, s, "package c")
	put := func(x, y string, seed uint64) {
		t.Helper()
		if err := s.Update(func(tx *Tx) error { return tx.PutMatch(&Match{A: x, B: y, Env: env, Seed: seed, Outcome: 1}) }); err != nil {
			t.Fatal(err)
		}
	}
	since := func(after uint64) (uint64, []string) {
		t.Helper()
		var got []string
		var last uint64
		err := s.View(func(tx *Tx) (err error) {
			last, err = tx.MatchesSince(after, func(_ uint64, m *Match) error {
				got = append(got, m.A[:1]+m.B[:1])
				return nil
			})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return last, got
	}
	put(c, a, 0)
	put(a, b, 0)
	last, got := since(0)
	if last != 2 || !reflect.DeepEqual(got, []string{c[:1] + a[:1], a[:1] + b[:1]}) {
		t.Fatalf("since 0: %d %v", last, got)
	}
	put(b, c, 0)
	if last, got = since(last); last != 3 || !reflect.DeepEqual(got, []string{b[:1] + c[:1]}) {
		t.Fatalf("since 2: %d %v", last, got)
	}
	if last, got = since(last); last != 3 || got != nil {
		t.Fatalf("since 3: %d %v", last, got)
	}
}
