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
	"syscall"
	"time"

	"policyevolve/internal/infile"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// SchemaVersion is the version of the layout this code writes. It reads
// every version up to it (a reader of an older store finds the buckets
// added since missing, and does without them); it writes only to a store
// of this version, migrating an older one when it opens it for writing.
//
//	1  the first published layout (later releases added llm_keys,
//	   iterations, admissions and comparisons to it, created on open)
//	2  match_log and critique_index (see index.go)
const SchemaVersion = 2

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
	// allBuckets: those of schema 1's first release, then those added
	// to schema 1 later (a writable open creates them), then schema 2's.
	allBuckets = [][]byte{bMeta, bPolicies, bEvaluations, bMatches, bRatings, bPools, bRuns, bCritiques, bLLMCalls,
		bLLMKeys, bIterations, bAdmissions, bComparisons, bMatchLog, bCritiqueIndex}
	kSchema = []byte("schema")
	kApp    = []byte("app")
	appName = []byte("policyevolve")
)

// schema1Buckets is how many of allBuckets every store has.
const schema1Buckets = 9

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
	path string
	opt  Options
	mu   sync.RWMutex // one writer or many readers of this process at a time
	busy atomic.Int64 // nanoseconds spent in transactions, waits for the lock included
	// pages walks a read-only store's pages again when the file changed
	// (see pageGuard).
	pages pageGuard

	// checked is the Check made the first time a read-only View did not
	// find what it looked for (missing).
	checked struct {
		once     sync.Once
		problems []string
	}
}

// DefaultPath is the store used when neither --store nor
// POLICYEVOLVE_STORE names one.
const DefaultPath = "policyevolve.db"

// Open opens the store at path, creating it (unless ReadOnly) and bringing
// its schema up to date. A file that is not a policyevolve store is an
// error wrapping ErrNotStore, a damaged one an error wrapping ErrDamaged
// (an empty file is both); neither is modified.
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
	} else if err == nil && !st.Mode().IsRegular() {
		// A named pipe would block the open for ever, a device feed
		// bbolt what it is not.
		return nil, fmt.Errorf("%w: %s is %s, not a regular file", ErrNotStore, path, infile.Kind(st.Mode()))
	}
	if !opt.ReadOnly {
		if err := checkLocal(path); err != nil {
			return nil, err
		}
	}
	s := &Store{path: path, opt: opt}
	_, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) && !opt.ReadOnly {
		// Nor is a store made in a folder that is not there (the lock
		// files could not be made either).
		if dir := filepath.Dir(path); !isDir(dir) {
			return nil, fmt.Errorf("create store %s: the directory %s does not exist: %w", path, dir, os.ErrNotExist)
		}
	}
	if err == nil {
		// A file that is plainly not bbolt's (empty, or neither meta page
		// with bbolt's magic number) is refused before the lock files are
		// made beside it. Reading the header without the locks is safe: a
		// store's file is only ever replaced whole (create, Compact), and
		// a commit rewrites one meta page, never both.
		if err := notBolt(path); err != nil {
			return nil, err
		}
	}
	switch {
	case err != nil && (opt.ReadOnly || !errors.Is(err, os.ErrNotExist)):
		return nil, fmt.Errorf("open store: %w", err)
	case err == nil:
		// An existing file is identified read-only first: a writable open
		// of a foreign bbolt file could already write to it (bbolt syncs
		// some freelists when it opens). Its pages are walked before bbolt
		// reads a record, by every open, read-only ones too: bbolt follows
		// a page cycle (one flipped bit in a child's page id) until its
		// stack or the memory runs out, fatal errors no recover catches.
		// The walk takes about a second per GB (docs/store.md).
		if err := s.view(func(*bolt.Tx) error { return nil }); err != nil {
			return nil, err // not bbolt's, truncated: as every open says
		}
		if err := s.walk(); err != nil {
			return nil, err
		}

		if err := s.view(func(tx *bolt.Tx) error { return identify(tx, !opt.ReadOnly) }); err != nil {
			return nil, err
		}
	default:
		if err := s.create(); err != nil {
			return nil, err
		}
	}
	if opt.ReadOnly {
		return s, nil
	}
	// No write lands in a damaged store (bbolt would build on its damaged
	// pages: the walk above refused it), and a sound one is written to
	// only when its schema needs it.
	current := false
	if err := s.view(func(tx *bolt.Tx) error {
		current = checkSchema(tx, false, false) == nil && allBucketsThere(tx)
		return nil
	}); err != nil {
		return nil, err
	}
	if current {
		return s, nil
	}
	return s, s.update(initSchema)
}

// isDir says whether dir is an existing directory.
func isDir(dir string) bool {
	st, err := os.Stat(dir)
	return err == nil && st.IsDir()
}

// notBolt is the ErrNotStore error readHeader gives for the file at path,
// or nil (for a file it cannot open or read too: the open that follows
// says why).
func notBolt(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	_, err = readHeader(f)
	var d *DamageError
	if errors.Is(err, ErrNotStore) && errors.As(err, &d) {
		d.Path = path
		return d
	}
	return nil
}

// walk checks the store's pages (walkFile) while no process writes; its
// error is a DamageError naming the first problem.
func (s *Store) walk() error {
	return s.locked(false, func() error { return s.pages.check(s.path) })
}

// allBucketsThere says whether the store has every bucket of its schema.
func allBucketsThere(tx *bolt.Tx) bool {
	for _, name := range allBuckets {
		if tx.Bucket(name) == nil {
			return false
		}
	}
	return true
}

// Path is the store's file.
func (s *Store) Path() string { return s.path }

// open opens the bbolt file for one transaction. It never creates the
// file (see create), checks the file's meta pages and size before bbolt
// reads them (see precheck), and retries when the file was replaced (by
// Compact) between opening and locking it, so that no write lands in an
// orphaned file. *f is the file bbolt has open (see withDB).
func (s *Store) open(readOnly bool, f **os.File) (*bolt.DB, error) {
	start := time.Now()
	for {
		*f = nil
		opts := &bolt.Options{
			Timeout:  s.opt.Timeout,
			ReadOnly: readOnly,
			OpenFile: func(name string, flag int, perm os.FileMode) (*os.File, error) {
				// A store that vanished is an error, not a new store.
				// O_NONBLOCK: a file swapped for a named pipe since Open
				// checked it does not block the open (precheck refuses
				// it); it changes nothing for a regular file.
				file, err := os.OpenFile(name, flag&^os.O_CREATE|syscall.O_NONBLOCK, perm)
				if err != nil {
					return nil, err
				}
				if err := precheck(file, readOnly); err != nil {
					file.Close()
					return nil, err
				}
				*f = file
				return file, nil
			},
		}
		db, err := bolt.Open(s.path, 0o644, opts)
		if err != nil {
			var d *DamageError
			switch {
			case errors.As(err, &d):
				return nil, err
			case errors.Is(err, berrors.ErrTimeout):
				return nil, fmt.Errorf("%w: %s held by another process for over %v", ErrBusy, s.path, s.opt.Timeout)
			case errors.Is(err, berrors.ErrInvalid), errors.Is(err, berrors.ErrVersionMismatch), errors.Is(err, berrors.ErrChecksum),
				strings.Contains(err.Error(), "invalid database"), strings.Contains(err.Error(), "file size too small"):
				return nil, &DamageError{Path: s.path, Problem: fmt.Sprintf("not a policyevolve store: %v", err), Err: ErrNotStore}
			case errors.Is(err, os.ErrNotExist):
				return nil, fmt.Errorf("store %s: the file is gone (moved or deleted while in use)", s.path)
			}
			return nil, fmt.Errorf("open store %s: %w", s.path, err)
		}
		locked, err1 := (*f).Stat()
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

// withDB opens the store's file with bbolt for fn and closes it. When
// bbolt panics (on damaged pages; see guarded), the DB is closed all the
// same — its mapping of the file holds the file's lock — but without
// waiting more than a few seconds, in case the panic left one of bbolt's
// own locks held; the file is closed in any case.
func (s *Store) withDB(readOnly bool, fn func(*bolt.DB) error) (err error) {
	var f *os.File
	var db *bolt.DB
	finished := false
	defer func() {
		if finished {
			return
		}
		// A panic, or runtime.Goexit (t.Fatal inside a transaction): the
		// DB is closed all the same, else its lock stays held.
		r := recover()
		if db != nil {
			closed := make(chan struct{})
			go func() {
				db.Close()
				close(closed)
			}()
			select {
			case <-closed:
			case <-time.After(5 * time.Second):
			}
		}
		if f != nil {
			f.Close()
		}
		if r != nil {
			panic(r)
		}
	}()
	db, err = s.open(readOnly, &f)
	if err != nil {
		finished = true
		return err
	}
	err = fn(db)
	finished = true
	if cerr := db.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("close store: %w", cerr)
	}
	return err
}

// Tx is one transaction. Its methods copy data out: nothing they return
// refers to the transaction's memory.
type Tx struct {
	b *bolt.Tx
}

// View runs fn in a read-only transaction. On a store opened read-only,
// an error of fn wrapping ErrNotFound is a DamageError when the store is
// damaged (see missing).
func (s *Store) View(fn func(*Tx) error) error {
	err := s.view(func(b *bolt.Tx) error {
		// Another process may have migrated or replaced the store since
		// Open: check every time (one Get).
		if err := checkSchema(b, true, false); err != nil {
			return err
		}
		if err := checkBuckets(b); err != nil {
			return err
		}
		return fn(&Tx{b})
	})
	if s.opt.ReadOnly && errors.Is(err, ErrNotFound) && !errors.Is(err, ErrDamaged) {
		return s.missing(err)
	}
	return err
}

// missing explains err, a record an inspecting command looked for and
// did not find. In a sound store that is the answer (an id mistyped, a
// run not there); in a damaged one the damage may be why — a bit flipped
// in a record's key hides it, and a record that names it (a candidate, a
// pool member) then points nowhere — so the error says the store is
// damaged, naming the first problem Check finds, and still wraps err.
// The store is checked once, at the first such error.
func (s *Store) missing(err error) error {
	s.checked.once.Do(func() { s.checked.problems, _ = s.Check() })
	problems := s.checked.problems
	if len(problems) == 0 {
		return err
	}
	return &DamageError{Path: s.path, Problem: fmt.Sprintf("%s (reading it: %v)", firstProblem(problems), err), Err: err}
}

// Update runs fn in a read-write transaction, committed if fn returns nil.
// Keep fn short: never run an evaluation or an LLM call inside it.
func (s *Store) Update(fn func(*Tx) error) error {
	return s.update(func(b *bolt.Tx) error {
		if err := checkSchema(b, false, false); err != nil {
			return err
		}
		if err := checkBuckets(b); err != nil {
			return err
		}
		return fn(&Tx{b})
	})
}

// checkBuckets makes sure the buckets of schema 1 are there (those added
// later may be missing from a store opened read-only): without them the
// store is damaged.
func checkBuckets(tx *bolt.Tx) error {
	for _, name := range allBuckets[:schema1Buckets] {
		if tx.Bucket(name) == nil {
			return damaged("the %s bucket is missing", name)
		}
	}
	return nil
}

// Busy is the time this Store's transactions have taken so far, waits
// for the lock and the file included: what a job's profile counts as
// storing.
func (s *Store) Busy() time.Duration { return time.Duration(s.busy.Load()) }

func (s *Store) timed() func() {
	t := time.Now()
	return func() { s.busy.Add(int64(time.Since(t))) }
}

// locked runs fn holding the store: this process's mutex and the lock
// between processes (see enter), shared for a reader, exclusive for a
// writer.
func (s *Store) locked(exclusive bool, fn func() error) error {
	if exclusive {
		s.mu.Lock()
		defer s.mu.Unlock()
	} else {
		s.mu.RLock()
		defer s.mu.RUnlock()
	}
	leave, err := s.enter(exclusive)
	if err != nil {
		return err
	}
	defer leave()
	return fn()
}

func (s *Store) view(fn func(*bolt.Tx) error) error {
	defer s.timed()()
	return s.locked(false, func() error {
		return s.guarded(func() error {
			return s.withDB(true, func(db *bolt.DB) error {
				// bbolt holds the file's shared lock now: no writer.
				if s.opt.ReadOnly {
					if err := s.pages.check(s.path); err != nil {
						return err
					}
				}
				return db.View(fn)
			})
		})
	})
}

func (s *Store) update(fn func(*bolt.Tx) error) error {
	if s.opt.ReadOnly {
		return fmt.Errorf("store %s is open read-only", s.path)
	}
	defer s.timed()()
	return s.locked(true, func() error {
		return s.guarded(func() error {
			return s.withDB(false, func(db *bolt.DB) error { return db.Update(fn) })
		})
	})
}

// create makes a new store at the store's path, whole or not at all: it
// is written beside it, then renamed into place, so that a process killed
// while creating it leaves no empty or half-made store behind. Another
// process that created the store meanwhile wins.
func (s *Store) create() error {
	return s.locked(true, s.createLocked)
}

func (s *Store) createLocked() error {
	if _, err := os.Stat(s.path); err == nil {
		return nil
	}
	tmp := s.path + ".new" // ours alone while we hold the lock
	os.Remove(tmp)
	db, err := bolt.Open(tmp, 0o644, &bolt.Options{Timeout: s.opt.Timeout})
	if err != nil {
		return fmt.Errorf("create store %s: %w", s.path, err)
	}
	err = db.Update(initSchema)
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, s.path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("create store %s: %w", s.path, err)
	}
	syncDir(s.path)
	return nil
}

// syncDir makes a rename in path's folder durable.
func syncDir(path string) {
	if dir, err := os.Open(filepath.Dir(path)); err == nil {
		dir.Sync()
		dir.Close()
	}
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
	if err := checkSchema(tx, true, true); err != nil {
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
		return checkSchema(tx, true, canMigrate)
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
// fine for a reader (older) and for a writer that migrates them.
func checkSchema(tx *bolt.Tx, older, canMigrate bool) error {
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
	case v < SchemaVersion && !older && !canMigrate:
		return fmt.Errorf("store schema %d needs migrating to %d: open it once with a writing command", v, SchemaVersion)
	}
	return nil
}
