package live

import (
	"context"
	"os"
	"strconv"
	"sync"
	"time"
)

// watcher tells when the store file changed, without reading it: it
// compares the file's identity, size and time of modification every
// poll. A commit rewrites pages of the file, so it changes the time of
// modification (and the size when the file grows); Compact replaces the
// file, which changes its identity.
type watcher struct {
	path   string
	poll   time.Duration
	coarse time.Duration // coarseTimes, but in tests

	mu      sync.Mutex // guards the fields below
	version uint64     // 1 at the start, one more per change seen
	last    os.FileInfo
	settled bool          // the last change is older than coarse, so no change can hide behind its time
	changed chan struct{} // closed and replaced at each change
}

// coarseTimes is the widest granularity of a file system's times of
// modification that the watcher allows for: two commits within it may
// leave the same size and time, so while the newest time is younger than
// this, the watcher counts one more change once it is older.
const coarseTimes = 2 * time.Second

func newWatcher(path string, poll time.Duration) *watcher {
	w := &watcher{path: path, poll: poll, coarse: coarseTimes, version: 1, changed: make(chan struct{})}
	w.last, _ = os.Stat(path)
	w.settled = w.last == nil || time.Since(w.last.ModTime()) > w.coarse
	return w
}

// run checks the file every poll until ctx is done.
func (w *watcher) run(ctx context.Context) {
	t := time.NewTicker(w.poll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			w.check()
		}
	}
}

// check compares the file with what it was and counts a change.
func (w *watcher) check() {
	fi, _ := os.Stat(w.path)
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case !same(fi, w.last):
		w.last = fi
		w.settled = fi == nil || time.Since(fi.ModTime()) > w.coarse
	case !w.settled && time.Since(fi.ModTime()) > w.coarse:
		w.settled = true // one more look at what may have been written within the last time's granularity
	default:
		return
	}
	w.version++
	close(w.changed)
	w.changed = make(chan struct{})
}

func same(a, b os.FileInfo) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return os.SameFile(a, b) && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}

// current is the version now and a channel closed at the next change.
func (w *watcher) current() (uint64, <-chan struct{}) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.version, w.changed
}

func (w *watcher) versionString() string {
	v, _ := w.current()
	return strconv.FormatUint(v, 10)
}
