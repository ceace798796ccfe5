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
// transaction loses that transaction and nothing else. A file that is not
// a bbolt database, or a bbolt database that is not a policyevolve store,
// is refused without being written to. The schema is versioned in the
// meta bucket; older stores are migrated in one transaction, newer ones
// refused. Check verifies the invariants; Compact rewrites the file
// without its free pages.
package store
