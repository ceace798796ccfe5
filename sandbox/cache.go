package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"
)

// The worker cache holds a compiled worker per policy (a few MiB each): a
// long search compiles thousands. Its bound, Config.CacheMaxBytes, counts
// every file in it and every binary this process's workers run that is
// no longer in it (evicted, or deleted by hand, while a worker held it:
// the disk space is not freed until the worker ends). It is kept so:
//
//   - Programs hold no open file: a worker is started from the cache by
//     path, and while it runs its binary is pinned (see pin) and never
//     evicted by this process.
//   - After a build that takes the cache past its bound (by the estimate
//     kept since the last trim), and every trimEvery builds in any case (for
//     what other processes built), the cache is trimmed: least recently
//     used first (a cache hit and every worker start refresh a file's
//     time), pinned files spared, down to the bound.
//   - A Program whose file was evicted (by this process, another one, or a
//     user) builds it again at its next worker start.
//
// So the cache exceeds its bound only while the binaries this process's
// workers run at that moment exceed it by themselves, or between another
// process's builds and the next trim.
const (
	// DefaultCacheMaxBytes bounds the worker cache: some 600 workers.
	DefaultCacheMaxBytes = 2 << 30
	// trimEvery: without an estimate over the bound, the cache is trimmed
	// after the first build and then every trimEvery builds (listing it
	// costs a stat per file).
	trimEvery = 16
)

// touch marks a cached worker as used now.
func touch(path string) {
	now := time.Now()
	os.Chtimes(path, now, now) // best effort: a read-only cache still serves
}

// pins are the binaries that workers of this process run, whichever
// Sandbox started them (several may share a cache).
var pins struct {
	mu sync.Mutex
	m  map[string]*pinned // by path
}

// pin marks the cached binary at path, of size bytes, as run by a worker
// of this process until the returned function is called: trims spare it,
// and count it even when it is gone from the cache.
func pin(path string, size int64) (unpin func()) {
	pins.mu.Lock()
	if pins.m == nil {
		pins.m = map[string]*pinned{}
	}
	p := pins.m[path]
	if p == nil {
		p = &pinned{}
		pins.m[path] = p
	}
	p.n++
	p.size = size
	pins.mu.Unlock()
	return func() {
		pins.mu.Lock()
		if p.n--; p.n == 0 {
			delete(pins.m, path)
		}
		pins.mu.Unlock()
	}
}

// pinned is a binary that workers of this process run: how many, and its
// size.
type pinned struct {
	n    int
	size int64
}

// pinnedSizes returns the sizes of the pinned binaries, by path.
func pinnedSizes() map[string]int64 {
	pins.mu.Lock()
	defer pins.mu.Unlock()
	out := make(map[string]int64, len(pins.m))
	for path, p := range pins.m {
		out[path] = p.size
	}
	return out
}

// cachedWorker is a file of the worker cache.
type cachedWorker struct {
	path string
	size int64
	used time.Time
}

// cacheUsage is what a trim found and did: the bytes it removed and the
// bytes the cache holds after it, counting pinned binaries no longer in
// the cache.
type cacheUsage struct{ removed, total int64 }

// trimCache removes the least recently used workers until the cache holds
// at most limit bytes, never a pinned one (path → size). Pinned binaries
// that are not in the cache count towards the total all the same. Errors
// are ignored: the cache is an optimisation, and a file another process
// removed first is gone all the same.
func trimCache(dir string, limit int64, pins map[string]int64) cacheUsage {
	entries, _ := filepath.Glob(filepath.Join(dir, "??", "*"))
	var files []cachedWorker
	var u cacheUsage
	listed := map[string]bool{}
	for _, p := range entries {
		st, err := os.Lstat(p)
		if err != nil || !st.Mode().IsRegular() {
			continue
		}
		listed[p] = true
		u.total += st.Size()
		if _, ok := pins[p]; !ok {
			files = append(files, cachedWorker{p, st.Size(), st.ModTime()})
		}
	}
	for p, size := range pins {
		if !listed[p] {
			u.total += size // held by a worker, gone from the cache
		}
	}
	slices.SortFunc(files, func(a, b cachedWorker) int { return a.used.Compare(b.used) })
	for _, f := range files {
		if u.total <= limit {
			break
		}
		if os.Remove(f.path) == nil {
			u.removed += f.size
			u.total -= f.size
		}
	}
	return u
}

// afterBuild accounts for a build of size bytes and trims the cache, in
// the background, when the estimate passes the bound or every trimEvery
// builds: never more than one trim at a time.
func (s *Sandbox) afterBuild(size int64) {
	if s.cfg.CacheMaxBytes < 0 {
		return
	}
	n := s.builds.Add(1)
	over := s.cacheEstimate.Add(size) > s.cfg.CacheMaxBytes
	if !over && n%trimEvery != 1 || !s.trimming.CompareAndSwap(false, true) {
		return
	}
	go func() {
		defer s.trimming.Store(false)
		u := trimCache(s.cfg.CacheDir, s.cfg.CacheMaxBytes, pinnedSizes())
		s.cacheEstimate.Store(u.total)
	}()
}

// launchNative starts a worker from the program's binary in the cache,
// pinned while the worker runs; if the cache lost the binary, it builds
// it again first.
func (p *Program) launchNative(ctx context.Context) (*proc, error) {
	s := p.sb
	f, err := os.Open(p.binary)
	if errors.Is(err, fs.ErrNotExist) {
		if err = p.rebuild(ctx); err == nil {
			f, err = os.Open(p.binary)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("start worker: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("start worker: %w", err)
	}
	unpin := pin(p.binary, st.Size())
	touch(p.binary) // in use: the last to be evicted by other processes
	w, err := s.launch(f, nil, s.limits(Native))
	if err != nil {
		unpin()
		return nil, err
	}
	go func() {
		<-w.waited
		unpin()
	}()
	return w, nil
}

// rebuild builds the program's worker again, after the cache lost it. The
// source was admitted before, so it prepares the same code, whose build
// lands at the same path.
func (p *Program) rebuild(ctx context.Context) error {
	prep, err := p.sb.analyse(ctx, p.Source, Native)
	if err != nil {
		return fmt.Errorf("rebuild worker: %w", err)
	}
	path, err := p.sb.build(ctx, prep)
	if err != nil {
		return fmt.Errorf("rebuild worker: %w", err)
	}
	if path != p.binary {
		return fmt.Errorf("rebuild worker: built %s, want %s", path, p.binary)
	}
	return nil
}
