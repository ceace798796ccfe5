package sandbox

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"policyevolve/envs"
	"policyevolve/envs/ssd"
)

// testCache holds the native workers built by this test run; it is removed
// at the end, so the tests leave nothing in the user's cache.
var testCache string

func TestMain(m *testing.M) {
	if cache := os.Getenv("SANDBOX_TEST_HOST"); cache != "" {
		os.Exit(hostThatDies(cache))
	}
	if v := os.Getenv("SANDBOX_TEST_BUILD_HOST"); v != "" {
		cache, goCmd, _ := strings.Cut(v, "|")
		os.Exit(buildHostThatDies(cache, goCmd))
	}
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
	keepForClose(p)
	return p
}

var (
	testProgramsMu sync.Mutex
	testPrograms   []*Program
)

// keepForClose remembers a program so that closeTestPrograms can end its
// idle workers.
func keepForClose(p *Program) {
	testProgramsMu.Lock()
	testPrograms = append(testPrograms, p)
	testProgramsMu.Unlock()
}

// closeTestPrograms ends the idle workers of every program the tests made:
// a test that checks for processes left behind calls it first.
func closeTestPrograms() {
	testProgramsMu.Lock()
	defer testProgramsMu.Unlock()
	for _, p := range testPrograms {
		p.Close()
	}
}

// compile compiles a source on a backend or fails the test.
func compile(t testing.TB, sb *Sandbox, src string) *Program {
	t.Helper()
	p, err := sb.Compile(context.Background(), []byte(src))
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	keepForClose(p)
	t.Cleanup(p.Close)
	return p
}

// hostThatDies is TestWorkersDieWithTheHost's child: it starts a worker
// whose policy never returns (with a step deadline far away, so that no
// watchdog ends it), prints the worker's pid and waits to be killed.
func hostThatDies(cache string) int {
	sb, err := New(Config{Backend: Native, CacheDir: cache, StepTimeout: time.Hour})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	src := "package policy\n\nimport \"ssd\"\n\nfunc Policy(v *ssd.View, agent int) int {\n\tfor {\n\t}\n}\n"
	prog, err := sb.Compile(context.Background(), []byte(src))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	m, _ := envs.BuiltinMap(ssd.Gathering, "small")
	env, _ := envs.New(envs.Config{Map: m, Agents: 2})
	go envs.Run(context.Background(), env, []envs.Seat{{Actor: prog.Actor(), Agents: []int{0, 1}}}, envs.Options{})
	for len(children()) == 0 {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond) // into the endless step
	fmt.Println(children()[0])
	select {}
}
