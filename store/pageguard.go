package store

import (
	"fmt"
	"os"
	"sync"
	"time"
)

// pageGuard walks a read-only Store's pages again whenever the file
// changed since they were last walked, before a transaction reads them.
//
// Open walks the pages once (see Open). A store opened read-only lives on
// while others write to it (serve, for hours), and a page damaged after
// Open — a branch page pointing at itself — would make bbolt recurse
// until its stack runs out: a fatal error that no recover catches, the
// end of the process. So every read transaction of a read-only Store
// first compares the file's identity, size and times of modification and
// change with those of the last walk, and walks it again if any differ.
// The walk runs while this process holds the store's shared lock, so no
// writer is between the walk and the read. Its cost (about a second per
// GB, docs/store.md) is paid once per change of the file, not per read
// (and at every read within two seconds of a change: see settle).
//
// A Store opened for writing does not do this: its own commits change the
// file all the time, and it walked the pages at Open.
type pageGuard struct {
	mu     sync.Mutex // serialises the walks; guards walked and walks
	walked fileStamp  // the file when its pages were last found sound
	walks  int        // walks made (the tests count them)
}

// fileStamp is what changes when a file is written to, replaced or
// touched: its identity, size, modification time and (on Unix) the
// change time, which no user can set back.
type fileStamp struct {
	info  os.FileInfo // nil: never walked
	ctime int64
}

func stampOf(path string) (fileStamp, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return fileStamp{}, err
	}
	return fileStamp{info: fi, ctime: changeTime(fi)}, nil
}

// same reports whether a and b are the same file, unchanged.
func (a fileStamp) same(b fileStamp) bool {
	return a.info != nil && b.info != nil && os.SameFile(a.info, b.info) && a.info.Size() == b.info.Size() &&
		a.info.ModTime().Equal(b.info.ModTime()) && a.ctime == b.ctime
}

// check walks the file's pages if it changed since the last walk; its
// error is a DamageError naming the first problem. The caller holds the
// store's lock (no writer).
func (g *pageGuard) check(path string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	st, err := stampOf(path)
	if err != nil {
		return nil // the open that follows says what is wrong
	}
	if st.same(g.walked) {
		return nil
	}
	g.walks++
	problems, err := walkFile(path)
	switch {
	case err != nil:
		return fmt.Errorf("open store: %w", err)
	case len(problems) > 0:
		return &DamageError{Path: path, Problem: firstProblem(problems)}
	}
	// A file's times move in ticks of its file system's clock (a few
	// milliseconds, a second or two on some): a write in the same tick
	// as the walk, leaving the size as it was, would leave the stamp
	// as it is. So a file changed within the last two seconds is walked
	// again at the next read.
	g.walked = fileStamp{}
	if time.Since(st.newest()) > settle {
		g.walked = st
	}
	return nil
}

// settle is how long after its last change a file's stamp is trusted.
const settle = 2 * time.Second

// newest is the later of the file's modification and change times.
func (a fileStamp) newest() time.Time {
	t := a.info.ModTime()
	if c := time.Unix(0, a.ctime); c.After(t) {
		t = c
	}
	return t
}
