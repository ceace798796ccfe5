package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// SchemaVersion is the version of the layout this code reads and writes.
const SchemaVersion = 1

// Errors callers branch on.
var (
	ErrNotFound  = errors.New("not found")
	ErrAmbiguous = errors.New("ambiguous id prefix")
	// ErrNotStore: the file is not a policyevolve store (not bbolt at all,
	// or a bbolt database of something else). It is left untouched.
	ErrNotStore = errors.New("not a policyevolve store")
	// ErrNewerSchema: the store was written by a newer policyevolve.
	ErrNewerSchema = errors.New("store schema is newer than this program")
	// ErrBusy: another process held the store longer than Options.Timeout.
	ErrBusy = errors.New("store is busy")
)

// Bucket names.
var (
	bMeta        = []byte("meta")
	bPolicies    = []byte("policies")
	bEvaluations = []byte("evaluations")
	bMatches     = []byte("matches")
	bRatings     = []byte("ratings") // nested: one bucket per pool
	bPools       = []byte("pools")   // nested: one bucket per pool
	bRuns        = []byte("runs")
	bCritiques   = []byte("critiques")
	bLLMCalls    = []byte("llm_calls")
	bLLMKeys     = []byte("llm_keys")    // run NUL request key → id of the successful call
	bIterations  = []byte("iterations")  // run NUL big-endian iteration → Iteration
	bAdmissions  = []byte("admissions")  // policy id NUL game → Admission
	bComparisons = []byte("comparisons") // comparison id → Comparison
	allBuckets   = [][]byte{bMeta, bPolicies, bEvaluations, bMatches, bRatings, bPools, bRuns, bCritiques, bLLMCalls, bLLMKeys,
		bIterations, bAdmissions, bComparisons}
	kSchema = []byte("schema")
	kApp    = []byte("app")
	appName = []byte("policyevolve")
)

// migrations[v] upgrades a store of schema v to v+1, inside the one
// transaction that runs all pending migrations.
var migrations = map[uint64]func(*bolt.Tx) error{}

// Options configure a Store. The zero value works.
type Options struct {
	// Timeout bounds the wait for the file lock another process holds;
	// past it an operation fails with ErrBusy. Default 10 s.
	Timeout time.Duration
	// ReadOnly opens for inspection only: no file is created, no schema
	// migrated, and writes fail.
	ReadOnly bool
}

// Store is a policyevolve store file. It holds no file open between
// operations (see the package documentation); it is safe for concurrent
// use.
type Store struct {
	path     string
	opt      Options
	mu       sync.RWMutex // one writer or many readers of this process at a time
	busy     atomic.Int64 // nanoseconds spent in transactions, waits for the lock included
	creating bool         // only Open may create the file
}

// DefaultPath is the store used when neither --store nor
// POLICYEVOLVE_STORE names one.
const DefaultPath = "policyevolve.db"

// Open opens the store at path, creating it (unless ReadOnly) and bringing
// its schema up to date. A file that is not a policyevolve store is an
// error wrapping ErrNotStore and is not modified.
func Open(path string, opt Options) (*Store, error) {
	if opt.Timeout <= 0 {
		opt.Timeout = 10 * time.Second
	}
	// Follow a symbolic link once, so that Compact replaces the file and
	// not the link.
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	// A directory is refused before anything is created beside it (the
	// lock files .lock and .gate).
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return nil, fmt.Errorf("%w: %s is a directory (name the store's file, e.g. %s)", ErrNotStore, path, filepath.Join(path, DefaultPath))
	}
	s := &Store{path: path, opt: opt}
	st, err := os.Stat(path)
	switch {
	case err != nil && (opt.ReadOnly || !errors.Is(err, os.ErrNotExist)):
		return nil, fmt.Errorf("open store: %w", err)
	case err == nil && st.Size() > 0:
		// An existing file is identified read-only first: a writable open
		// of a foreign bbolt file could already write to it (bbolt syncs
		// some freelists when it opens).
		if err := s.view(func(tx *bolt.Tx) error { return identify(tx, !opt.ReadOnly) }); err != nil {
			return nil, err
		}
	}
	if opt.ReadOnly {
		return s, nil
	}
	s.creating = true
	defer func() { s.creating = false }()
	return s, s.update(initSchema)
}

// Path is the store's file.
func (s *Store) Path() string { return s.path }

// open opens the bbolt file for one transaction. It retries when the file
// was replaced (by Compact) between opening and locking it, so that no
// write lands in an orphaned file.
func (s *Store) open(readOnly bool) (*bolt.DB, error) {
	start := time.Now()
	for {
		var f *os.File
		opts := &bolt.Options{
			Timeout:  s.opt.Timeout,
			ReadOnly: readOnly,
			OpenFile: func(name string, flag int, perm os.FileMode) (*os.File, error) {
				if !s.creating {
					flag &^= os.O_CREATE // a store that vanished is an error, not a new store
				}
				var err error
				f, err = os.OpenFile(name, flag, perm)
				return f, err
			},
		}
		db, err := bolt.Open(s.path, 0o644, opts)
		if err != nil {
			switch {
			case errors.Is(err, berrors.ErrTimeout):
				return nil, fmt.Errorf("%w: %s held by another process for over %v", ErrBusy, s.path, s.opt.Timeout)
			case errors.Is(err, berrors.ErrInvalid), errors.Is(err, berrors.ErrVersionMismatch), errors.Is(err, berrors.ErrChecksum),
				strings.Contains(err.Error(), "invalid database"), strings.Contains(err.Error(), "file size too small"):
				return nil, fmt.Errorf("%w: %s: %v", ErrNotStore, s.path, err)
			case errors.Is(err, os.ErrNotExist):
				return nil, fmt.Errorf("store %s: the file is gone (moved or deleted while in use)", s.path)
			}
			return nil, fmt.Errorf("open store %s: %w", s.path, err)
		}
		locked, err1 := f.Stat()
		named, err2 := os.Stat(s.path)
		if err1 == nil && err2 == nil && os.SameFile(locked, named) {
			return db, nil
		}
		// Replaced (by Compact) between opening and locking: try again on
		// the new file, for as long as a lock may be waited for.
		db.Close()
		if time.Since(start) > s.opt.Timeout {
			return nil, fmt.Errorf("%w: %s kept being replaced for %v", ErrBusy, s.path, s.opt.Timeout)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Tx is one transaction. Its methods copy data out: nothing they return
// refers to the transaction's memory.
type Tx struct {
	b *bolt.Tx
}

// View runs fn in a read-only transaction.
func (s *Store) View(fn func(*Tx) error) error {
	return s.view(func(b *bolt.Tx) error {
		// Another process may have migrated or replaced the store since
		// Open: check every time (one Get).
		if err := checkSchema(b, false); err != nil {
			return err
		}
		return fn(&Tx{b})
	})
}

// Update runs fn in a read-write transaction, committed if fn returns nil.
// Keep fn short: never run an evaluation or an LLM call inside it.
func (s *Store) Update(fn func(*Tx) error) error {
	return s.update(func(b *bolt.Tx) error {
		if err := checkSchema(b, false); err != nil {
			return err
		}
		return fn(&Tx{b})
	})
}

// Busy is the time this Store's transactions have taken so far, waits
// for the lock and the file included: what a job's profile counts as
// storing.
func (s *Store) Busy() time.Duration { return time.Duration(s.busy.Load()) }

func (s *Store) timed() func() {
	t := time.Now()
	return func() { s.busy.Add(int64(time.Since(t))) }
}

func (s *Store) view(fn func(*bolt.Tx) error) error {
	defer s.timed()()
	s.mu.RLock()
	defer s.mu.RUnlock()
	leave, err := s.enter(false)
	if err != nil {
		return err
	}
	defer leave()
	db, err := s.open(true)
	if err != nil {
		return err
	}
	defer db.Close()
	return db.View(fn)
}

func (s *Store) update(fn func(*bolt.Tx) error) error {
	if s.opt.ReadOnly {
		return fmt.Errorf("store %s is open read-only", s.path)
	}
	defer s.timed()()
	s.mu.Lock()
	defer s.mu.Unlock()
	leave, err := s.enter(true)
	if err != nil {
		return err
	}
	defer leave()
	db, err := s.open(false)
	if err != nil {
		return err
	}
	err = db.Update(fn)
	if cerr := db.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("close store: %w", cerr)
	}
	return err
}

func u64(v uint64) []byte { return binary.BigEndian.AppendUint64(nil, v) }

// initSchema creates the buckets of a new store, checks an existing one
// and migrates an older one, all in the caller's transaction.
func initSchema(tx *bolt.Tx) error {
	meta := tx.Bucket(bMeta)
	if meta == nil {
		var names []string
		tx.ForEach(func(name []byte, _ *bolt.Bucket) error {
			names = append(names, string(name))
			return nil
		})
		if len(names) > 0 {
			sort.Strings(names)
			return fmt.Errorf("%w: a bbolt database with buckets %s and no policyevolve metadata",
				ErrNotStore, strings.Join(names, ", "))
		}
		for _, name := range allBuckets {
			if _, err := tx.CreateBucket(name); err != nil {
				return err
			}
		}
		meta = tx.Bucket(bMeta)
		if err := meta.Put(kApp, appName); err != nil {
			return err
		}
		return meta.Put(kSchema, u64(SchemaVersion))
	}
	if err := checkSchema(tx, true); err != nil {
		return err
	}
	v := binary.BigEndian.Uint64(meta.Get(kSchema))
	for ; v < SchemaVersion; v++ {
		m, ok := migrations[v]
		if !ok {
			return fmt.Errorf("no migration from schema %d", v)
		}
		if err := m(tx); err != nil {
			return fmt.Errorf("migrate schema %d to %d: %w", v, v+1, err)
		}
	}
	for _, name := range allBuckets {
		if _, err := tx.CreateBucketIfNotExists(name); err != nil {
			return err
		}
	}
	return meta.Put(kSchema, u64(SchemaVersion))
}

// identify accepts a policyevolve store (see checkSchema) and a bbolt
// file without any bucket (a store whose creation was interrupted before
// its first commit); it refuses a bbolt database of anything else.
func identify(tx *bolt.Tx, canMigrate bool) error {
	if tx.Bucket(bMeta) != nil {
		return checkSchema(tx, canMigrate)
	}
	var names []string
	tx.ForEach(func(name []byte, _ *bolt.Bucket) error {
		names = append(names, string(name))
		return nil
	})
	if len(names) == 0 {
		if !canMigrate {
			return fmt.Errorf("%w: an empty bbolt database (open it once with a writing command)", ErrNotStore)
		}
		return nil
	}
	sort.Strings(names)
	return fmt.Errorf("%w: a bbolt database with buckets %s and no policyevolve metadata", ErrNotStore, strings.Join(names, ", "))
}

// checkSchema verifies the store's identity and version. Older versions are
// fine when the caller can migrate.
func checkSchema(tx *bolt.Tx, canMigrate bool) error {
	meta := tx.Bucket(bMeta)
	if meta == nil || string(meta.Get(kApp)) != string(appName) {
		return fmt.Errorf("%w: no policyevolve metadata", ErrNotStore)
	}
	raw := meta.Get(kSchema)
	if len(raw) != 8 {
		return fmt.Errorf("%w: malformed schema version", ErrNotStore)
	}
	v := binary.BigEndian.Uint64(raw)
	switch {
	case v > SchemaVersion:
		return fmt.Errorf("%w: the store has schema %d, this policyevolve knows %d; use a newer policyevolve",
			ErrNewerSchema, v, SchemaVersion)
	case v < SchemaVersion && !canMigrate:
		return fmt.Errorf("store schema %d needs migrating to %d: open it once with a writing command", v, SchemaVersion)
	}
	return nil
}
