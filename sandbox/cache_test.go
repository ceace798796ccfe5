package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"policyevolve/envs"
	"policyevolve/envs/ssd"
)

// TestTrimCache: over its bound, the worker cache loses its least
// recently used files first, down to the bound, but never one used within
// the grace period; under its bound it loses nothing.
func TestTrimCache(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	ages := map[string]time.Duration{"aa/1": 5 * time.Hour, "aa/2": 4 * time.Hour, "bb/3": 3 * time.Hour,
		"bb/4": 2 * time.Hour, "cc/5": 10 * time.Minute, "cc/6": time.Minute}
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
		return out
	}
	if n := trimCache(dir, 600, now); n != 0 || len(left()) != 6 {
		t.Fatalf("at its bound: removed %d bytes, %v left", n, left())
	}
	if n := trimCache(dir, 350, now); n != 300 {
		t.Fatalf("removed %d bytes, want the 3 oldest files (300)", n)
	}
	for _, gone := range []string{"aa/1", "aa/2", "bb/3"} {
		if _, err := os.Stat(filepath.Join(dir, gone)); err == nil {
			t.Errorf("%s was kept", gone)
		}
	}
	// Down to 0 bytes: the old file goes, the recent ones stay.
	if n := trimCache(dir, 0, now); n != 100 || len(left()) != 2 {
		t.Fatalf("removed %d bytes, %v left; want only the two recent files kept", n, left())
	}
}

// TestProgramOutlivesItsCachedFile: a Program keeps its worker open, so
// it still starts workers after the cache lost the file (another
// process's trim, a user clearing ~/.cache).
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
}
