package sandbox

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// testCache holds the native workers built by this test run; it is removed
// at the end, so the tests leave nothing in the user's cache.
var testCache string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "policyevolve-sandbox-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	testCache = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// backends are the implementations every conformance test runs against.
// Under the race detector the yaegi worker is the instrumented test binary,
// which cannot start within a worker's address-space limit: native only.
var backends = []Backend{Native, Yaegi}

func init() {
	if raceEnabled {
		backends = []Backend{Native}
	}
}

func newSandbox(t testing.TB, be Backend, adjust ...func(*Config)) *Sandbox {
	t.Helper()
	cfg := Config{Backend: be, CacheDir: testCache}
	for _, f := range adjust {
		f(&cfg)
	}
	sb, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return sb
}

var (
	exampleMu       sync.Mutex
	examplePrograms = map[string]*Program{}
)

// example compiles examples/policies/NAME.go for a backend, once per test
// run.
func example(t testing.TB, be Backend, name string) *Program {
	t.Helper()
	exampleMu.Lock()
	defer exampleMu.Unlock()
	key := string(be) + "/" + name
	if p := examplePrograms[key]; p != nil {
		return p
	}
	src, err := os.ReadFile(filepath.Join("..", "examples", "policies", name+".go"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := newSandbox(t, be).Compile(context.Background(), src)
	if err != nil {
		t.Fatalf("%s %s: %v", be, name, err)
	}
	examplePrograms[key] = p
	return p
}

// compile compiles a source on a backend or fails the test.
func compile(t testing.TB, sb *Sandbox, src string) *Program {
	t.Helper()
	p, err := sb.Compile(context.Background(), []byte(src))
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	return p
}
