package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"time"
)

// The worker cache holds a compiled worker per policy source (a few MiB
// each): a long search compiles thousands. It is trimmed to
// Config.CacheMaxBytes after builds, least recently used first: a cache
// hit and every worker start refresh a file's time. A file used within
// cacheGrace is never removed — another process may be about to start it
// — and a Program keeps its worker open, so one that loses its file
// still starts workers.
const (
	// DefaultCacheMaxBytes bounds the worker cache: some 600 workers.
	DefaultCacheMaxBytes = 2 << 30
	cacheGrace           = time.Hour
	// trimEvery: the cache is trimmed after the first build and then
	// every trimEvery builds (listing it costs a stat per file).
	trimEvery = 16
)

// touch marks a cached worker as used now.
func touch(path string) {
	now := time.Now()
	os.Chtimes(path, now, now) // best effort: a read-only cache still serves
}

// cachedWorker is a file of the worker cache.
type cachedWorker struct {
	path string
	size int64
	used time.Time
}

// trimCache removes the least recently used workers until the cache holds
// at most limit bytes, sparing those used within cacheGrace. It returns the
// bytes it removed. Errors are ignored: the cache is an optimisation, and
// a file another process removed first is gone all the same.
func trimCache(dir string, limit int64, now time.Time) int64 {
	entries, _ := filepath.Glob(filepath.Join(dir, "??", "*"))
	var files []cachedWorker
	var total int64
	for _, p := range entries {
		st, err := os.Lstat(p)
		if err != nil || !st.Mode().IsRegular() {
			continue
		}
		files = append(files, cachedWorker{p, st.Size(), st.ModTime()})
		total += st.Size()
	}
	if total <= limit {
		return 0
	}
	slices.SortFunc(files, func(a, b cachedWorker) int { return a.used.Compare(b.used) })
	var removed int64
	for _, f := range files {
		if total-removed <= limit || now.Sub(f.used) < cacheGrace {
			break
		}
		if os.Remove(f.path) == nil {
			removed += f.size
		}
	}
	return removed
}

// afterBuild trims the cache now and then (see trimEvery), in the
// background: never more than one trim at a time.
func (s *Sandbox) afterBuild() {
	if s.cfg.CacheMaxBytes < 0 || s.builds.Add(1)%trimEvery != 1 || !s.trimming.CompareAndSwap(false, true) {
		return
	}
	go func() {
		defer s.trimming.Store(false)
		trimCache(s.cfg.CacheDir, s.cfg.CacheMaxBytes, time.Now())
	}()
}
