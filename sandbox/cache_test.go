package sandbox

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"policyevolve/envs"
	"policyevolve/envs/ssd"
)

// TestTrimCache: over its bound, the worker cache loses its least
// recently used files first, down to the bound, however recently they were
// used (the hour during which a used file was spared let a long job's
// cache pass 3.2 GB against its 2 GiB bound); a pinned file (a running
// worker's binary) is never removed, and a pinned binary that is gone
// from the cache still counts; under its bound the cache loses nothing.
func TestTrimCache(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	ages := map[string]time.Duration{"aa/1": 50 * time.Minute, "aa/2": 40 * time.Minute, "bb/3": 30 * time.Minute,
		"bb/4": 20 * time.Minute, "cc/5": 10 * time.Minute, "cc/6": time.Minute}
	for name, age := range ages {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, make([]byte, 100), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, now.Add(-age), now.Add(-age)); err != nil {
			t.Fatal(err)
		}
	}
	// A build in progress is a directory: not a worker.
	os.MkdirAll(filepath.Join(dir, "build-1", "x"), 0o755)
	left := func() (out []string) {
		for name := range ages {
			if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
				out = append(out, name)
			}
		}
		slices.Sort(out)
		return out
	}
	if u := trimCache(dir, 600, nil); u.removed != 0 || u.total != 600 || len(left()) != 6 {
		t.Fatalf("at its bound: %+v, %v left", u, left())
	}
	// The oldest is pinned: the next three go.
	pins := map[string]int64{filepath.Join(dir, "aa/1"): 100}
	if u := trimCache(dir, 300, pins); u.removed != 300 || u.total != 300 {
		t.Fatalf("%+v, want the 3 oldest unpinned files removed (300 bytes), 300 left", u)
	}
	if got := left(); !slices.Equal(got, []string{"aa/1", "cc/5", "cc/6"}) {
		t.Fatalf("left %v, want the pinned file and the two most recent", got)
	}
	// A pinned binary deleted from the cache (by hand, or by another
	// process) is still on the disk while its worker runs: it counts.
	os.Remove(filepath.Join(dir, "aa/1"))
	pins[filepath.Join(dir, "zz/gone")] = 1000
	if u := trimCache(dir, 1200, pins); u.removed != 100 || u.total != 1200 {
		t.Fatalf("%+v, want the oldest file removed and 1200 bytes counted (1100 held, 100 in the cache)", u)
	}
	if got := left(); !slices.Equal(got, []string{"cc/6"}) {
		t.Fatalf("left %v, want cc/6", got)
	}
}

// TestProgramOutlivesItsCachedFile: a Program whose worker binary the
// cache lost (another process's trim, a user clearing ~/.cache) builds it
// again at its next worker start, and plays as before.
func TestProgramOutlivesItsCachedFile(t *testing.T) {
	sb := newSandbox(t, Native)
	src := []byte("package policy\n\nimport \"ssd\"\n\n// cache test\nfunc Policy(v *ssd.View, agent int) int { return v.GreedyAction(agent) }\n")
	p, err := sb.Compile(context.Background(), src)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	m, _ := envs.BuiltinMap(ssd.Gathering, "small")
	cfg := envs.Config{Map: m, Agents: 2, MaxSteps: 20}
	want, err := p.SelfPlay(context.Background(), cfg, envs.Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	p.Close() // the next episode needs a new worker
	if err := os.Remove(p.binary); err != nil {
		t.Fatal(err)
	}
	got, err := p.SelfPlay(context.Background(), cfg, envs.Options{Seed: 1})
	if err != nil || got.Metrics != want.Metrics {
		t.Fatalf("after the file was removed: %+v %v, want %+v", got.Metrics, err, want.Metrics)
	}
	if _, err := os.Stat(p.binary); err != nil {
		t.Errorf("the worker was not built again: %v", err)
	}
}

// TestCacheStaysBoundedAndProgramsHoldNoFiles: Programs that a run keeps
// (a pool, a league) hold no open file once their workers have ended —
// they used to keep their worker binary open, one descriptor per admitted
// candidate — and the cache, bounded at two and a half workers, holds at
// most that after three builds, though all three were used seconds ago;
// the evicted program builds its worker again when it next plays.
func TestCacheStaysBoundedAndProgramsHoldNoFiles(t *testing.T) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("needs /proc/self/fd")
	}
	m, _ := envs.BuiltinMap(ssd.Gathering, "small")
	cfg := envs.Config{Map: m, Agents: 2, MaxSteps: 10}
	play := func(p *Program) {
		t.Helper()
		if _, err := p.SelfPlay(context.Background(), cfg, envs.Options{Seed: 1}); err != nil {
			t.Fatal(err)
		}
		p.Close()
	}
	// A warm-up in another cache: whatever the build and start machinery
	// opens once and keeps is not the programs'.
	play(compile(t, newSandbox(t, Native), "package policy\n\nimport \"ssd\"\n\nfunc Policy(v *ssd.View, agent int) int { return ssd.Stand }\n"))
	fds := func() int {
		ents, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Fatal(err)
		}
		return len(ents)
	}
	before := fds()

	dir := t.TempDir()
	var size int64
	sb := newSandbox(t, Native, func(c *Config) { c.CacheDir = dir })
	var progs []*Program
	for i := range 3 {
		src := fmt.Sprintf("package policy\n\nimport \"ssd\"\n\n// variant %d\nfunc Policy(v *ssd.View, agent int) int { return v.GreedyAction(agent) }\n", i)
		p := compile(t, sb, src)
		if size == 0 {
			st, err := os.Stat(p.binary)
			if err != nil {
				t.Fatal(err)
			}
			size = st.Size()
			sb.cfg.CacheMaxBytes = size*5/2 + 1
		}
		for deadline := time.Now().Add(time.Minute); sb.trimming.Load() && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond) // the trim after the build
		}
		play(p)
		progs = append(progs, p)
	}
	if got := fds(); got > before {
		t.Errorf("%d open files after 3 programs played and closed, %d before", got, before)
	}
	var total int64
	for _, p := range progs {
		if st, err := os.Stat(p.binary); err == nil {
			total += st.Size()
		}
	}
	if total > sb.cfg.CacheMaxBytes {
		t.Errorf("the cache holds %d bytes of workers, over its bound of %d", total, sb.cfg.CacheMaxBytes)
	}
	if _, err := os.Stat(progs[0].binary); err == nil {
		t.Errorf("the least recently used worker was kept")
	}
	play(progs[0])
}
