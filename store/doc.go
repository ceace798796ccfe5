// Package store is the search's memory: a bbolt file holding policies
// (content-addressed by the SHA-256 of their source), evaluations,
// matches, ratings with their history, pools, runs, critiques and LLM
// calls. Everything that cost an LLM call or CPU time is written before it
// is used, so a job killed at any moment resumes from here.
//
// # Readers while a job writes
//
// bbolt locks the whole file: a process that keeps it open read-write
// shuts every other process out, even readers. So no process keeps it
// open: every operation opens the file, runs one short transaction and
// closes it ("brief windows"). A job that writes for hours holds the lock
// only for the milliseconds of each transaction, and `pool ls` from a
// second shell waits at most that long (bounded by Options.Timeout, after
// which it fails with ErrBusy instead of hanging) and sees everything
// committed so far: it is never stale. Two lock files next to the store
// (.lock and .gate, see enter) queue the processes so that readers in a
// tight loop cannot starve a writer; within one process, a RWMutex orders
// the opens. Transactions never span an evaluation or an LLM call.
//
// # Safety
//
// Every commit is fsynced by bbolt; a process killed in the middle of a
// transaction loses that transaction and nothing else. A new store is
// written beside its path and renamed into place, so that no empty or
// half-made store is ever left behind. A file that is not a bbolt
// database, or a bbolt database that is not a policyevolve store, is
// refused without being written to. The schema is versioned in the meta
// bucket; older stores are migrated in one transaction, newer ones
// refused. Check verifies the invariants; Compact rewrites the file
// without its free pages.
//
// # Damaged files
//
// bbolt trusts its file: it maps it and follows the offsets and counts it
// reads, so a truncated or overwritten file can make it panic, or fault
// on a page past the end of the file. Here every open first reads the
// meta pages and the freelist's header itself (pages.go) and refuses an
// empty file, a file that is not bbolt's, or one shorter than its pages;
// an open for writing walks every page first (about a second per GB), so
// that no write lands in a damaged store; a panic or fault inside a
// transaction is caught, and when a walk of the pages finds them damaged
// it becomes an error. All of these are DamageErrors (errors.Is
// ErrDamaged): "the store is damaged: PATH: what (store check for
// details)". Check walks the pages with the same code, which reads the
// file without bbolt and trusts nothing in it, so it describes a damaged
// file instead of crashing on it. What no check can see before reading
// it — a damaged page a read command happens to need, that makes a
// record look missing — Check finds.
package store
