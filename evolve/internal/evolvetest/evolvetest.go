package evolvetest

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"policyevolve/evolve/arena"
	"policyevolve/evolve/episode"
	"policyevolve/evolve/planner"
	"policyevolve/evolve/planner/prompts"
	"policyevolve/internal/storetest"
	"policyevolve/llm"
	"policyevolve/sandbox"
	"policyevolve/store"
)

// ValidAnswer is a model's answer holding a valid policy.
const ValidAnswer = "I walk to the nearest apple.\n\n```go\npackage policy\n\nimport \"ssd\"\n\nfunc Policy(v *ssd.View, agent int) int {\n\treturn v.GreedyAction(agent)\n}\n```\n"

// BadAnswer is an answer whose policy does not compile: ssd has no
// Nowhere.
const BadAnswer = "Let me stand still.\n```go\nfunc Policy(v *ssd.View, agent int) int {\n\treturn ssd.Nowhere\n}\n```"

// CacheDir is the native backend's compile cache shared by a package's
// tests, set by Main.
var CacheDir string

// Main runs a package's tests (call it from TestMain) with CacheDir set to
// a fresh directory removed afterwards, and returns the exit code.
func Main(m *testing.M) int {
	dir, err := os.MkdirTemp("", "policyevolve-evolve-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	CacheDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	return code
}

// Sandbox is a native sandbox on CacheDir; cfg's backend and cache are set
// here.
func Sandbox(t testing.TB, cfg sandbox.Config) *sandbox.Sandbox {
	t.Helper()
	cfg.Backend, cfg.CacheDir = sandbox.Native, CacheDir
	sb, err := sandbox.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return sb
}

// NewArena returns an Arena on a small, short Gathering game with a fresh
// store whose invariants are checked when the test ends.
func NewArena(t testing.TB) *arena.Arena {
	t.Helper()
	s := storetest.Open(t, filepath.Join(t.TempDir(), "arena.db"))
	env, err := episode.ResolveEnv("gathering", "small", 4, 200)
	if err != nil {
		t.Fatal(err)
	}
	return &arena.Arena{Store: s, Sandbox: Sandbox(t, sandbox.Config{}), Env: env, EvalSeeds: []uint64{0, 1}}
}

// LLMArena is NewArena with a step deadline far from what the test
// policies need, so that a loaded machine cannot fail their smoke tests.
func LLMArena(t testing.TB) *arena.Arena {
	t.Helper()
	a := NewArena(t)
	a.Sandbox = Sandbox(t, sandbox.Config{StepTimeout: 5 * time.Second})
	return a
}

// Example is the source of the example policy name (examples/policies).
func Example(t testing.TB, name string) []byte {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..", "..")
	b, err := os.ReadFile(filepath.Join(root, "examples", "policies", name+".go"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// LLMSetup is an arena, a planner answering from the given replay answers
// and a fix loop, recording into the arena's store under run; the last
// result is the replay file.
func LLMSetup(t testing.TB, run string, answers ...string) (*arena.Arena, *planner.LLMPlanner, *planner.FixLoop, string) {
	t.Helper()
	a := LLMArena(t)
	path := filepath.Join(t.TempDir(), "answers.txt")
	if err := os.WriteFile(path, []byte(llm.FormatReplay(answers)), 0o644); err != nil {
		t.Fatal(err)
	}
	return a, PlannerFor(t, a, "replay:"+path, run), &planner.FixLoop{Sandbox: a.Sandbox, Store: a.Store}, path
}

// PlannerFor is the LLM planner of spec with the default prompts,
// recording its calls into the arena's store under run.
func PlannerFor(t testing.TB, a *arena.Arena, spec, run string) *planner.LLMPlanner {
	t.Helper()
	c, err := llm.New(llm.Config{Spec: spec, Recorder: &planner.LLMRecorder{Store: a.Store, Run: run}})
	if err != nil {
		t.Fatal(err)
	}
	ps, err := prompts.Load("")
	if err != nil {
		t.Fatal(err)
	}
	return &planner.LLMPlanner{Client: c, Prompts: ps}
}

// Calls are the LLM calls recorded for run.
func Calls(t testing.TB, s *store.Store, run string) []store.LLMCall {
	t.Helper()
	var out []store.LLMCall
	if err := s.View(func(tx *store.Tx) (err error) {
		out, err = tx.LLMCalls(run)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return out
}
